// mlir-opt-19 -affine-data-copy-generate="generate-dma fast-mem-space=1" of a min reduction into a zero-rank argument
module {
  func.func @min_reduce(%arg0: memref<64xf32>, %arg1: memref<f32>) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c1_0 = arith.constant 1 : index
    %c0_1 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c0_2 = arith.constant 0 : index
    %c0_3 = arith.constant 0 : index
    %alloc = memref.alloc() : memref<64xf32, 1>
    %alloc_4 = memref.alloc() : memref<1xi32>
    affine.dma_start %arg0[%c0_2], %alloc[%c0_2], %alloc_4[%c0_2], %c64 : memref<64xf32>, memref<64xf32, 1>, memref<1xi32>
    affine.dma_wait %alloc_4[%c0_2], %c64 : memref<1xi32>
    %alloc_5 = memref.alloc() : memref<f32, 1>
    %alloc_6 = memref.alloc() : memref<1xi32>
    affine.dma_start %arg1[], %alloc_5[], %alloc_6[%c0_1], %c1_0 : memref<f32>, memref<f32, 1>, memref<1xi32>
    affine.dma_wait %alloc_6[%c0_1], %c1_0 : memref<1xi32>
    %alloc_7 = memref.alloc() : memref<1xi32>
    affine.for %arg2 = 0 to 64 {
      %0 = affine.load %alloc[%arg2] : memref<64xf32, 1>
      %1 = affine.load %alloc_5[] : memref<f32, 1>
      %2 = arith.minimumf %0, %1 : f32
      affine.store %2, %alloc_5[] : memref<f32, 1>
    }
    affine.dma_start %alloc_5[], %arg1[], %alloc_7[%c0], %c1 : memref<f32, 1>, memref<f32>, memref<1xi32>
    affine.dma_wait %alloc_7[%c0], %c1 : memref<1xi32>
    memref.dealloc %alloc_7 : memref<1xi32>
    memref.dealloc %alloc_6 : memref<1xi32>
    memref.dealloc %alloc_5 : memref<f32, 1>
    memref.dealloc %alloc_4 : memref<1xi32>
    memref.dealloc %alloc : memref<64xf32, 1>
    return
  }
}

