#map = affine_map<()[s0] -> (s0 + 1)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0) -> (d0 + 64)>
#map3 = affine_map<(d0) -> (d0 - 1)>
module {
  func.func private @batched_gemm_kernel0(%a0: index, %C_fast_mb: memref<2x1x64x64xf32, 1>, %A_fast_mb: memref<2x1x64x64xf32, 1>, %B_fast_mb: memref<2x1x64x64xf32, 1>) {
    affine.for %arg0 = 0 to 64 step 64 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = 0 to 64 step 64 {
          affine.for %arg3 = %a0 to #map()[%a0] {
            affine.for %arg4 = #map1(%arg0) to #map2(%arg0) {
              affine.for %arg5 = #map1(%arg1) to #map2(%arg1) {
                affine.for %arg6 = #map1(%arg2) to #map2(%arg2) {
                  %0 = affine.load %C_fast_mb[symbol(%a0) mod 2, %arg3 - symbol(%a0), %arg4, %arg5] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:38)
                  %1 = affine.load %A_fast_mb[symbol(%a0) mod 2, %arg3 - symbol(%a0), %arg4, %arg6] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:51)
                  %2 = affine.load %B_fast_mb[symbol(%a0) mod 2, %arg3 - symbol(%a0), %arg6, %arg5] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:64)
                  %3 = arith.mulf %1, %2 : f32 loc("/tmp/old/workloads/gemm.py":36:51)
                  %4 = arith.addf %0, %3 : f32 loc("/tmp/old/workloads/gemm.py":36:38)
                  affine.store %4, %C_fast_mb[symbol(%a0) mod 2, %arg3 - symbol(%a0), %arg4, %arg5] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:25)
                } loc("/tmp/old/workloads/gemm.py":35:21)
              } loc("/tmp/old/workloads/gemm.py":34:17)
            } loc("/tmp/old/workloads/gemm.py":33:13)
          } loc("/tmp/old/workloads/gemm.py":32:9)
        } loc("/tmp/old/workloads/gemm.py":35:21)
      } loc("/tmp/old/workloads/gemm.py":34:17)
    } loc("/tmp/old/workloads/gemm.py":33:13)
    return loc("/tmp/old/workloads/gemm.py":33:13)
  } loc("/tmp/old/workloads/gemm.py":33:13)
  func.func private @batched_gemm_kernel1(%C_fast_mb: memref<2x1x64x64xf32, 1>, %A_fast_mb: memref<2x1x64x64xf32, 1>, %B_fast_mb: memref<2x1x64x64xf32, 1>) {
    %0 = arith.constant 7 : index loc("/tmp/old/workloads/gemm.py":32:9)
    affine.for %arg0 = 0 to 64 step 64 {
      affine.for %arg1 = 0 to 64 step 64 {
        affine.for %arg2 = 0 to 64 step 64 {
          affine.for %arg3 = %0 to #map()[%0] {
            affine.for %arg4 = #map1(%arg0) to #map2(%arg0) {
              affine.for %arg5 = #map1(%arg1) to #map2(%arg1) {
                affine.for %arg6 = #map1(%arg2) to #map2(%arg2) {
                  %1 = affine.load %C_fast_mb[symbol(%0) mod 2, %arg3 - symbol(%0), %arg4, %arg5] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:38)
                  %2 = affine.load %A_fast_mb[symbol(%0) mod 2, %arg3 - symbol(%0), %arg4, %arg6] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:51)
                  %3 = affine.load %B_fast_mb[symbol(%0) mod 2, %arg3 - symbol(%0), %arg6, %arg5] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:64)
                  %4 = arith.mulf %2, %3 : f32 loc("/tmp/old/workloads/gemm.py":36:51)
                  %5 = arith.addf %1, %4 : f32 loc("/tmp/old/workloads/gemm.py":36:38)
                  affine.store %5, %C_fast_mb[symbol(%0) mod 2, %arg3 - symbol(%0), %arg4, %arg5] : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":36:25)
                } loc("/tmp/old/workloads/gemm.py":35:21)
              } loc("/tmp/old/workloads/gemm.py":34:17)
            } loc("/tmp/old/workloads/gemm.py":33:13)
          } loc("/tmp/old/workloads/gemm.py":32:9)
        } loc("/tmp/old/workloads/gemm.py":35:21)
      } loc("/tmp/old/workloads/gemm.py":34:17)
    } loc("/tmp/old/workloads/gemm.py":33:13)
    return loc("/tmp/old/workloads/gemm.py":33:13)
  } loc("/tmp/old/workloads/gemm.py":33:13)
  func.func @batched_gemm(%A: memref<8x64x64xf32>, %B: memref<8x64x64xf32>, %C: memref<8x64x64xf32>) {
    %0 = arith.constant 7 : index loc("/tmp/old/workloads/gemm.py":32:9)
    %1 = arith.constant 0 : index loc("/tmp/old/workloads/gemm.py":32:9)
    %2 = arith.constant 4096 : index loc("/tmp/old/workloads/gemm.py":36:38)
    %C_fast_mb = memref.alloc() : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    %A_fast_mb = memref.alloc() : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    %B_fast_mb = memref.alloc() : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    %tag_mb_1 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    affine.dma_start %C[%1, 0, 0], %C_fast_mb[%1 mod 2, 0, 0, 0], %tag_mb[%1 mod 2, 0], %2 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_start %A[%1, 0, 0], %A_fast_mb[%1 mod 2, 0, 0, 0], %tag_mb_0[%1 mod 2, 0], %2 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
    affine.dma_start %B[%1, 0, 0], %B_fast_mb[%1 mod 2, 0, 0, 0], %tag_mb_1[%1 mod 2, 0], %2 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
    affine.for %arg0 = 1 to 8 {
      affine.dma_start %C[%arg0, 0, 0], %C_fast_mb[%arg0 mod 2, 0, 0, 0], %tag_mb[%arg0 mod 2, 0], %2 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_start %A[%arg0, 0, 0], %A_fast_mb[%arg0 mod 2, 0, 0, 0], %tag_mb_0[%arg0 mod 2, 0], %2 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
      affine.dma_start %B[%arg0, 0, 0], %B_fast_mb[%arg0 mod 2, 0, 0, 0], %tag_mb_1[%arg0 mod 2, 0], %2 : memref<8x64x64xf32>, memref<2x1x64x64xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
      %3 = affine.apply #map3(%arg0) loc("/tmp/old/workloads/gemm.py":32:9)
      affine.dma_wait %tag_mb[%3 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_wait %tag_mb_0[%3 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
      affine.dma_wait %tag_mb_1[%3 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
      func.call @batched_gemm_kernel0(%3, %C_fast_mb, %A_fast_mb, %B_fast_mb) : (index, memref<2x1x64x64xf32, 1>, memref<2x1x64x64xf32, 1>, memref<2x1x64x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":33:13)
      %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_start %C_fast_mb[%3 mod 2, 0, 0, 0], %C[%3, 0, 0], %tag[0], %2 : memref<2x1x64x64xf32, 1>, memref<8x64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      affine.dma_wait %tag[0], %2 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
      memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    } loc("/tmp/old/workloads/gemm.py":32:9)
    affine.dma_wait %tag_mb[%0 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_wait %tag_mb_0[%0 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:51)
    affine.dma_wait %tag_mb_1[%0 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:64)
    func.call @batched_gemm_kernel1(%C_fast_mb, %A_fast_mb, %B_fast_mb) : (memref<2x1x64x64xf32, 1>, memref<2x1x64x64xf32, 1>, memref<2x1x64x64xf32, 1>) -> () loc("/tmp/old/workloads/gemm.py":33:13)
    %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_start %C_fast_mb[%0 mod 2, 0, 0, 0], %C[%0, 0, 0], %tag_0[0], %2 : memref<2x1x64x64xf32, 1>, memref<8x64x64xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    affine.dma_wait %tag_0[0], %2 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/gemm.py":36:38)
    memref.dealloc %tag_mb_1 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/gemm.py":32:9)
    memref.dealloc %B_fast_mb : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    memref.dealloc %A_fast_mb : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    memref.dealloc %C_fast_mb : memref<2x1x64x64xf32, 1> loc("/tmp/old/workloads/gemm.py":32:9)
    return loc("/tmp/old/workloads/gemm.py":30:5)
  } loc("/tmp/old/workloads/gemm.py":30:5)
} loc("/tmp/old/workloads/gemm.py":29:9)
