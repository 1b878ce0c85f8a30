// RUN: accelsim opt %s --convert-linalg-to-affine-loops '--affine-loop-tile=tile-sizes=16,16,8' | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s --convert-linalg-to-affine-loops '--affine-loop-tile=tile-sizes=16,16,8' | filecheck %s %}
// RUN: accelsim opt %s --convert-linalg-to-affine-loops '--affine-loop-tile=tile-sizes=16,16,8' '--affine-data-copy-generate=generate-dma fast-mem-space=1 fast-mem-capacity=16' --affine-pipeline-data-transfer | filecheck %s --check-prefix=DMA
// The linalg front door feeds the affine passes: a matmul lowered to its (m, n, k) nest is
// tiled like a hand-written one (the same CHECKs hold for mlir-opt-19), then gets DMA copies
// into fast memory and double buffering.

// CHECK-LABEL: func.func @mm
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 64 step 16 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 48 step 16 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 32 step 8 {
// CHECK-NEXT: affine.for %[[II:.*]] = #{{.*}}(%[[I]]) to #{{.*}}(%[[I]]) {
// CHECK-NEXT: affine.for %[[JJ:.*]] = #{{.*}}(%[[J]]) to #{{.*}}(%[[J]]) {
// CHECK-NEXT: affine.for %[[KK:.*]] = #{{.*}}(%[[K]]) to #{{.*}}(%[[K]]) {
// CHECK-NEXT: affine.load %{{.*}}[%[[II]], %[[KK]]] : memref<64x32xf32>
// CHECK-NEXT: affine.load %{{.*}}[%[[KK]], %[[JJ]]] : memref<32x48xf32>
// CHECK-NEXT: affine.load %{{.*}}[%[[II]], %[[JJ]]] : memref<64x48xf32>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{.*}}, %{{.*}}[%[[II]], %[[JJ]]] : memref<64x48xf32>

// B fits whole and is copied once; A's row panel is double-buffered per i tile; C's tile is
// triple-buffered (copy-in, compute, copy-out in flight).
// DMA-LABEL: func.func @mm
// DMA: %[[BF:.*]] = memref.alloc() : memref<32x48xf32, 1>
// DMA: %[[AF:.*]] = memref.alloc() : memref<2x16x32xf32, 1>
// DMA-NEXT: %[[CF:.*]] = memref.alloc() : memref<3x16x48xf32, 1>
// DMA: affine.dma_start
// DMA: affine.dma_wait
// DMA: affine.load %[[AF]][{{.*}}] : memref<2x16x32xf32, 1>
// DMA-NEXT: affine.load %[[BF]][{{.*}}] : memref<32x48xf32, 1>
// DMA-NEXT: affine.load %[[CF]][{{.*}}] : memref<3x16x48xf32, 1>
func.func @mm(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x48xf32>) outs(%C : memref<64x48xf32>)
  return
}
