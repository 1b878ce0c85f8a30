#map = affine_map<()[s0] -> (s0 + 1)>
#map1 = affine_map<()[s0] -> (s0 + 16)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> (d0 + 32)>
#map4 = affine_map<(d0) -> (d0 + 64)>
#map5 = affine_map<(d0) -> (d0 - 1)>
#map6 = affine_map<(d0) -> (d0 - 16)>
module {
  func.func private @batched_gemm_kernel0(%a0: index, %a1: index, %C_fast_mb: memref<2x1x16x64xf32, 1>, %A_fast_mb: memref<2x1x16x64xf32, 1>, %B_fast_mb: memref<2x1x64x64xf32, 1>) {
    affine.for %arg0 = 0 to 64 step 32 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = %a0 to #map()[%a0] {
          affine.for %arg3 = %a1 to #map1()[%a1] {
            affine.for %arg4 = #map2(%arg0) to #map3(%arg0) {
              affine.for %arg5 = #map2(%arg1) to #map4(%arg1) {
                %0 = affine.load %C_fast_mb[symbol(%a1) floordiv 16 mod 2, %arg2 - symbol(%a0), %arg3 - symbol(%a1), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:38)
                %1 = affine.load %A_fast_mb[symbol(%a1) floordiv 16 mod 2, %arg2 - symbol(%a0), %arg3 - symbol(%a1), %arg5] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:51)
                %2 = affine.load %B_fast_mb[symbol(%a0) mod 2, %arg2 - symbol(%a0), %arg5, %arg4] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:64)
                %3 = arith.mulf %1, %2 : f32 loc("/tmp/old/workloads/gemm.py":36:51)
                %4 = arith.addf %0, %3 : f32 loc("/tmp/old/workloads/gemm.py":36:38)
                affine.store %4, %C_fast_mb[symbol(%a1) floordiv 16 mod 2, %arg2 - symbol(%a0), %arg3 - symbol(%a1), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:25)
              } loc("/tmp/old/workloads/gemm.py":35:21)
            } loc("/tmp/old/workloads/gemm.py":34:17)
          } loc("/tmp/old/workloads/gemm.py":33:13)
        } loc("/tmp/old/workloads/gemm.py":32:9)
      } loc("/tmp/old/workloads/gemm.py":35:21)
    } loc("/tmp/old/workloads/gemm.py":34:17)
    return loc("/tmp/old/workloads/gemm.py":34:17)
  } loc("/tmp/old/workloads/gemm.py":34:17)
  func.func private @batched_gemm_kernel1(%a0: index, %C_fast_mb: memref<2x1x16x64xf32, 1>, %A_fast_mb: memref<2x1x16x64xf32, 1>, %B_fast_mb: memref<2x1x64x64xf32, 1>) {
    %0 = arith.constant 48 : index loc("/tmp/old/workloads/gemm.py":33:13)
    affine.for %arg0 = 0 to 64 step 32 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = %a0 to #map()[%a0] {
          affine.for %arg3 = %0 to #map1()[%0] {
            affine.for %arg4 = #map2(%arg0) to #map3(%arg0) {
              affine.for %arg5 = #map2(%arg1) to #map4(%arg1) {
                %1 = affine.load %C_fast_mb[symbol(%0) floordiv 16 mod 2, %arg2 - symbol(%a0), %arg3 - symbol(%0), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:38)
                %2 = affine.load %A_fast_mb[symbol(%0) floordiv 16 mod 2, %arg2 - symbol(%a0), %arg3 - symbol(%0), %arg5] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:51)
                %3 = affine.load %B_fast_mb[symbol(%a0) mod 2, %arg2 - symbol(%a0), %arg5, %arg4] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:64)
                %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":36:51)
                %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":36:38)
                affine.store %5, %C_fast_mb[symbol(%0) floordiv 16 mod 2, %arg2 - symbol(%a0), %arg3 - symbol(%0), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:25)
              } loc("/tmp/old/workloads/gemm.py":35:21)
            } loc("/tmp/old/workloads/gemm.py":34:17)
          } loc("/tmp/old/workloads/gemm.py":33:13)
        } loc("/tmp/old/workloads/gemm.py":32:9)
      } loc("/tmp/old/workloads/gemm.py":35:21)
    } loc("/tmp/old/workloads/gemm.py":34:17)
    return loc("/tmp/old/workloads/gemm.py":34:17)
  } loc("/tmp/old/workloads/gemm.py":34:17)
  func.func private @batched_gemm_kernel2(%a0: index, %C_fast_mb: memref<2x1x16x64xf32, 1>, %A_fast_mb: memref<2x1x16x64xf32, 1>, %B_fast_mb: memref<2x1x64x64xf32, 1>) {
    %0 = arith.constant 7 : index loc("/tmp/old/workloads/gemm.py":32:9)
    affine.for %arg0 = 0 to 64 step 32 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = %0 to #map()[%0] {
          affine.for %arg3 = %a0 to #map1()[%a0] {
            affine.for %arg4 = #map2(%arg0) to #map3(%arg0) {
              affine.for %arg5 = #map2(%arg1) to #map4(%arg1) {
                %1 = affine.load %C_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg2 - symbol(%0), %arg3 - symbol(%a0), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:38)
                %2 = affine.load %A_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg2 - symbol(%0), %arg3 - symbol(%a0), %arg5] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:51)
                %3 = affine.load %B_fast_mb[symbol(%0) mod 2, %arg2 - symbol(%0), %arg5, %arg4] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:64)
                %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":36:51)
                %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":36:38)
                affine.store %5, %C_fast_mb[symbol(%a0) floordiv 16 mod 2, %arg2 - symbol(%0), %arg3 - symbol(%a0), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:25)
              } loc("/tmp/old/workloads/gemm.py":35:21)
            } loc("/tmp/old/workloads/gemm.py":34:17)
          } loc("/tmp/old/workloads/gemm.py":33:13)
        } loc("/tmp/old/workloads/gemm.py":32:9)
      } loc("/tmp/old/workloads/gemm.py":35:21)
    } loc("/tmp/old/workloads/gemm.py":34:17)
    return loc("/tmp/old/workloads/gemm.py":34:17)
  } loc("/tmp/old/workloads/gemm.py":34:17)
  func.func private @batched_gemm_kernel3(%C_fast_mb: memref<2x1x16x64xf32, 1>, %A_fast_mb: memref<2x1x16x64xf32, 1>, %B_fast_mb: memref<2x1x64x64xf32, 1>) {
    %0 = arith.constant 7 : index loc("/tmp/old/workloads/gemm.py":32:9)
    %1 = arith.constant 48 : index loc("/tmp/old/workloads/gemm.py":33:13)
    affine.for %arg0 = 0 to 64 step 32 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = %0 to #map()[%0] {
          affine.for %arg3 = %1 to #map1()[%1] {
            affine.for %arg4 = #map2(%arg0) to #map3(%arg0) {
              affine.for %arg5 = #map2(%arg1) to #map4(%arg1) {
                %2 = affine.load %C_fast_mb[symbol(%1) floordiv 16 mod 2, %arg2 - symbol(%0), %arg3 - symbol(%1), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:38)
                %3 = affine.load %A_fast_mb[symbol(%1) floordiv 16 mod 2, %arg2 - symbol(%0), %arg3 - symbol(%1), %arg5] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:51)
                %4 = affine.load %B_fast_mb[symbol(%0) mod 2, %arg2 - symbol(%0), %arg5, %arg4] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:64)
                %5 = arith.mulf %3, %4 : f32 loc("/tmp/old/workloads/gemm.py":36:51)
                %6 = arith.addf %2, %5 : f32 loc("/tmp/old/workloads/gemm.py":36:38)
                affine.store %6, %C_fast_mb[symbol(%1) floordiv 16 mod 2, %arg2 - symbol(%0), %arg3 - symbol(%1), %arg4] : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:25)
              } loc("/tmp/old/workloads/gemm.py":35:21)
            } loc("/tmp/old/workloads/gemm.py":34:17)
          } loc("/tmp/old/workloads/gemm.py":33:13)
        } loc("/tmp/old/workloads/gemm.py":32:9)
      } loc("/tmp/old/workloads/gemm.py":35:21)
    } loc("/tmp/old/workloads/gemm.py":34:17)
    return loc("/tmp/old/workloads/gemm.py":34:17)
  } loc("/tmp/old/workloads/gemm.py":34:17)
  func.func @batched_gemm(%A: memref<8x64x64xf32>, %B: memref<8x64x64xf32>, %C: memref<8x64x64xf32>) {
    %0 = arith.constant 7 : index loc("/tmp/old/workloads/gemm.py":32:9)
    %1 = arith.constant 48 : index loc("/tmp/old/workloads/gemm.py":33:13)
    %2 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":33:13)
    %3 = arith.constant 4096 : index loc("/tmp/old/workloads/gemm.py":36:64)
    %4 = arith.constant 1024 : index loc("/tmp/old/workloads/gemm.py":36:38)
    %B_fast_mb = memref.alloc() : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    affine.dma_start %B[%2, 0, 0], %B_fast_mb[%2 mod 2, 0, 0, 0], %tag_mb[%2 mod 2, 0], %3 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
    affine.for %arg0 = 1 to 8 {
      affine.dma_start %B[%arg0, 0, 0], %B_fast_mb[%arg0 mod 2, 0, 0, 0], %tag_mb[%arg0 mod 2, 0], %3 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
      %5 = affine.apply #map5(%arg0) loc("/tmp/old/workloads/gemm.py":32:9)
      affine.dma_wait %tag_mb[%5 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
      %C_fast_mb = memref.alloc() : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
      %A_fast_mb = memref.alloc() : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
      %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
      %tag_mb_1 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
      affine.dma_start %C[%5, %2, 0], %C_fast_mb[%2 floordiv 16 mod 2, 0, 0, 0], %tag_mb_0[%2 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_start %A[%5, %2, 0], %A_fast_mb[%2 floordiv 16 mod 2, 0, 0, 0], %tag_mb_1[%2 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
      affine.for %arg1 = 16 to 64 step 16 {
        affine.dma_start %C[%5, %arg1, 0], %C_fast_mb[%arg1 floordiv 16 mod 2, 0, 0, 0], %tag_mb_0[%arg1 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
        affine.dma_start %A[%5, %arg1, 0], %A_fast_mb[%arg1 floordiv 16 mod 2, 0, 0, 0], %tag_mb_1[%arg1 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
        %6 = affine.apply #map6(%arg1) loc("/tmp/old/workloads/gemm.py":33:13)
        affine.dma_wait %tag_mb_0[%6 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
        affine.dma_wait %tag_mb_1[%6 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
        func.call @batched_gemm_kernel0(%5, %6, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, index, memref<2x1x16x64xf32, 1>, memref<2x1x16x64xf32, 1>, memref<2x1x64x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":34:17)
        %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
        affine.dma_start %C_fast_mb[%6 floordiv 16 mod 2, 0, 0, 0], %C[%5, %6, 0], %tag[0], %4 : memref<2x1x16x64xf32, 1>, memref<8x64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
        affine.dma_wait %tag[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
        memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      } loc("/tmp/old/workloads/gemm.py":33:13)
      affine.dma_wait %tag_mb_0[%1 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_wait %tag_mb_1[%1 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
      func.call @batched_gemm_kernel1(%5, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, memref<2x1x16x64xf32, 1>, memref<2x1x16x64xf32, 1>, memref<2x1x64x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":34:17)
      %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_start %C_fast_mb[%1 floordiv 16 mod 2, 0, 0, 0], %C[%5, %1, 0], %tag_0[0], %4 : memref<2x1x16x64xf32, 1>, memref<8x64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_wait %tag_0[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      memref.dealloc %tag_mb_1 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
      memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
      memref.dealloc %A_fast_mb : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
      memref.dealloc %C_fast_mb : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
    } loc("/tmp/old/workloads/gemm.py":32:9)
    affine.dma_wait %tag_mb[%0 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
    %C_fast_mb_0 = memref.alloc() : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
    %A_fast_mb_0 = memref.alloc() : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
    %tag_mb_2 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
    %tag_mb_3 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
    affine.dma_start %C[%0, %2, 0], %C_fast_mb_0[%2 floordiv 16 mod 2, 0, 0, 0], %tag_mb_2[%2 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_start %A[%0, %2, 0], %A_fast_mb_0[%2 floordiv 16 mod 2, 0, 0, 0], %tag_mb_3[%2 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
    affine.for %arg2 = 16 to 64 step 16 {
      affine.dma_start %C[%0, %arg2, 0], %C_fast_mb_0[%arg2 floordiv 16 mod 2, 0, 0, 0], %tag_mb_2[%arg2 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_start %A[%0, %arg2, 0], %A_fast_mb_0[%arg2 floordiv 16 mod 2, 0, 0, 0], %tag_mb_3[%arg2 floordiv 16 mod 2, 0], %4 : memref<8x64x64xf32>, memref<2x1x16x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
      %7 = affine.apply #map6(%arg2) loc("/tmp/old/workloads/gemm.py":33:13)
      affine.dma_wait %tag_mb_2[%7 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_wait %tag_mb_3[%7 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
      func.call @batched_gemm_kernel2(%7, %C_fast_mb_0, %A_fast_mb_0, %B_fast_mb) : (index, memref<2x1x16x64xf32, 1>, memref<2x1x16x64xf32, 1>, memref<2x1x64x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":34:17)
      %tag_1 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_start %C_fast_mb_0[%7 floordiv 16 mod 2, 0, 0, 0], %C[%0, %7, 0], %tag_1[0], %4 : memref<2x1x16x64xf32, 1>, memref<8x64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_wait %tag_1[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      memref.dealloc %tag_1 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    } loc("/tmp/old/workloads/gemm.py":33:13)
    affine.dma_wait %tag_mb_2[%1 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_wait %tag_mb_3[%1 floordiv 16 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
    func.call @batched_gemm_kernel3(%C_fast_mb_0, %A_fast_mb_0, %B_fast_mb) : (memref<2x1x16x64xf32, 1>, memref<2x1x16x64xf32, 1>, memref<2x1x64x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":34:17)
    %tag_2 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_start %C_fast_mb_0[%1 floordiv 16 mod 2, 0, 0, 0], %C[%0, %1, 0], %tag_2[0], %4 : memref<2x1x16x64xf32, 1>, memref<8x64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_wait %tag_2[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    memref.dealloc %tag_2 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    memref.dealloc %tag_mb_3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
    memref.dealloc %tag_mb_2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":33:13)
    memref.dealloc %A_fast_mb_0 : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
    memref.dealloc %C_fast_mb_0 : memref<2x1x16x64xf32, 1> loc("/tmp/old/workloads/gemm.py":33:13)
    memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    memref.dealloc %B_fast_mb : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    return loc("/tmp/old/workloads/gemm.py":30:5)
  } loc("/tmp/old/workloads/gemm.py":30:5)
} loc("/tmp/old/workloads/gemm.py":29:9)
