// RUN: accelsim opt %s --affine-pipeline-data-transfer | filecheck %s
// A loop of step 4 (upstream's loop_step): slots are (iv floordiv 4) mod 2, the shifted
// iteration is iv - 4, and the buffer and tag allocated inside the loop move out of it.

// CHECK-DAG: #[[MINUS4:map[0-9]*]] = affine_map<(d0) -> (d0 - 4)>
// CHECK-LABEL: func.func @loop_step
// CHECK: %[[LAST:.*]] = arith.constant 508 : index
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2x4xf32, 1>
// CHECK-NEXT: %[[TAG:.*]] = memref.alloc() : memref<2x1xi32>
// CHECK-NEXT: affine.dma_start {{.*}}, %[[BUF]][%{{.*}} floordiv 4 mod 2, {{.*}}], %[[TAG]][%{{.*}} floordiv 4 mod 2, {{.*}}]
// CHECK-NEXT: affine.for %[[I:.*]] = 4 to 512 step 4 {
// CHECK-NEXT: affine.dma_start %{{.*}}[%[[I]]], %[[BUF]][%[[I]] floordiv 4 mod 2, {{.*}}]
// CHECK-NEXT: %[[P:.*]] = affine.apply #[[MINUS4]](%[[I]])
// CHECK-NEXT: affine.dma_wait %[[TAG]][%[[P]] floordiv 4 mod 2, {{.*}}]
// CHECK-NOT: memref.alloc
// CHECK: affine.dma_wait %[[TAG]][%[[LAST]] floordiv 4 mod 2, {{.*}}]
// CHECK: memref.dealloc %[[TAG]]
// CHECK-NEXT: memref.dealloc %[[BUF]]
// CHECK-NEXT: return
func.func @loop_step(%A: memref<512xf32>, %B: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  affine.for %i = 0 to 512 step 4 {
    %buf = memref.alloc() : memref<4xf32, 1>
    %tag = memref.alloc() : memref<1xi32>
    affine.dma_start %A[%i], %buf[%c0], %tag[%c0], %c4 : memref<512xf32>, memref<4xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %c4 : memref<1xi32>
    affine.for %j = 0 to 4 {
      %v = affine.load %buf[%j] : memref<4xf32, 1>
      affine.store %v, %B[%i + %j] : memref<512xf32>
    }
    memref.dealloc %tag : memref<1xi32>
    memref.dealloc %buf : memref<4xf32, 1>
  }
  return
}
