#map = affine_map<()[s0] -> (s0 + 1)>
#map1 = affine_map<()[s0] -> (s0 + 2)>
#map2 = affine_map<()[s0] -> (s0 + 4)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> (d0 + 32)>
#map5 = affine_map<(d0) -> (d0 + 16)>
#map6 = affine_map<(d0) -> (d0 + 3)>
#map7 = affine_map<(d0) -> (d0 - 2)>
#map8 = affine_map<(d0) -> (d0 - 4)>
#map9 = affine_map<(d0) -> (d0 + 1)>
#set = affine_set<(d0) : (-d0 - 1 >= 0)>
module {
  func.func private @conv2d_kernel0(%iv0: index, %a1: index, %a2: index, %input_fast_mb: memref<2x1x16x6x34xf32, 1>, %output_fast_mb: memref<2x1x2x4x32xf32, 1>, %filter_fast_mb: memref<2x2x16x3x3xf32, 1>) {
    affine.for %arg0 = 0 to 32 step 32 {
      affine.for %arg1 = 0 to 16 step 16 {
        affine.for %arg2 = 0 to 3 step 3 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = %iv0 to #map()[%iv0] {
              affine.for %arg5 = %a1 to #map1()[%a1] {
                affine.for %arg6 = %a2 to #map2()[%a2] {
                  affine.for %arg7 = #map3(%arg0) to #map4(%arg0) {
                    affine.for %arg8 = #map3(%arg1) to #map5(%arg1) {
                      affine.for %arg9 = #map3(%arg2) to #map6(%arg2) {
                        affine.for %arg10 = #map3(%arg3) to #map6(%arg3) {
                          %0 = affine.load %input_fast_mb[symbol(%a2) floordiv 4 mod 2, %arg4, %arg8, %arg6 + %arg9 - symbol(%a2), %arg7 + %arg10] : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
                          %1 = affine.load %output_fast_mb[symbol(%a2) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6 - symbol(%a2), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:55)
                          %2 = affine.load %filter_fast_mb[symbol(%a1) floordiv 2 mod 2, %arg5 - symbol(%a1), %arg8, %arg9, %arg10] : memref<2x2x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":36:81)
                          %3 = arith.mulf %0, %2 : f32 loc("/tmp/old/workloads/conv.py":36:73)
                          %4 = arith.addf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":36:55)
                          affine.store %4, %output_fast_mb[symbol(%a2) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6 - symbol(%a2), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:37)
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
    return loc("/tmp/old/workloads/conv.py":31:21)
  } loc("/tmp/old/workloads/conv.py":31:21)
  func.func private @conv2d_kernel1(%iv0: index, %a1: index, %input_fast_mb: memref<2x1x16x6x34xf32, 1>, %output_fast_mb: memref<2x1x2x4x32xf32, 1>, %filter_fast_mb: memref<2x2x16x3x3xf32, 1>) {
    %0 = arith.constant 28 : index loc("/tmp/old/workloads/conv.py":30:17)
    affine.for %arg0 = 0 to 32 step 32 {
      affine.for %arg1 = 0 to 16 step 16 {
        affine.for %arg2 = 0 to 3 step 3 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = %iv0 to #map()[%iv0] {
              affine.for %arg5 = %a1 to #map1()[%a1] {
                affine.for %arg6 = %0 to #map2()[%0] {
                  affine.for %arg7 = #map3(%arg0) to #map4(%arg0) {
                    affine.for %arg8 = #map3(%arg1) to #map5(%arg1) {
                      affine.for %arg9 = #map3(%arg2) to #map6(%arg2) {
                        affine.for %arg10 = #map3(%arg3) to #map6(%arg3) {
                          %1 = affine.load %input_fast_mb[symbol(%0) floordiv 4 mod 2, %arg4, %arg8, %arg6 + %arg9 - symbol(%0), %arg7 + %arg10] : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
                          %2 = affine.load %output_fast_mb[symbol(%0) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6 - symbol(%0), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:55)
                          %3 = affine.load %filter_fast_mb[symbol(%a1) floordiv 2 mod 2, %arg5 - symbol(%a1), %arg8, %arg9, %arg10] : memref<2x2x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":36:81)
                          %4 = arith.mulf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":36:73)
                          %5 = arith.addf %2, %4 : f32 loc("/tmp/old/workloads/conv.py":36:55)
                          affine.store %5, %output_fast_mb[symbol(%0) floordiv 4 mod 2, %arg4, %arg5 - symbol(%a1), %arg6 - symbol(%0), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:37)
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
    return loc("/tmp/old/workloads/conv.py":31:21)
  } loc("/tmp/old/workloads/conv.py":31:21)
  func.func private @conv2d_kernel2(%iv0: index, %a1: index, %input_fast_mb: memref<2x1x16x6x34xf32, 1>, %output_fast_mb: memref<2x1x2x4x32xf32, 1>, %filter_fast_mb: memref<2x2x16x3x3xf32, 1>) {
    %0 = arith.constant 30 : index loc("/tmp/old/workloads/conv.py":29:13)
    affine.for %arg0 = 0 to 32 step 32 {
      affine.for %arg1 = 0 to 16 step 16 {
        affine.for %arg2 = 0 to 3 step 3 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = %iv0 to #map()[%iv0] {
              affine.for %arg5 = %0 to #map1()[%0] {
                affine.for %arg6 = %a1 to #map2()[%a1] {
                  affine.for %arg7 = #map3(%arg0) to #map4(%arg0) {
                    affine.for %arg8 = #map3(%arg1) to #map5(%arg1) {
                      affine.for %arg9 = #map3(%arg2) to #map6(%arg2) {
                        affine.for %arg10 = #map3(%arg3) to #map6(%arg3) {
                          %1 = affine.load %input_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg4, %arg8, %arg6 + %arg9 - symbol(%a1), %arg7 + %arg10] : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
                          %2 = affine.load %output_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6 - symbol(%a1), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:55)
                          %3 = affine.load %filter_fast_mb[symbol(%0) floordiv 2 mod 2, %arg5 - symbol(%0), %arg8, %arg9, %arg10] : memref<2x2x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":36:81)
                          %4 = arith.mulf %1, %3 : f32 loc("/tmp/old/workloads/conv.py":36:73)
                          %5 = arith.addf %2, %4 : f32 loc("/tmp/old/workloads/conv.py":36:55)
                          affine.store %5, %output_fast_mb[symbol(%a1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6 - symbol(%a1), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:37)
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
    return loc("/tmp/old/workloads/conv.py":31:21)
  } loc("/tmp/old/workloads/conv.py":31:21)
  func.func private @conv2d_kernel3(%iv0: index, %input_fast_mb: memref<2x1x16x6x34xf32, 1>, %output_fast_mb: memref<2x1x2x4x32xf32, 1>, %filter_fast_mb: memref<2x2x16x3x3xf32, 1>) {
    %0 = arith.constant 30 : index loc("/tmp/old/workloads/conv.py":29:13)
    %1 = arith.constant 28 : index loc("/tmp/old/workloads/conv.py":30:17)
    affine.for %arg0 = 0 to 32 step 32 {
      affine.for %arg1 = 0 to 16 step 16 {
        affine.for %arg2 = 0 to 3 step 3 {
          affine.for %arg3 = 0 to 3 step 3 {
            affine.for %arg4 = %iv0 to #map()[%iv0] {
              affine.for %arg5 = %0 to #map1()[%0] {
                affine.for %arg6 = %1 to #map2()[%1] {
                  affine.for %arg7 = #map3(%arg0) to #map4(%arg0) {
                    affine.for %arg8 = #map3(%arg1) to #map5(%arg1) {
                      affine.for %arg9 = #map3(%arg2) to #map6(%arg2) {
                        affine.for %arg10 = #map3(%arg3) to #map6(%arg3) {
                          %2 = affine.load %input_fast_mb[symbol(%1) floordiv 4 mod 2, %arg4, %arg8, %arg6 + %arg9 - symbol(%1), %arg7 + %arg10] : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":35:45)
                          %3 = affine.load %output_fast_mb[symbol(%1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6 - symbol(%1), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:55)
                          %4 = affine.load %filter_fast_mb[symbol(%0) floordiv 2 mod 2, %arg5 - symbol(%0), %arg8, %arg9, %arg10] : memref<2x2x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":36:81)
                          %5 = arith.mulf %2, %4 : f32 loc("/tmp/old/workloads/conv.py":36:73)
                          %6 = arith.addf %3, %5 : f32 loc("/tmp/old/workloads/conv.py":36:55)
                          affine.store %6, %output_fast_mb[symbol(%1) floordiv 4 mod 2, %arg4, %arg5 - symbol(%0), %arg6 - symbol(%1), %arg7] : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":36:37)
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
    return loc("/tmp/old/workloads/conv.py":31:21)
  } loc("/tmp/old/workloads/conv.py":31:21)
  func.func @conv2d(%input: memref<1x16x34x34xf32>, %filter: memref<32x16x3x3xf32>, %output: memref<1x32x32x32xf32>) {
    %0 = arith.constant 30 : index loc("/tmp/old/workloads/conv.py":29:13)
    %1 = arith.constant 28 : index loc("/tmp/old/workloads/conv.py":30:17)
    %2 = arith.constant 0 : index loc("/tmp/old/workloads/conv.py":30:17)
    %3 = arith.constant 288 : index loc("/tmp/old/workloads/conv.py":36:81)
    %4 = arith.constant 128 : index loc("/tmp/old/workloads/conv.py":36:55)
    %5 = arith.constant 1024 : index loc("/tmp/old/workloads/conv.py":36:55)
    %6 = arith.constant 256 : index loc("/tmp/old/workloads/conv.py":36:55)
    %7 = arith.constant 204 : index loc("/tmp/old/workloads/conv.py":35:45)
    %8 = arith.constant 1156 : index loc("/tmp/old/workloads/conv.py":35:45)
    %9 = arith.constant 3264 : index loc("/tmp/old/workloads/conv.py":35:45)
    %filter_fast_mb = memref.alloc() : memref<2x2x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":29:13)
    %tag_mb = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":29:13)
    %10 = arith.constant 0 : index loc("/tmp/old/workloads/conv.py":28:9)
    affine.dma_start %filter[%2, 0, 0, 0], %filter_fast_mb[%2 floordiv 2 mod 2, 0, 0, 0, 0], %tag_mb[%2 floordiv 2 mod 2, 0], %3 : memref<32x16x3x3xf32>, memref<2x2x16x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
    affine.for %arg0 = 0 to 1 {
      affine.for %arg1 = 2 to 32 step 2 {
        affine.dma_start %filter[%arg1, 0, 0, 0], %filter_fast_mb[%arg1 floordiv 2 mod 2, 0, 0, 0, 0], %tag_mb[%arg1 floordiv 2 mod 2, 0], %3 : memref<32x16x3x3xf32>, memref<2x2x16x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
        %11 = affine.apply #map7(%arg1) loc("/tmp/old/workloads/conv.py":29:13)
        affine.dma_wait %tag_mb[%11 floordiv 2 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
        %input_fast_mb = memref.alloc() : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
        %output_fast_mb = memref.alloc() : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
        %tag_mb_0 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
        %tag_mb_1 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
        affine.dma_start %input[0, 0, %2, 0], %input_fast_mb[%2 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_0[%2 floordiv 4 mod 2, 0], %9, %8, %7 : memref<1x16x34x34xf32>, memref<2x1x16x6x34xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
        affine.dma_start %output[0, %11, %2, 0], %output_fast_mb[%2 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_1[%2 floordiv 4 mod 2, 0], %6, %5, %4 : memref<1x32x32x32xf32>, memref<2x1x2x4x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.for %arg2 = 4 to 32 step 4 {
          affine.dma_start %input[0, 0, %arg2, 0], %input_fast_mb[%arg2 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_0[%arg2 floordiv 4 mod 2, 0], %9, %8, %7 : memref<1x16x34x34xf32>, memref<2x1x16x6x34xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
          affine.dma_start %output[0, %11, %arg2, 0], %output_fast_mb[%arg2 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_1[%arg2 floordiv 4 mod 2, 0], %6, %5, %4 : memref<1x32x32x32xf32>, memref<2x1x2x4x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
          %12 = affine.apply #map8(%arg2) loc("/tmp/old/workloads/conv.py":30:17)
          affine.dma_wait %tag_mb_0[%12 floordiv 4 mod 2, 0], %9 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
          affine.dma_wait %tag_mb_1[%12 floordiv 4 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
          func.call @conv2d_kernel0(%arg0, %11, %12, %input_fast_mb, %output_fast_mb, %filter_fast_mb) : (index, index, index, memref<2x1x16x6x34xf32, 1>, memref<2x1x2x4x32xf32, 1>, memref<2x2x16x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":31:21)
          %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
          affine.dma_start %output_fast_mb[%12 floordiv 4 mod 2, 0, 0, 0, 0], %output[0, %11, %12, 0], %tag[0], %6, %5, %4 : memref<2x1x2x4x32xf32, 1>, memref<1x32x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
          affine.dma_wait %tag[0], %6 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
          memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        } loc("/tmp/old/workloads/conv.py":30:17)
        affine.dma_wait %tag_mb_0[%1 floordiv 4 mod 2, 0], %9 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
        affine.dma_wait %tag_mb_1[%1 floordiv 4 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        func.call @conv2d_kernel1(%arg0, %11, %input_fast_mb, %output_fast_mb, %filter_fast_mb) : (index, index, memref<2x1x16x6x34xf32, 1>, memref<2x1x2x4x32xf32, 1>, memref<2x2x16x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":31:21)
        %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_start %output_fast_mb[%1 floordiv 4 mod 2, 0, 0, 0, 0], %output[0, %11, %1, 0], %tag_0[0], %6, %5, %4 : memref<2x1x2x4x32xf32, 1>, memref<1x32x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_wait %tag_0[0], %6 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        memref.dealloc %tag_mb_1 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
        memref.dealloc %tag_mb_0 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
        memref.dealloc %output_fast_mb : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
        memref.dealloc %input_fast_mb : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
      } loc("/tmp/old/workloads/conv.py":29:13)
      affine.if #set(%arg0) {
        %13 = affine.apply #map9(%arg0) loc("/tmp/old/workloads/conv.py":28:9)
        %14 = arith.constant 0 : index loc("/tmp/old/workloads/conv.py":28:9)
        affine.dma_start %filter[%14, 0, 0, 0], %filter_fast_mb[%14 floordiv 2 mod 2, 0, 0, 0, 0], %tag_mb[%14 floordiv 2 mod 2, 0], %3 : memref<32x16x3x3xf32>, memref<2x2x16x3x3xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
      } loc("/tmp/old/workloads/conv.py":28:9)
      affine.dma_wait %tag_mb[%0 floordiv 2 mod 2, 0], %3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:81)
      %input_fast_mb_0 = memref.alloc() : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
      %output_fast_mb_0 = memref.alloc() : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
      %tag_mb_2 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
      %tag_mb_3 = memref.alloc() : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
      affine.dma_start %input[0, 0, %2, 0], %input_fast_mb_0[%2 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_2[%2 floordiv 4 mod 2, 0], %9, %8, %7 : memref<1x16x34x34xf32>, memref<2x1x16x6x34xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
      affine.dma_start %output[0, %0, %2, 0], %output_fast_mb_0[%2 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_3[%2 floordiv 4 mod 2, 0], %6, %5, %4 : memref<1x32x32x32xf32>, memref<2x1x2x4x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.for %arg3 = 4 to 32 step 4 {
        affine.dma_start %input[0, 0, %arg3, 0], %input_fast_mb_0[%arg3 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_2[%arg3 floordiv 4 mod 2, 0], %9, %8, %7 : memref<1x16x34x34xf32>, memref<2x1x16x6x34xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
        affine.dma_start %output[0, %0, %arg3, 0], %output_fast_mb_0[%arg3 floordiv 4 mod 2, 0, 0, 0, 0], %tag_mb_3[%arg3 floordiv 4 mod 2, 0], %6, %5, %4 : memref<1x32x32x32xf32>, memref<2x1x2x4x32xf32, 1>, memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        %15 = affine.apply #map8(%arg3) loc("/tmp/old/workloads/conv.py":30:17)
        affine.dma_wait %tag_mb_2[%15 floordiv 4 mod 2, 0], %9 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
        affine.dma_wait %tag_mb_3[%15 floordiv 4 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        func.call @conv2d_kernel2(%arg0, %15, %input_fast_mb_0, %output_fast_mb_0, %filter_fast_mb) : (index, index, memref<2x1x16x6x34xf32, 1>, memref<2x1x2x4x32xf32, 1>, memref<2x2x16x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":31:21)
        %tag_1 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_start %output_fast_mb_0[%15 floordiv 4 mod 2, 0, 0, 0, 0], %output[0, %0, %15, 0], %tag_1[0], %6, %5, %4 : memref<2x1x2x4x32xf32, 1>, memref<1x32x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        affine.dma_wait %tag_1[0], %6 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
        memref.dealloc %tag_1 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      } loc("/tmp/old/workloads/conv.py":30:17)
      affine.dma_wait %tag_mb_2[%1 floordiv 4 mod 2, 0], %9 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":35:45)
      affine.dma_wait %tag_mb_3[%1 floordiv 4 mod 2, 0], %6 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      func.call @conv2d_kernel3(%arg0, %input_fast_mb_0, %output_fast_mb_0, %filter_fast_mb) : (index, memref<2x1x16x6x34xf32, 1>, memref<2x1x2x4x32xf32, 1>, memref<2x2x16x3x3xf32, 1>) -> () loc("/tmp/old/workloads/conv.py":31:21)
      %tag_2 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.dma_start %output_fast_mb_0[%1 floordiv 4 mod 2, 0, 0, 0, 0], %output[0, %0, %1, 0], %tag_2[0], %6, %5, %4 : memref<2x1x2x4x32xf32, 1>, memref<1x32x32x32xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      affine.dma_wait %tag_2[0], %6 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      memref.dealloc %tag_2 : memref<1xi32, 2> loc("/tmp/old/workloads/conv.py":36:55)
      memref.dealloc %tag_mb_3 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
      memref.dealloc %tag_mb_2 : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":30:17)
      memref.dealloc %output_fast_mb_0 : memref<2x1x2x4x32xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
      memref.dealloc %input_fast_mb_0 : memref<2x1x16x6x34xf32, 1> loc("/tmp/old/workloads/conv.py":30:17)
    } loc("/tmp/old/workloads/conv.py":28:9)
    memref.dealloc %tag_mb : memref<2x1xi32, 2> loc("/tmp/old/workloads/conv.py":29:13)
    memref.dealloc %filter_fast_mb : memref<2x2x16x3x3xf32, 1> loc("/tmp/old/workloads/conv.py":29:13)
    return loc("/tmp/old/workloads/conv.py":26:5)
  } loc("/tmp/old/workloads/conv.py":26:5)
} loc("/tmp/old/workloads/conv.py":25:9)
