#map = affine_map<()[s0] -> (s0 + 1)>
#map1 = affine_map<()[s0] -> (s0 + 8)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> (d0 + 16)>
#map4 = affine_map<(d0) -> (d0 + 32)>
#map5 = affine_map<(d0) -> (d0 + 3)>
#map6 = affine_map<(d0) -> (d0 - 8)>
module {
  func.func private @conv2d_kernel0(%iv0: index, %a1: index, %input_fast: memref<1x16x34x34xf32, 1>, %output_fast_mb: memref<2x1x8x32x32xf32, 1>, %filter_fast_mb: memref<2x8x16x3x3xf32, 1>) {
    affine.for %arg0 = 0 to 32 step 16 {
      affine.for %arg1 = 0 to 32 step 32 {
        affine.for %arg2 = 0 to 16 step 16 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = 0 to 3 step 3 {
              affine.for %arg5 = %iv0 to #map()[%iv0] {
                affine.for %arg6 = %a1 to #map1()[%a1] {
                  affine.for %arg7 = #map2(%arg0) to #map3(%arg0) {
                    affine.for %arg8 = #map2(%arg1) to #map4(%arg1) {
                      affine.for %arg9 = #map2(%arg2) to #map3(%arg2) {
                        affine.for %arg10 = #map2(%arg3) to #map5(%arg3) {
                          affine.for %arg11 = #map2(%arg4) to #map5(%arg4) {
                            %0 = affine.load %input_fast[%arg5, %arg9, %arg7 + %arg10, %arg8 + %arg11] : memref<1x16x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
                            %1 = affine.load %output_fast_mb[symbol(%a1) floordiv 8 mod 2, %arg5, %arg6 - symbol(%a1), %arg7, %arg8] : memref<2x1x8x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:55)
                            %2 = affine.load %filter_fast_mb[symbol(%a1) floordiv 8 mod 2, %arg6 - symbol(%a1), %arg9, %arg10, %arg11] : memref<2x8x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":36:81)
                            %3 = arith.mulf %0, %2 : f32 loc("/tmp/old/workloads/conv.py":36:73)
                            %4 = arith.addf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":36:55)
                            affine.store %4, %output_fast_mb[symbol(%a1) floordiv 8 mod 2, %arg5, %arg6 - symbol(%a1), %arg7, %arg8] : memref<2x1x8x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:37)
                          } loc("/tmp/old/workloads/conv.py":34:33)
                        } loc("/tmp/old/workloads/conv.py":33:29)
                      } loc("/tmp/old/workloads/conv.py":32:25)
                    } loc("/tmp/old/workloads/conv.py":31:21)
                  } loc("/tmp/old/workloads/conv.py":30:17)
                } loc("/tmp/old/workloads/conv.py":29:13)
              } loc("/tmp/old/workloads/conv.py":28:9)
            } loc("/tmp/old/workloads/conv.py":34:33)
          } loc("/tmp/old/workloads/conv.py":33:29)
        } loc("/tmp/old/workloads/conv.py":32:25)
      } loc("/tmp/old/workloads/conv.py":31:21)
    } loc("/tmp/old/workloads/conv.py":30:17)
    return loc("/tmp/old/workloads/conv.py":30:17)
  } loc("/tmp/old/workloads/conv.py":30:17)
  func.func private @conv2d_kernel1(%iv0: index, %input_fast: memref<1x16x34x34xf32, 1>, %output_fast_mb: memref<2x1x8x32x32xf32, 1>, %filter_fast_mb: memref<2x8x16x3x3xf32, 1>) {
    %0 = arith.constant 24 : index loc("/tmp/old/workloads/conv.py":29:13)
    affine.for %arg0 = 0 to 32 step 16 {
      affine.for %arg1 = 0 to 32 step 32 {
        affine.for %arg2 = 0 to 16 step 16 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = 0 to 3 step 3 {
              affine.for %arg5 = %iv0 to #map()[%iv0] {
                affine.for %arg6 = %0 to #map1()[%0] {
                  affine.for %arg7 = #map2(%arg0) to #map3(%arg0) {
                    affine.for %arg8 = #map2(%arg1) to #map4(%arg1) {
                      affine.for %arg9 = #map2(%arg2) to #map3(%arg2) {
                        affine.for %arg10 = #map2(%arg3) to #map5(%arg3) {
                          affine.for %arg11 = #map2(%arg4) to #map5(%arg4) {
                            %1 = affine.load %input_fast[%arg5, %arg9, %arg7 + %arg10, %arg8 + %arg11] : memref<1x16x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
                            %2 = affine.load %output_fast_mb[symbol(%0) floordiv 8 mod 2, %arg5, %arg6 - symbol(%0), %arg7, %arg8] : memref<2x1x8x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:55)
                            %3 = affine.load %filter_fast_mb[symbol(%0) floordiv 8 mod 2, %arg6 - symbol(%0), %arg9, %arg10, %arg11] : memref<2x8x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":36:81)
                            %4 = arith.mulf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":36:73)
                            %5 = arith.addf %2, %4 : f32 loc("/tmp/old/workloads/conv.py":36:55)
                            affine.store %5, %output_fast_mb[symbol(%0) floordiv 8 mod 2, %arg5, %arg6 - symbol(%0), %arg7, %arg8] : memref<2x1x8x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:37)
                          } loc("/tmp/old/workloads/conv.py":34:33)
                        } loc("/tmp/old/workloads/conv.py":33:29)
                      } loc("/tmp/old/workloads/conv.py":32:25)
                    } loc("/tmp/old/workloads/conv.py":31:21)
                  } loc("/tmp/old/workloads/conv.py":30:17)
                } loc("/tmp/old/workloads/conv.py":29:13)
              } loc("/tmp/old/workloads/conv.py":28:9)
            } loc("/tmp/old/workloads/conv.py":34:33)
          } loc("/tmp/old/workloads/conv.py":33:29)
        } loc("/tmp/old/workloads/conv.py":32:25)
      } loc("/tmp/old/workloads/conv.py":31:21)
    } loc("/tmp/old/workloads/conv.py":30:17)
    return loc("/tmp/old/workloads/conv.py":30:17)
  } loc("/tmp/old/workloads/conv.py":30:17)
  func.func @conv2d(%input: memref<1x16x34x34xf32>, %filter: memref<32x16x3x3xf32>, %output: memref<1x32x32x32xf32>) {
    %0 = arith.constant 24 : index loc("/tmp/old/workloads/conv.py":29:13)
    %1 = arith.constant 0 : index loc("/tmp/old/workloads/conv.py":29:13)
    %2 = arith.constant 1152 : index loc("/tmp/old/workloads/conv.py":36:81)
    %3 = arith.constant 8192 : index loc("/tmp/old/workloads/conv.py":36:55)
    %4 = arith.constant 18496 : index loc("/tmp/old/workloads/conv.py":35:45)
    %input_fast = memref.alloc() : memref<1x16x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
    %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
    affine.dma_start %input[0, 0, 0, 0], %input_fast[0, 0, 0, 0], %tag[0], %4 : memref<1x16x34x34xf32>, memref<1x16x34x34xf32, 1>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
    affine.dma_wait %tag[0], %4 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
    affine.for %arg0 = 0 to 1 {
      %output_fast_mb = memref.alloc() : memref<2x1x8x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":29:13)
      %filter_fast_mb = memref.alloc() : memref<2x8x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":29:13)
      %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":29:13)
      %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":29:13)
      affine.dma_start %output[0, %1, 0, 0], %output_fast_mb[%1 floordiv 8 mod 2, 0, 0, 0, 0], %tag_mb[%1 floordiv 8 mod 2, 0], %3 : memref<1x32x32x32xf32>, memref<2x1x8x32x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.dma_start %filter[%1, 0, 0, 0], %filter_fast_mb[%1 floordiv 8 mod 2, 0, 0, 0, 0], %tag_mb_0[%1 floordiv 8 mod 2, 0], %2 : memref<32x16x3x3xf32>, memref<2x8x16x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
      affine.for %arg1 = 8 to 32 step 8 {
        affine.dma_start %output[0, %arg1, 0, 0], %output_fast_mb[%arg1 floordiv 8 mod 2, 0, 0, 0, 0], %tag_mb[%arg1 floordiv 8 mod 2, 0], %3 : memref<1x32x32x32xf32>, memref<2x1x8x32x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_start %filter[%arg1, 0, 0, 0], %filter_fast_mb[%arg1 floordiv 8 mod 2, 0, 0, 0, 0], %tag_mb_0[%arg1 floordiv 8 mod 2, 0], %2 : memref<32x16x3x3xf32>, memref<2x8x16x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
        %5 = affine.apply #map6(%arg1) loc("/tmp/old/workloads/conv.py":29:13)
        affine.dma_wait %tag_mb[%5 floordiv 8 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_wait %tag_mb_0[%5 floordiv 8 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
        func.call @conv2d_kernel0(%arg0, %5, %input_fast, %output_fast_mb, %filter_fast_mb) : (index, index, memref<1x16x34x34xf32, 1>, memref<2x1x8x32x32xf32, 1>, memref<2x8x16x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":30:17)
        %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_start %output_fast_mb[%5 floordiv 8 mod 2, 0, 0, 0, 0], %output[0, %5, 0, 0], %tag_0[0], %3 : memref<2x1x8x32x32xf32, 1>, memref<1x32x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_wait %tag_0[0], %3 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      } loc("/tmp/old/workloads/conv.py":29:13)
      affine.dma_wait %tag_mb[%0 floordiv 8 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.dma_wait %tag_mb_0[%0 floordiv 8 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
      func.call @conv2d_kernel1(%arg0, %input_fast, %output_fast_mb, %filter_fast_mb) : (index, memref<1x16x34x34xf32, 1>, memref<2x1x8x32x32xf32, 1>, memref<2x8x16x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":30:17)
      %tag_1 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.dma_start %output_fast_mb[%0 floordiv 8 mod 2, 0, 0, 0, 0], %output[0, %0, 0, 0], %tag_1[0], %3 : memref<2x1x8x32x32xf32, 1>, memref<1x32x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.dma_wait %tag_1[0], %3 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      memref.dealloc %tag_1 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":29:13)
      memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":29:13)
      memref.dealloc %filter_fast_mb : memref<2x8x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":29:13)
      memref.dealloc %output_fast_mb : memref<2x1x8x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":29:13)
    } loc("/tmp/old/workloads/conv.py":28:9)
    memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
    memref.dealloc %input_fast : memref<1x16x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
    return loc("/tmp/old/workloads/conv.py":26:5)
  } loc("/tmp/old/workloads/conv.py":26:5)
} loc("/tmp/old/workloads/conv.py":25:9)
