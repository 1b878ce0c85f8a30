// RUN: accelsim opt %s --affine-copy-stream="fast-mem-space=1 align=3" | filecheck %s

// Pieces of a multiple of `align` outer iterations (a matrix unit's rows), the last the
// rest: 8 rows in pieces of 3, 3 and 2, each waiting for its own rows.
// CHECK-LABEL: func.func @aligned
// CHECK-DAG: %[[C24:[0-9a-z_]+]] = arith.constant 24 : index
// CHECK-DAG: %[[C16:[0-9a-z_]+]] = arith.constant 16 : index
// CHECK: affine.dma_start %a[0, 0], %af[0, 0], %{{.*}}[0], %[[C24]] :
// CHECK: affine.dma_start %a[3, 0], %af[3, 0], %{{.*}}[0], %[[C24]] :
// CHECK: affine.dma_start %a[6, 0], %af[6, 0], %{{.*}}[0], %[[C16]] :
// CHECK-NOT: affine.dma_start %a
// CHECK: affine.dma_wait
// CHECK-NEXT: affine.for %{{.*}} = max #{{.*}}() to min #{{.*}}() {
// CHECK: affine.dma_wait
// CHECK-NEXT: affine.for
// CHECK: affine.dma_wait
// CHECK-NEXT: affine.for
// CHECK-NOT: affine.for %{{.*}} = max
// CHECK: return
func.func @aligned(%a: memref<8x8xf32>) {
  %n = arith.constant 64 : index
  %af = memref.alloc() : memref<8x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %s = arith.addf %x, %x : f32
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
