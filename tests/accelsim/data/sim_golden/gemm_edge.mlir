#map = affine_map<()[s0] -> (s0 + 16)>
#map1 = affine_map<()[s0] -> (s0 + 64)>
#map2 = affine_map<()[s0] -> (s0 + 8)>
#map3 = affine_map<(d0) -> (d0 - 16)>
#map4 = affine_map<(d0) -> (d0 - 8)>
#map5 = affine_map<(d0) -> (d0 + 64)>
#map6 = affine_map<(d0) -> (d0 + 16)>
#set = affine_set<(d0) : (-d0 - 1 >= 0)>
#set1 = affine_set<(d0) : (-d0 + 47 >= 0)>
module {
  func.func private @gemm_kernel0(%a0: index, %iv1: index, %a2: index, %C_fast_mb: memref<2x16x64xf32, 1>, %A_fast_mb: memref<2x16x8xf32, 1>, %B_fast_mb: memref<2x8x64xf32, 1>) {
    affine.for %arg0 = %a0 to #map()[%a0] {
      affine.for %arg1 = %iv1 to #map1()[%iv1] {
        affine.for %arg2 = %a2 to #map2()[%a2] {
          %0 = affine.load %C_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg0 - symbol(%a0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
          %1 = affine.load %A_fast_mb[symbol(%a2) floordiv 8 mod 2, %arg0 - symbol(%a0), %arg2 - symbol(%a2)] : memref<2x16x8xf32, 1> loc("/tmp/old/workloads/gemm.py":19:41)
          %2 = affine.load %B_fast_mb[symbol(%a2) floordiv 8 mod 2, %arg2 - symbol(%a2), %arg1] : memref<2x8x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:51)
          %3 = arith.mulf %1, %2 : f32 loc("/tmp/old/workloads/gemm.py":19:41)
          %4 = arith.addf %0, %3 : f32 loc("/tmp/old/workloads/gemm.py":19:31)
          affine.store %4, %C_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg0 - symbol(%a0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:21)
        } loc("/tmp/old/workloads/gemm.py":18:17)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    return loc("/tmp/old/workloads/gemm.py":16:9)
  } loc("/tmp/old/workloads/gemm.py":16:9)
  func.func private @gemm_kernel1(%a0: index, %iv1: index, %C_fast_mb: memref<2x16x64xf32, 1>, %A_fast_mb: memref<2x16x8xf32, 1>, %B_fast_mb: memref<2x8x64xf32, 1>) {
    %0 = arith.constant 56 : index loc("/tmp/old/workloads/gemm.py":18:17)
    affine.for %arg0 = %a0 to #map()[%a0] {
      affine.for %arg1 = %iv1 to #map1()[%iv1] {
        affine.for %arg2 = %0 to #map2()[%0] {
          %1 = affine.load %C_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg0 - symbol(%a0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
          %2 = affine.load %A_fast_mb[symbol(%0) floordiv 8 mod 2, %arg0 - symbol(%a0), %arg2 - symbol(%0)] : memref<2x16x8xf32, 1> loc("/tmp/old/workloads/gemm.py":19:41)
          %3 = affine.load %B_fast_mb[symbol(%0) floordiv 8 mod 2, %arg2 - symbol(%0), %arg1] : memref<2x8x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:51)
          %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":19:41)
          %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":19:31)
          affine.store %5, %C_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg0 - symbol(%a0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:21)
        } loc("/tmp/old/workloads/gemm.py":18:17)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    return loc("/tmp/old/workloads/gemm.py":16:9)
  } loc("/tmp/old/workloads/gemm.py":16:9)
  func.func private @gemm_kernel2(%iv0: index, %a1: index, %C_fast_mb: memref<2x16x64xf32, 1>, %A_fast_mb: memref<2x16x8xf32, 1>, %B_fast_mb: memref<2x8x64xf32, 1>) {
    %0 = arith.constant 48 : index loc("/tmp/old/workloads/gemm.py":16:9)
    affine.for %arg0 = %0 to #map()[%0] {
      affine.for %arg1 = %iv0 to #map1()[%iv0] {
        affine.for %arg2 = %a1 to #map2()[%a1] {
          %1 = affine.load %C_fast_mb[symbol(%0) floordiv 16 mod 2, %arg0 - symbol(%0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
          %2 = affine.load %A_fast_mb[symbol(%a1) floordiv 8 mod 2, %arg0 - symbol(%0), %arg2 - symbol(%a1)] : memref<2x16x8xf32, 1> loc("/tmp/old/workloads/gemm.py":19:41)
          %3 = affine.load %B_fast_mb[symbol(%a1) floordiv 8 mod 2, %arg2 - symbol(%a1), %arg1] : memref<2x8x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:51)
          %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":19:41)
          %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":19:31)
          affine.store %5, %C_fast_mb[symbol(%0) floordiv 16 mod 2, %arg0 - symbol(%0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:21)
        } loc("/tmp/old/workloads/gemm.py":18:17)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    return loc("/tmp/old/workloads/gemm.py":16:9)
  } loc("/tmp/old/workloads/gemm.py":16:9)
  func.func private @gemm_kernel3(%iv0: index, %C_fast_mb: memref<2x16x64xf32, 1>, %A_fast_mb: memref<2x16x8xf32, 1>, %B_fast_mb: memref<2x8x64xf32, 1>) {
    %0 = arith.constant 48 : index loc("/tmp/old/workloads/gemm.py":16:9)
    %1 = arith.constant 56 : index loc("/tmp/old/workloads/gemm.py":18:17)
    affine.for %arg0 = %0 to #map()[%0] {
      affine.for %arg1 = %iv0 to #map1()[%iv0] {
        affine.for %arg2 = %1 to #map2()[%1] {
          %2 = affine.load %C_fast_mb[symbol(%0) floordiv 16 mod 2, %arg0 - symbol(%0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:31)
          %3 = affine.load %A_fast_mb[symbol(%1) floordiv 8 mod 2, %arg0 - symbol(%0), %arg2 - symbol(%1)] : memref<2x16x8xf32, 1> loc("/tmp/old/workloads/gemm.py":19:41)
          %4 = affine.load %B_fast_mb[symbol(%1) floordiv 8 mod 2, %arg2 - symbol(%1), %arg1] : memref<2x8x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:51)
          %5 = arith.mulf %3, %4 : f32 loc("/tmp/old/workloads/gemm.py":19:41)
          %6 = arith.addf %2, %5 : f32 loc("/tmp/old/workloads/gemm.py":19:31)
          affine.store %6, %C_fast_mb[symbol(%0) floordiv 16 mod 2, %arg0 - symbol(%0), %arg1] : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":19:21)
        } loc("/tmp/old/workloads/gemm.py":18:17)
      } loc("/tmp/old/workloads/gemm.py":17:13)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    return loc("/tmp/old/workloads/gemm.py":16:9)
  } loc("/tmp/old/workloads/gemm.py":16:9)
  func.func @gemm(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %0 = arith.constant 48 : index loc("/tmp/old/workloads/gemm.py":16:9)
    %1 = arith.constant 56 : index loc("/tmp/old/workloads/gemm.py":18:17)
    %2 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":18:17)
    %3 = arith.constant 512 : index loc("/tmp/old/workloads/gemm.py":19:51)
    %4 = arith.constant 8 : index loc("/tmp/old/workloads/gemm.py":19:41)
    %5 = arith.constant 64 : index loc("/tmp/old/workloads/gemm.py":19:41)
    %6 = arith.constant 128 : index loc("/tmp/old/workloads/gemm.py":19:41)
    %7 = arith.constant 1024 : index loc("/tmp/old/workloads/gemm.py":19:31)
    %A_fast_mb = memref.alloc() : memref<2x16x8xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    %B_fast_mb = memref.alloc() : memref<2x8x64xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    %8 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":16:9)
    %9 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
    affine.dma_start %A[%8, %2], %A_fast_mb[%2 floordiv 8 mod 2, 0, 0], %tag_mb[%2 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
    affine.dma_start %B[%2, 0], %B_fast_mb[%2 floordiv 8 mod 2, 0, 0], %tag_mb_0[%2 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
    %C_fast_mb = memref.alloc() : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":16:9)
    %tag_mb_1 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":16:9)
    affine.dma_start %C[%2, 0], %C_fast_mb[%2 floordiv 16 mod 2, 0, 0], %tag_mb_1[%2 floordiv 16 mod 2, 0], %7 : memref<64x64xf32>, memref<2x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.for %arg0 = 16 to 64 step 16 {
      affine.dma_start %C[%arg0, 0], %C_fast_mb[%arg0 floordiv 16 mod 2, 0, 0], %tag_mb_1[%arg0 floordiv 16 mod 2, 0], %7 : memref<64x64xf32>, memref<2x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
      %10 = affine.apply #map3(%arg0) loc("/tmp/old/workloads/gemm.py":16:9)
      affine.dma_wait %tag_mb_1[%10 floordiv 16 mod 2, 0], %7 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = 8 to 64 step 8 {
          affine.dma_start %A[%10, %arg2], %A_fast_mb[%arg2 floordiv 8 mod 2, 0, 0], %tag_mb[%arg2 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
          affine.dma_start %B[%arg2, 0], %B_fast_mb[%arg2 floordiv 8 mod 2, 0, 0], %tag_mb_0[%arg2 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
          %11 = affine.apply #map4(%arg2) loc("/tmp/old/workloads/gemm.py":18:17)
          affine.dma_wait %tag_mb[%11 floordiv 8 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
          affine.dma_wait %tag_mb_0[%11 floordiv 8 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
          func.call @gemm_kernel0(%10, %arg1, %11, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, index, index, memref<2x16x64xf32, 1>, memref<2x16x8xf32, 1>, memref<2x8x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":16:9)
        } loc("/tmp/old/workloads/gemm.py":18:17)
        affine.if #set(%arg1) {
          %12 = affine.apply #map5(%arg1) loc("/tmp/old/workloads/gemm.py":17:13)
          %13 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
          affine.dma_start %A[%10, %13], %A_fast_mb[%13 floordiv 8 mod 2, 0, 0], %tag_mb[%13 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
          affine.dma_start %B[%13, 0], %B_fast_mb[%13 floordiv 8 mod 2, 0, 0], %tag_mb_0[%13 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        } else {
          affine.if #set1(%10) {
            %14 = affine.apply #map6(%10) loc("/tmp/old/workloads/gemm.py":17:13)
            %15 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
            %16 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
            affine.dma_start %A[%14, %16], %A_fast_mb[%16 floordiv 8 mod 2, 0, 0], %tag_mb[%16 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
            affine.dma_start %B[%16, 0], %B_fast_mb[%16 floordiv 8 mod 2, 0, 0], %tag_mb_0[%16 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
          } loc("/tmp/old/workloads/gemm.py":17:13)
        } loc("/tmp/old/workloads/gemm.py":17:13)
        affine.dma_wait %tag_mb[%1 floordiv 8 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_wait %tag_mb_0[%1 floordiv 8 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        func.call @gemm_kernel1(%10, %arg1, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, index, memref<2x16x64xf32, 1>, memref<2x16x8xf32, 1>, memref<2x8x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":16:9)
      } loc("/tmp/old/workloads/gemm.py":17:13)
      %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
      affine.dma_start %C_fast_mb[%10 floordiv 16 mod 2, 0, 0], %C[%10, 0], %tag[0], %7 : memref<2x16x64xf32, 1>, memref<64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
      affine.dma_wait %tag[0], %7 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
      memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    } loc("/tmp/old/workloads/gemm.py":16:9)
    affine.dma_wait %tag_mb_1[%0 floordiv 16 mod 2, 0], %7 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.for %arg3 = 0 to 64 step 64 {
      affine.for %arg4 = 8 to 64 step 8 {
        affine.dma_start %A[%0, %arg4], %A_fast_mb[%arg4 floordiv 8 mod 2, 0, 0], %tag_mb[%arg4 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_start %B[%arg4, 0], %B_fast_mb[%arg4 floordiv 8 mod 2, 0, 0], %tag_mb_0[%arg4 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        %17 = affine.apply #map4(%arg4) loc("/tmp/old/workloads/gemm.py":18:17)
        affine.dma_wait %tag_mb[%17 floordiv 8 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_wait %tag_mb_0[%17 floordiv 8 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        func.call @gemm_kernel2(%arg3, %17, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, index, memref<2x16x64xf32, 1>, memref<2x16x8xf32, 1>, memref<2x8x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":16:9)
      } loc("/tmp/old/workloads/gemm.py":18:17)
      affine.if #set(%arg3) {
        %18 = affine.apply #map5(%arg3) loc("/tmp/old/workloads/gemm.py":17:13)
        %19 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
        affine.dma_start %A[%0, %19], %A_fast_mb[%19 floordiv 8 mod 2, 0, 0], %tag_mb[%19 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
        affine.dma_start %B[%19, 0], %B_fast_mb[%19 floordiv 8 mod 2, 0, 0], %tag_mb_0[%19 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
      } else {
        affine.if #set1(%0) {
          %20 = affine.apply #map6(%0) loc("/tmp/old/workloads/gemm.py":17:13)
          %21 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
          %22 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":17:13)
          affine.dma_start %A[%20, %22], %A_fast_mb[%22 floordiv 8 mod 2, 0, 0], %tag_mb[%22 floordiv 8 mod 2, 0], %6, %5, %4 : memref<64x64xf32>, memref<2x16x8xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
          affine.dma_start %B[%22, 0], %B_fast_mb[%22 floordiv 8 mod 2, 0, 0], %tag_mb_0[%22 floordiv 8 mod 2, 0], %3 : memref<64x64xf32>, memref<2x8x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
        } loc("/tmp/old/workloads/gemm.py":17:13)
      } loc("/tmp/old/workloads/gemm.py":17:13)
      affine.dma_wait %tag_mb[%1 floordiv 8 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:41)
      affine.dma_wait %tag_mb_0[%1 floordiv 8 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:51)
      func.call @gemm_kernel3(%arg3, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, memref<2x16x64xf32, 1>, memref<2x16x8xf32, 1>, memref<2x8x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":16:9)
    } loc("/tmp/old/workloads/gemm.py":17:13)
    %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.dma_start %C_fast_mb[%0 floordiv 16 mod 2, 0, 0], %C[%0, 0], %tag_0[0], %7 : memref<2x16x64xf32, 1>, memref<64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    affine.dma_wait %tag_0[0], %7 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":19:31)
    memref.dealloc %tag_mb_1 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":16:9)
    memref.dealloc %C_fast_mb : memref<2x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":16:9)
    memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":18:17)
    memref.dealloc %B_fast_mb : memref<2x8x64xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    memref.dealloc %A_fast_mb : memref<2x16x8xf32, 1> loc("/tmp/old/workloads/gemm.py":18:17)
    return loc("/tmp/old/workloads/gemm.py":14:5)
  } loc("/tmp/old/workloads/gemm.py":14:5)
} loc("/tmp/old/workloads/gemm.py":13:9)
