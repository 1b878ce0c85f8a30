#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> (d0 + 48)>
#map2 = affine_map<(d0) -> (d0 + 1)>
module {
  func.func private @syrk_kernel0(%C_fast: memref<48x48xf32, 1>, %A_fast: memref<48x40xf32, 1>) {
    %0 = arith.constant 1.2 : f32 loc("/tmp/old/workloads/polybench.py":111:42)
    %1 = arith.constant 1.5 : f32 loc("/tmp/old/workloads/polybench.py":111:16)
    affine.for %arg0 = 0 to 48 step 48 {
      affine.for %arg1 = #map(%arg0) to #map1(%arg0) {
        affine.for %arg2 = 0 to #map2(%arg1) {
          %2 = affine.load %C_fast[%arg1, %arg2] : memref<48x48xf32, 1> loc("/tmp/old/workloads/polybench.py":114:27)
          %3 = arith.mulf %2, %0 : f32 loc("/tmp/old/workloads/polybench.py":114:27)
          affine.store %3, %C_fast[%arg1, %arg2] : memref<48x48xf32, 1> loc("/tmp/old/workloads/polybench.py":114:17)
        } loc("/tmp/old/workloads/polybench.py":113:13)
        affine.for %arg3 = 0 to 40 {
          affine.for %arg4 = 0 to #map2(%arg1) {
            %4 = affine.load %C_fast[%arg1, %arg4] : memref<48x48xf32, 1> loc("/tmp/old/workloads/polybench.py":117:31)
            %5 = affine.load %A_fast[%arg1, %arg3] : memref<48x40xf32, 1> loc("/tmp/old/workloads/polybench.py":117:45)
            %6 = arith.mulf %1, %5 : f32 loc("/tmp/old/workloads/polybench.py":117:41)
            %7 = affine.load %A_fast[%arg4, %arg3] : memref<48x40xf32, 1> loc("/tmp/old/workloads/polybench.py":117:55)
            %8 = arith.mulf %6, %7 : f32 loc("/tmp/old/workloads/polybench.py":117:41)
            %9 = arith.addf %4, %8 : f32 loc("/tmp/old/workloads/polybench.py":117:31)
            affine.store %9, %C_fast[%arg1, %arg4] : memref<48x48xf32, 1> loc("/tmp/old/workloads/polybench.py":117:21)
          } loc("/tmp/old/workloads/polybench.py":116:17)
        } loc("/tmp/old/workloads/polybench.py":115:13)
      } loc("/tmp/old/workloads/polybench.py":112:9)
    } loc("/tmp/old/workloads/polybench.py":112:9)
    return loc("/tmp/old/workloads/polybench.py":112:9)
  } loc("/tmp/old/workloads/polybench.py":112:9)
  func.func @syrk(%C: memref<48x48xf32>, %A: memref<48x40xf32>) {
    %0 = arith.constant 1920 : index loc("/tmp/old/workloads/polybench.py":117:45)
    %1 = arith.constant 2304 : index loc("/tmp/old/workloads/polybench.py":114:27)
    %2 = arith.constant 1.5 : f32 loc("/tmp/old/workloads/polybench.py":111:16)
    %3 = arith.constant 1.2 : f32 loc("/tmp/old/workloads/polybench.py":111:42)
    %C_fast = memref.alloc() : memref<48x48xf32, 1> loc("/tmp/old/workloads/polybench.py":114:27)
    %tag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    affine.dma_start %C[0, 0], %C_fast[0, 0], %tag[0], %1 : memref<48x48xf32>, memref<48x48xf32, 1>, memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    affine.dma_wait %tag[0], %1 : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    %A_fast = memref.alloc() : memref<48x40xf32, 1> loc("/tmp/old/workloads/polybench.py":117:45)
    %tag_0 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":117:45)
    affine.dma_start %A[0, 0], %A_fast[0, 0], %tag_0[0], %0 : memref<48x40xf32>, memref<48x40xf32, 1>, memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":117:45)
    affine.dma_wait %tag_0[0], %0 : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":117:45)
    func.call @syrk_kernel0(%C_fast, %A_fast) : (memref<48x48xf32, 1>, memref<48x40xf32, 1>) -> () loc("/tmp/old/workloads/polybench.py":112:9)
    memref.dealloc %tag_0 : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":117:45)
    memref.dealloc %A_fast : memref<48x40xf32, 1> loc("/tmp/old/workloads/polybench.py":117:45)
    %tag_1 = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    affine.dma_start %C_fast[0, 0], %C[0, 0], %tag_1[0], %1 : memref<48x48xf32, 1>, memref<48x48xf32>, memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    affine.dma_wait %tag_1[0], %1 : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    memref.dealloc %tag : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    memref.dealloc %tag_1 : memref<1xi32, 2> loc("/tmp/old/workloads/polybench.py":114:27)
    memref.dealloc %C_fast : memref<48x48xf32, 1> loc("/tmp/old/workloads/polybench.py":114:27)
    return loc("/tmp/old/workloads/polybench.py":110:5)
  } loc("/tmp/old/workloads/polybench.py":110:5)
} loc("/tmp/old/workloads/polybench.py":109:9)
