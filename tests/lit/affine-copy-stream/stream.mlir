// RUN: accelsim opt %s --affine-copy-stream="fast-mem-space=1 chunks=2" | filecheck %s
#map = affine_map<(d0) -> (d0)>
// A whole-buffer copy around one nest whose outer iteration i reads rows <= i and writes
// row i: the nest is split in two pieces along i, rows 0-3 arrive for the first, rows 4-7
// while it runs; rows 0-3 leave after the first piece, rows 4-7 after the second, and the
// write-backs are waited for where the whole copy-out was.
// CHECK-LABEL: func.func @rows
// CHECK: affine.dma_start %a[0, 0], %af[0, 0], %[[T0:[0-9a-z_]+]][0], %[[C32:[0-9a-z_]+]] :
// CHECK-NEXT: %[[T1:[0-9a-z_]+]] = memref.alloc()
// CHECK-NEXT: affine.dma_start %a[4, 0], %af[4, 0], %[[T1]][0], %[[C32]] :
// CHECK-NOT: affine.dma_wait %t
// CHECK: affine.dma_wait %[[T0]][0]
// CHECK-NEXT: affine.for %{{.*}} = max #{{.*}}() to min #{{.*}}() {
// CHECK: memref.alloc()
// CHECK-NEXT: affine.dma_start %af[0, 0], %a[0, 0], %[[U0:[0-9a-z_]+]][0], %[[C32]] :
// CHECK-NEXT: affine.dma_wait %[[T1]][0]
// CHECK-NEXT: affine.for
// CHECK: affine.dma_start %af[4, 0], %a[4, 0], %[[U1:[0-9a-z_]+]][0], %[[C32]] :
// CHECK-NEXT: affine.dma_wait %[[U0]][0]
// CHECK: affine.dma_wait %[[U1]][0]
// CHECK-NOT: affine.dma_start
// CHECK: return
func.func @rows(%a: memref<8x8xf32>) {
  %n = arith.constant 64 : index
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to #map(%i) {
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %y = affine.load %af[%j, %j] : memref<8x8xf32, 1>
      %s = arith.addf %x, %y : f32
      affine.store %s, %af[%i, %j] : memref<8x8xf32, 1>
    }
  }
  %u = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %af[0, 0], %a[0, 0], %u[0], %n : memref<8x8xf32, 1>, memref<8x8xf32>, memref<1xi32, 2>
  affine.dma_wait %u[0], %n : memref<1xi32, 2>
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %u : memref<1xi32, 2>
  memref.dealloc %af : memref<8x8xf32, 1>
  return
}

// The first iteration already reads every row (a column step): nothing to stream, as is.
// CHECK-LABEL: func.func @all_rows_first
// CHECK: affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n
// CHECK-NEXT: affine.dma_wait %t[0], %n
func.func @all_rows_first(%a: memref<8x8xf32>) {
  %n = arith.constant 64 : index
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %k = 0 to 8 {
    affine.for %i = 0 to 8 {
      %x = affine.load %af[%i, %k] : memref<8x8xf32, 1>
      %s = arith.addf %x, %x : f32
      affine.store %s, %af[%i, %k] : memref<8x8xf32, 1>
    }
  }
  %u = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %af[0, 0], %a[0, 0], %u[0], %n : memref<8x8xf32, 1>, memref<8x8xf32>, memref<1xi32, 2>
  affine.dma_wait %u[0], %n : memref<1xi32, 2>
  return
}

// Two whole-buffer copies around one nest (a vector and the triangle's rows): both stream
// around the same two pieces (the nest is split once), each chunk waited for before its piece.
// CHECK-LABEL: func.func @two_buffers
// The copy-ins are issued in the order they are waited for: both first chunks, then both
// second ones.
// CHECK: affine.dma_start %v[0], %vf[0], %{{.*}}[0], %[[C4:[0-9a-z_]+]] :
// CHECK: affine.dma_start %a[0, 0], %af[0, 0], %{{.*}}[0], %[[C32:[0-9a-z_]+]] :
// CHECK: affine.dma_start %v[4], %vf[4], %{{.*}}[0], %[[C4]] :
// CHECK: affine.dma_start %a[4, 0], %af[4, 0], %{{.*}}[0], %[[C32]] :
// CHECK: affine.dma_wait
// CHECK: affine.dma_wait
// CHECK-NEXT: affine.for
// CHECK: affine.dma_wait
// CHECK: affine.dma_wait
// CHECK-NEXT: affine.for
// CHECK: affine.for
// CHECK-NOT: affine.dma_wait
// CHECK: return
func.func @two_buffers(%a: memref<8x8xf32>, %v: memref<8xf32>) {
  %n = arith.constant 64 : index
  %m = arith.constant 8 : index
  %vf = memref.alloc() : memref<8xf32, 1>
  %s = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %v[0], %vf[0], %s[0], %m : memref<8xf32>, memref<8xf32, 1>, memref<1xi32, 2>
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %s[0], %m : memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to #map(%i) {
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %y = affine.load %vf[%i] : memref<8xf32, 1>
      %z = arith.addf %x, %y : f32
      affine.store %z, %vf[%i] : memref<8xf32, 1>
    }
  }
  memref.dealloc %s : memref<1xi32, 2>
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %af : memref<8x8xf32, 1>
  memref.dealloc %vf : memref<8xf32, 1>
  return
}
