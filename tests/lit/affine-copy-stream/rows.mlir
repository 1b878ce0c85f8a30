// RUN: accelsim opt %s --affine-copy-stream="fast-mem-space=1 chunks=2 descriptor-bytes=8" | filecheck %s
#map = affine_map<(d0) -> (d0)>
// A read-only triangle (row i reads columns < i) streamed in two chunks: where a row's
// reached columns plus a descriptor (8 bytes here) cost less than whole rows, each row that
// some op reaches is its own DMA of those columns, a tag element each, all waited for before
// the piece (row 0 is reached by none: no DMA).
// CHECK-LABEL: func.func @triangle
// CHECK: %[[T0:[0-9]+]] = memref.alloc() : memref<3xi32, 2>
// CHECK-NEXT: affine.dma_start %a[1, 0], %af[1, 0], %[[T0]][0], %{{.*}} :
// CHECK-NEXT: affine.dma_start %a[2, 0], %af[2, 0], %[[T0]][1], %{{.*}} :
// CHECK-NEXT: affine.dma_start %a[3, 0], %af[3, 0], %[[T0]][2], %{{.*}} :
// CHECK-NEXT: %[[T1:[0-9]+]] = memref.alloc() : memref<4xi32, 2>
// CHECK-NEXT: affine.dma_start %a[4, 0], %af[4, 0], %[[T1]][0], %{{.*}} :
// CHECK: affine.dma_start %a[7, 0], %af[7, 0], %[[T1]][3], %{{.*}} :
// CHECK: affine.dma_wait %[[T0]][0]
// CHECK-NEXT: affine.dma_wait %[[T0]][1]
// CHECK-NEXT: affine.dma_wait %[[T0]][2]
// CHECK-NEXT: affine.for
// CHECK: affine.dma_wait %[[T1]][3]
// CHECK-NEXT: affine.for
// CHECK: return
func.func @triangle(%a: memref<8x8xf32>, %v: memref<8xf32>) {
  %n = arith.constant 64 : index
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to #map(%i) {
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %y = affine.load %v[%i] : memref<8xf32>
      %z = arith.addf %x, %y : f32
      affine.store %z, %v[%i] : memref<8xf32>
    }
  }
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %af : memref<8x8xf32, 1>
  return
}

// Rows read whole: row by row never moves fewer bytes, the chunks stay whole rows.
// CHECK-LABEL: func.func @rectangle
// CHECK: affine.dma_start %a[0, 0], %af[0, 0], %{{.*}}[0], %[[C32:[0-9a-z_]+]] :
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: affine.dma_start %a[4, 0], %af[4, 0], %{{.*}}[0], %[[C32]] :
func.func @rectangle(%a: memref<8x8xf32>, %v: memref<8xf32>) {
  %n = arith.constant 64 : index
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %y = affine.load %v[%i] : memref<8xf32>
      %z = arith.addf %x, %y : f32
      affine.store %z, %v[%i] : memref<8xf32>
    }
  }
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %af : memref<8x8xf32, 1>
  return
}
