#map = affine_map<()[s0] -> (s0 + 1)>
#map1 = affine_map<()[s0] -> (s0 + 4)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> (d0 + 32)>
#map4 = affine_map<(d0) -> (d0 + 3)>
#map5 = affine_map<(d0) -> (d0 - 4)>
module {
  func.func private @depthwise_conv2d_kernel0(%iv0: index, %a1: index, %input_fast_mb: memref<2x1x4x34x34xf32, 1>, %output_fast_mb: memref<2x1x4x32x32xf32, 1>, %filter_fast_mb: memref<2x4x3x3xf32, 1>) {
    affine.for %arg0 = 0 to 32 step 32 {
      affine.for %arg1 = 0 to 32 step 32 {
        affine.for %arg2 = 0 to 3 step 3 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = %iv0 to #map()[%iv0] {
              affine.for %arg5 = %a1 to #map1()[%a1] {
                affine.for %arg6 = #map2(%arg0) to #map3(%arg0) {
                  affine.for %arg7 = #map2(%arg1) to #map3(%arg1) {
                    affine.for %arg8 = #map2(%arg2) to #map4(%arg2) {
                      affine.for %arg9 = #map2(%arg3) to #map4(%arg3) {
                        %0 = affine.load %input_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6 + %arg8, %arg7 + %arg9] : memref<2x1x4x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":69:41)
                        %1 = affine.load %output_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6, %arg7] : memref<2x1x4x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":70:51)
                        %2 = affine.load %filter_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg5 - symbol(%a1), %arg8, %arg9] : memref<2x4x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":70:77)
                        %3 = arith.mulf %0, %2 : f32 loc("/tmp/old/workloads/conv.py":70:69)
                        %4 = arith.addf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":70:51)
                        affine.store %4, %output_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6, %arg7] : memref<2x1x4x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":70:33)
                      } loc("/tmp/old/workloads/conv.py":68:29)
                    } loc("/tmp/old/workloads/conv.py":67:25)
                  } loc("/tmp/old/workloads/conv.py":66:21)
                } loc("/tmp/old/workloads/conv.py":65:17)
              } loc("/tmp/old/workloads/conv.py":64:13)
            } loc("/tmp/old/workloads/conv.py":63:9)
          } loc("/tmp/old/workloads/conv.py":68:29)
        } loc("/tmp/old/workloads/conv.py":67:25)
      } loc("/tmp/old/workloads/conv.py":66:21)
    } loc("/tmp/old/workloads/conv.py":65:17)
    return loc("/tmp/old/workloads/conv.py":65:17)
  } loc("/tmp/old/workloads/conv.py":65:17)
  func.func private @depthwise_conv2d_kernel1(%iv0: index, %input_fast_mb: memref<2x1x4x34x34xf32, 1>, %output_fast_mb: memref<2x1x4x32x32xf32, 1>, %filter_fast_mb: memref<2x4x3x3xf32, 1>) {
    %0 = arith.constant 12 : index loc("/tmp/old/workloads/conv.py":64:13)
    affine.for %arg0 = 0 to 32 step 32 {
      affine.for %arg1 = 0 to 32 step 32 {
        affine.for %arg2 = 0 to 3 step 3 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = %iv0 to #map()[%iv0] {
              affine.for %arg5 = %0 to #map1()[%0] {
                affine.for %arg6 = #map2(%arg0) to #map3(%arg0) {
                  affine.for %arg7 = #map2(%arg1) to #map3(%arg1) {
                    affine.for %arg8 = #map2(%arg2) to #map4(%arg2) {
                      affine.for %arg9 = #map2(%arg3) to #map4(%arg3) {
                        %1 = affine.load %input_fast_mb[symbol(%0) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6 + %arg8, %arg7 + %arg9] : memref<2x1x4x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":69:41)
                        %2 = affine.load %output_fast_mb[symbol(%0) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6, %arg7] : memref<2x1x4x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":70:51)
                        %3 = affine.load %filter_fast_mb[symbol(%0) floordiv 4 mod 2, %arg5 - symbol(%0), %arg8, %arg9] : memref<2x4x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":70:77)
                        %4 = arith.mulf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":70:69)
                        %5 = arith.addf %2, %4 : f32 loc("/tmp/old/workloads/conv.py":70:51)
                        affine.store %5, %output_fast_mb[symbol(%0) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6, %arg7] : memref<2x1x4x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":70:33)
                      } loc("/tmp/old/workloads/conv.py":68:29)
                    } loc("/tmp/old/workloads/conv.py":67:25)
                  } loc("/tmp/old/workloads/conv.py":66:21)
                } loc("/tmp/old/workloads/conv.py":65:17)
              } loc("/tmp/old/workloads/conv.py":64:13)
            } loc("/tmp/old/workloads/conv.py":63:9)
          } loc("/tmp/old/workloads/conv.py":68:29)
        } loc("/tmp/old/workloads/conv.py":67:25)
      } loc("/tmp/old/workloads/conv.py":66:21)
    } loc("/tmp/old/workloads/conv.py":65:17)
    return loc("/tmp/old/workloads/conv.py":65:17)
  } loc("/tmp/old/workloads/conv.py":65:17)
  func.func @depthwise_conv2d(%input: memref<1x16x34x34xf32>, %filter: memref<16x3x3xf32>, %output: memref<1x16x32x32xf32>) {
    %0 = arith.constant 12 : index loc("/tmp/old/workloads/conv.py":64:13)
    %1 = arith.constant 0 : index loc("/tmp/old/workloads/conv.py":64:13)
    %2 = arith.constant 36 : index loc("/tmp/old/workloads/conv.py":70:77)
    %3 = arith.constant 4096 : index loc("/tmp/old/workloads/conv.py":70:51)
    %4 = arith.constant 4624 : index loc("/tmp/old/workloads/conv.py":69:41)
    affine.for %arg0 = 0 to 1 {
      %input_fast_mb = memref.alloc() : memref<2x1x4x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":64:13)
      %output_fast_mb = memref.alloc() : memref<2x1x4x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":64:13)
      %filter_fast_mb = memref.alloc() : memref<2x4x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":64:13)
      %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":64:13)
      %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":64:13)
      %tag_mb_1 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":64:13)
      affine.dma_start %input[0, %1, 0, 0], %input_fast_mb[%1 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb[%1 floordiv 4 mod 2, 0], %4 : memref<1x16x34x34xf32>, memref<2x1x4x34x34xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":69:41)
      affine.dma_start %output[0, %1, 0, 0], %output_fast_mb[%1 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_0[%1 floordiv 4 mod 2, 0], %3 : memref<1x16x32x32xf32>, memref<2x1x4x32x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      affine.dma_start %filter[%1, 0, 0], %filter_fast_mb[%1 floordiv 4 mod 2, 0, 0, 0], %tag_mb_1[%1 floordiv 4 mod 2, 0], %2 : memref<16x3x3xf32>, memref<2x4x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:77)
      affine.for %arg1 = 4 to 16 step 4 {
        affine.dma_start %input[0, %arg1, 0, 0], %input_fast_mb[%arg1 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb[%arg1 floordiv 4 mod 2, 0], %4 : memref<1x16x34x34xf32>, memref<2x1x4x34x34xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":69:41)
        affine.dma_start %output[0, %arg1, 0, 0], %output_fast_mb[%arg1 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_0[%arg1 floordiv 4 mod 2, 0], %3 : memref<1x16x32x32xf32>, memref<2x1x4x32x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
        affine.dma_start %filter[%arg1, 0, 0], %filter_fast_mb[%arg1 floordiv 4 mod 2, 0, 0, 0], %tag_mb_1[%arg1 floordiv 4 mod 2, 0], %2 : memref<16x3x3xf32>, memref<2x4x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:77)
        %5 = affine.apply #map5(%arg1) loc("/tmp/old/workloads/conv.py":64:13)
        affine.dma_wait %tag_mb[%5 floordiv 4 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":69:41)
        affine.dma_wait %tag_mb_0[%5 floordiv 4 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
        affine.dma_wait %tag_mb_1[%5 floordiv 4 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:77)
        func.call @depthwise_conv2d_kernel0(%arg0, %5, %input_fast_mb, %output_fast_mb, %filter_fast_mb) : (index, index, memref<2x1x4x34x34xf32, 1>, memref<2x1x4x32x32xf32, 1>, memref<2x4x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":65:17)
        %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
        affine.dma_start %output_fast_mb[%5 floordiv 4 mod 2, 0, 0, 0, 0], %output[0, %5, 0, 0], %tag[0], %3 : memref<2x1x4x32x32xf32, 1>, memref<1x16x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
        affine.dma_wait %tag[0], %3 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
        memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      } loc("/tmp/old/workloads/conv.py":64:13)
      affine.dma_wait %tag_mb[%0 floordiv 4 mod 2, 0], %4 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":69:41)
      affine.dma_wait %tag_mb_0[%0 floordiv 4 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      affine.dma_wait %tag_mb_1[%0 floordiv 4 mod 2, 0], %2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":70:77)
      func.call @depthwise_conv2d_kernel1(%arg0, %input_fast_mb, %output_fast_mb, %filter_fast_mb) : (index, memref<2x1x4x34x34xf32, 1>, memref<2x1x4x32x32xf32, 1>, memref<2x4x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":65:17)
      %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      affine.dma_start %output_fast_mb[%0 floordiv 4 mod 2, 0, 0, 0, 0], %output[0, %0, 0, 0], %tag_0[0], %3 : memref<2x1x4x32x32xf32, 1>, memref<1x16x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      affine.dma_wait %tag_0[0], %3 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":70:51)
      memref.dealloc %tag_mb_1 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":64:13)
      memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":64:13)
      memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":64:13)
      memref.dealloc %filter_fast_mb : memref<2x4x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":64:13)
      memref.dealloc %output_fast_mb : memref<2x1x4x32x32xf32, 1> loc("/tmp/old/workloads/conv.py":64:13)
      memref.dealloc %input_fast_mb : memref<2x1x4x34x34xf32, 1> loc("/tmp/old/workloads/conv.py":64:13)
    } loc("/tmp/old/workloads/conv.py":63:9)
    return loc("/tmp/old/workloads/conv.py":61:5)
  } loc("/tmp/old/workloads/conv.py":61:5)
} loc("/tmp/old/workloads/conv.py":60:9)
