#map = affine_map<()[s0] -> (s0 + 64)>
#map1 = affine_map<()[s0] -> (s0 + 32)>
#map2 = affine_map<(d0) -> (d0 + 64)>
#set = affine_set<(d0) : (-d0 - 1 >= 0)>
module {
  func.func private @gemm_kernel0(%iv0: index, %iv1: index, %C_fast: memref<64x64xf32, 1>, %A_fast_mb: memref<2x64x32xf32, 1>, %B_fast_mb: memref<2x32x64xf32, 1>) {
    %0 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":18:17)
    affine.for %arg0 = %iv0 to #map()[%iv0] {
      affine.for %arg1 = %iv1 to #map()[%iv1] {
        affine.for %arg2 = %0 to #map1()[%0] {
          %1 = affine.load %C_fast[%arg0, %arg1] : memref<64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
          %2 = affine.load %A_fast_mb[symbol(%0) floordiv 32 mod 2, %arg0, %arg2 - symbol(%0)] : memref<2x64x32xf32, 1> loc("/tmp/old/workloads/gemm.py":19:41)
          %3 = affine.load %B_fast_mb[symbol(%0) floordiv 32 mod 2, %arg2 - symbol(%0), %arg1] : memref<2x32x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:51)
          %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":19:41)
          %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":19:31)
          affine.store %5, %C_fast[%arg0, %arg1] : memref<64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:21)
        } loc("/tmp/old/workloads/gemm.py":18:17)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    return loc("/tmp/old/workloads/gemm.py":16:9)
  } loc("/tmp/old/workloads/gemm.py":16:9)
  func.func private @gemm_kernel1(%iv0: index, %iv1: index, %C_fast: memref<64x64xf32, 1>, %A_fast_mb: memref<2x64x32xf32, 1>, %B_fast_mb: memref<2x32x64xf32, 1>) {
    %0 = arith.constant 32 : index loc("/tmp/old/workloads/gemm.py":19:41)
    affine.for %arg0 = %iv0 to #map()[%iv0] {
      affine.for %arg1 = %iv1 to #map()[%iv1] {
        affine.for %arg2 = %0 to #map1()[%0] {
          %1 = affine.load %C_fast[%arg0, %arg1] : memref<64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
          %2 = affine.load %A_fast_mb[symbol(%0) floordiv 32 mod 2, %arg0, %arg2 - symbol(%0)] : memref<2x64x32xf32, 1> loc("/tmp/old/workloads/gemm.py":19:41)
          %3 = affine.load %B_fast_mb[symbol(%0) floordiv 32 mod 2, %arg2 - symbol(%0), %arg1] : memref<2x32x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:51)
          %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":19:41)
          %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":19:31)
          affine.store %5, %C_fast[%arg0, %arg1] : memref<64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:21)
        } loc("/tmp/old/workloads/gemm.py":18:17)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    return loc("/tmp/old/workloads/gemm.py":16:9)
  } loc("/tmp/old/workloads/gemm.py":16:9)
  func.func @gemm(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %0 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":18:17)
    %1 = arith.constant 32 : index loc("/tmp/old/workloads/gemm.py":19:41)
    %2 = arith.constant 64 : index loc("/tmp/old/workloads/gemm.py":19:41)
    %3 = arith.constant 2048 : index loc("/tmp/old/workloads/gemm.py":19:41)
    %4 = arith.constant 4096 : index loc("/tmp/old/workloads/gemm.py":19:31)
    %C_fast = memref.alloc() : memref<64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
    %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.dma_start %C[0, 0], %C_fast[0, 0], %tag[0], %4 : memref<64x64xf32>, memref<64x64xf32, 1>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.dma_wait %tag[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    %A_fast_mb = memref.alloc() : memref<2x64x32xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    %B_fast_mb = memref.alloc() : memref<2x32x64xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    %5 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":16:9)
    %6 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
    affine.dma_start %A[0, %0], %A_fast_mb[%0 floordiv 32 mod 2, 0, 0], %tag_mb[%0 floordiv 32 mod 2, 0], %3, %2, %1 : memref<64x64xf32>, memref<2x64x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
    affine.dma_start %B[%0, 0], %B_fast_mb[%0 floordiv 32 mod 2, 0, 0], %tag_mb_0[%0 floordiv 32 mod 2, 0], %3 : memref<64x64xf32>, memref<2x32x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
    affine.for %arg0 = 0 to 64 step 64 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.dma_start %A[0, %1], %A_fast_mb[%1 floordiv 32 mod 2, 0, 0], %tag_mb[%1 floordiv 32 mod 2, 0], %3, %2, %1 : memref<64x64xf32>, memref<2x64x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_start %B[%1, 0], %B_fast_mb[%1 floordiv 32 mod 2, 0, 0], %tag_mb_0[%1 floordiv 32 mod 2, 0], %3 : memref<64x64xf32>, memref<2x32x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        affine.dma_wait %tag_mb[%0 floordiv 32 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_wait %tag_mb_0[%0 floordiv 32 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        func.call @gemm_kernel0(%arg0, %arg1, %C_fast, %A_fast_mb, %B_fast_mb) : (index, index, memref<64x64xf32, 1>, memref<2x64x32xf32, 1>, memref<2x32x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":16:9)
        affine.if #set(%arg1) {
          %7 = affine.apply #map2(%arg1) loc("/tmp/old/workloads/gemm.py":17:13)
          %8 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
          affine.dma_start %A[0, %8], %A_fast_mb[%8 floordiv 32 mod 2, 0, 0], %tag_mb[%8 floordiv 32 mod 2, 0], %3, %2, %1 : memref<64x64xf32>, memref<2x64x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
          affine.dma_start %B[%8, 0], %B_fast_mb[%8 floordiv 32 mod 2, 0, 0], %tag_mb_0[%8 floordiv 32 mod 2, 0], %3 : memref<64x64xf32>, memref<2x32x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        } else {
          affine.if #set(%arg0) {
            %9 = affine.apply #map2(%arg0) loc("/tmp/old/workloads/gemm.py":17:13)
            %10 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
            %11 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
            affine.dma_start %A[0, %11], %A_fast_mb[%11 floordiv 32 mod 2, 0, 0], %tag_mb[%11 floordiv 32 mod 2, 0], %3, %2, %1 : memref<64x64xf32>, memref<2x64x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
            affine.dma_start %B[%11, 0], %B_fast_mb[%11 floordiv 32 mod 2, 0, 0], %tag_mb_0[%11 floordiv 32 mod 2, 0], %3 : memref<64x64xf32>, memref<2x32x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
          } loc("/tmp/old/workloads/gemm.py":17:13)
        } loc("/tmp/old/workloads/gemm.py":17:13)
        affine.dma_wait %tag_mb[%1 floordiv 32 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_wait %tag_mb_0[%1 floordiv 32 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        func.call @gemm_kernel1(%arg0, %arg1, %C_fast, %A_fast_mb, %B_fast_mb) : (index, index, memref<64x64xf32, 1>, memref<2x64x32xf32, 1>, memref<2x32x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":16:9)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    memref.dealloc %B_fast_mb : memref<2x32x64xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    memref.dealloc %A_fast_mb : memref<2x64x32xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.dma_start %C_fast[0, 0], %C[0, 0], %tag_0[0], %4 : memref<64x64xf32, 1>, memref<64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.dma_wait %tag_0[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    memref.dealloc %C_fast : memref<64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
    return loc("/tmp/old/workloads/gemm.py":14:5)
  } loc("/tmp/old/workloads/gemm.py":14:5)
} loc("/tmp/old/workloads/gemm.py":13:9)
