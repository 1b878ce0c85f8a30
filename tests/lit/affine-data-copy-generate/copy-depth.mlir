// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma fast-mem-space=1 tag-mem-space=2 copy-depth=1 hoist-read-copies=false' | filecheck %s
// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma fast-mem-space=1 tag-mem-space=2 copy-depth=1' | filecheck %s --check-prefix=HOIST
// copy-depth=1: copies at the body of the tile loop (%j), whatever the capacity. With
// hoist-read-copies=false the read-only A, which does not depend on %j, is still copied
// there, once per tile (as an accelerator's software reloads every tile); C, written, keeps
// its copy-in / copy-out around the tile's nest. Without it A rises above the tile loop.

// CHECK-LABEL: func.func @gemm
// CHECK: affine.for %[[J:.*]] = 0 to 64 step 16 {
// CHECK-NEXT: %[[AF:.*]] = memref.alloc() : memref<64x32xf32, 1>
// CHECK: affine.dma_start %{{.*}}[0, 0], %[[AF]][0, 0]
// CHECK: memref.alloc() : memref<32x16xf32, 1>
// CHECK: affine.dma_start %{{.*}}[0, %[[J]]]
// CHECK: %[[CF:.*]] = memref.alloc() : memref<64x16xf32, 1>
// CHECK: affine.for
// CHECK: affine.dma_start %[[CF]][0, 0], %{{.*}}[0, %[[J]]]

// HOIST-LABEL: func.func @gemm
// HOIST: %[[AF:.*]] = memref.alloc() : memref<64x32xf32, 1>
// HOIST: affine.dma_start %{{.*}}[0, 0], %[[AF]][0, 0]
// HOIST: affine.for %{{.*}} = 0 to 64 step 16 {
// HOIST-NEXT: memref.alloc() : memref<32x16xf32, 1>
func.func @gemm(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  affine.for %j = 0 to 64 step 16 {
    affine.for %i = 0 to 64 {
      affine.for %jj = affine_map<(d0) -> (d0)>(%j) to affine_map<(d0) -> (d0 + 16)>(%j) {
        affine.for %k = 0 to 32 {
          %a = affine.load %A[%i, %k] : memref<64x32xf32>
          %b = affine.load %B[%k, %jj] : memref<32x64xf32>
          %c = affine.load %C[%i, %jj] : memref<64x64xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %jj] : memref<64x64xf32>
        }
      }
    }
  }
  return
}
