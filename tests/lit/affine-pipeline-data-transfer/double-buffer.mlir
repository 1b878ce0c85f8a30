// RUN: accelsim opt %s --affine-pipeline-data-transfer | filecheck %s
// RUN: %if mlir-opt %{ accelsim opt %s --affine-pipeline-data-transfer | %mlir-opt > /dev/null %}
// Double buffering of a DMA into a fast buffer (upstream's loop_nest_dma): buffer and tag get
// a leading dimension of 2 indexed by iv mod 2; the first transfer starts before the loop,
// iteration i starts transfer i and waits for (and computes on) i - 1; the last one is
// waited for after the loop.

// CHECK-DAG: #[[MINUS1:map[0-9]*]] = affine_map<(d0) -> (d0 - 1)>
// CHECK-LABEL: func.func @loop_nest_dma
// CHECK: %[[LAST:.*]] = arith.constant 7 : index
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2x32xf32, 1>
// CHECK-NEXT: %[[TAG:.*]] = memref.alloc() : memref<2x1xi32>
// CHECK-NEXT: affine.dma_start %{{.*}}[%[[Z:.*]] * 32], %[[BUF]][%[[Z]] mod 2, {{.*}}], %[[TAG]][%[[Z]] mod 2, {{.*}}], %{{.*}} : memref<256xf32>, memref<2x32xf32, 1>, memref<2x1xi32>
// CHECK-NEXT: affine.for %[[I:.*]] = 1 to 8 {
// CHECK-NEXT: affine.dma_start %{{.*}}[%[[I]] * 32], %[[BUF]][%[[I]] mod 2, {{.*}}], %[[TAG]][%[[I]] mod 2, {{.*}}]
// CHECK-NEXT: %[[P:.*]] = affine.apply #[[MINUS1]](%[[I]])
// CHECK-NEXT: affine.dma_wait %[[TAG]][%[[P]] mod 2, {{.*}}]
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 32 {
// CHECK-NEXT: affine.load %[[BUF]][%[[P]] mod 2, %[[J]]] : memref<2x32xf32, 1>
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[P]], %[[J]]] : memref<8x32xf32>
// CHECK: affine.dma_wait %[[TAG]][%[[LAST]] mod 2, {{.*}}]
// CHECK-NEXT: affine.for %[[J2:.*]] = 0 to 32 {
// CHECK-NEXT: affine.load %[[BUF]][%[[LAST]] mod 2, %[[J2]]]
// CHECK: memref.dealloc %[[TAG]] : memref<2x1xi32>
// CHECK-NEXT: memref.dealloc %[[BUF]] : memref<2x32xf32, 1>
// CHECK-NEXT: return
func.func @loop_nest_dma(%A: memref<256xf32>, %B: memref<8x32xf32>) {
  %Ah = memref.alloc() : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  %zero = arith.constant 0 : index
  %num = arith.constant 32 : index
  affine.for %i = 0 to 8 {
    affine.dma_start %A[%i * 32], %Ah[%zero], %tag[%zero], %num : memref<256xf32>, memref<32xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%zero], %num : memref<1xi32>
    affine.for %j = 0 to 32 {
      %v = affine.load %Ah[%j] : memref<32xf32, 1>
      %r = arith.mulf %v, %v : f32
      affine.store %r, %B[%i, %j] : memref<8x32xf32>
    }
  }
  memref.dealloc %tag : memref<1xi32>
  memref.dealloc %Ah : memref<32xf32, 1>
  return
}
