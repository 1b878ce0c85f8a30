// RUN: accelsim opt %s --affine-copy-stream="fast-mem-space=1 chunks=2" | filecheck %s

// A buffer the nest fills whole has no copy-in (the copy pass found it dead): its copy-out
// alone is streamed. Piece 0 (i < 4) writes rows 0-3, which no later piece writes: they
// leave after it; rows 4-7 after piece 1; both waited for where the whole copy-out was.
// CHECK-LABEL: func.func @out_only
// CHECK-NOT: affine.dma_start
// CHECK: affine.for %{{.*}} = max #{{.*}}() to min #{{.*}}() {
// CHECK: memref.alloc()
// CHECK-NEXT: affine.dma_start %cf[0, 0], %c[0, 0], %[[U0:[0-9a-z_]+]][0], %[[C32:[0-9a-z_]+]] :
// CHECK-NEXT: affine.for
// CHECK: memref.alloc()
// CHECK-NEXT: affine.dma_start %cf[4, 0], %c[4, 0], %[[U1:[0-9a-z_]+]][0], %[[C32]] :
// CHECK-NEXT: affine.dma_wait %[[U0]][0]
// CHECK: affine.dma_wait %[[U1]][0]
// CHECK-NOT: affine.dma_start
// CHECK: return
func.func @out_only(%c: memref<8x8xf32>) {
  %n = arith.constant 64 : index
  %z = arith.constant 1.0 : f32
  %cf = memref.alloc() : memref<8x8xf32, 1>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %z, %cf[%i, %j] : memref<8x8xf32, 1>
    }
  }
  %u = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %cf[0, 0], %c[0, 0], %u[0], %n : memref<8x8xf32, 1>, memref<8x8xf32>, memref<1xi32, 2>
  affine.dma_wait %u[0], %n : memref<1xi32, 2>
  memref.dealloc %u : memref<1xi32, 2>
  memref.dealloc %cf : memref<8x8xf32, 1>
  return
}

// A second copy-in the first piece needs (%b, whole) goes ahead of the chunk only the
// second piece needs: copy-ins are issued in the order they are waited for (%b was waited
// for first, then %a's first chunk, then its second).
// CHECK-LABEL: func.func @need_order
// CHECK: affine.dma_start %b[0], %bf[0]
// CHECK-NEXT: affine.dma_start %a[0, 0], %af[0, 0]
// CHECK-NEXT: affine.dma_start %a[4, 0], %af[4, 0]
// CHECK-NEXT: affine.dma_wait %tb
// CHECK: return
func.func @need_order(%a: memref<8x8xf32>, %b: memref<8xf32>) {
  %n = arith.constant 64 : index
  %m = arith.constant 8 : index
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  %bf = memref.alloc() : memref<8xf32, 1>
  %tb = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %b[0], %bf[0], %tb[0], %m : memref<8xf32>, memref<8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.dma_wait %tb[0], %m : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %y = affine.load %bf[%j] : memref<8xf32, 1>
      %s = arith.addf %x, %y : f32
      affine.store %s, %af[%i, %j] : memref<8x8xf32, 1>
    }
  }
  %u = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %af[0, 0], %a[0, 0], %u[0], %n : memref<8x8xf32, 1>, memref<8x8xf32>, memref<1xi32, 2>
  affine.dma_wait %u[0], %n : memref<1xi32, 2>
  memref.dealloc %tb : memref<1xi32, 2>
  memref.dealloc %bf : memref<8xf32, 1>
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %u : memref<1xi32, 2>
  memref.dealloc %af : memref<8x8xf32, 1>
  return
}
