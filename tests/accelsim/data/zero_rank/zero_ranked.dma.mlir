// upstream mlir/test/Dialect/Affine/affine-data-copy.mlir @zero_ranked through mlir-opt-19 -affine-data-copy-generate="generate-dma fast-mem-space=1"
module {
  func.func @zero_ranked(%arg0: memref<480xi1>) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c1_0 = arith.constant 1 : index
    %c0_1 = arith.constant 0 : index
    %c480 = arith.constant 480 : index
    %c0_2 = arith.constant 0 : index
    %c1_3 = arith.constant 1 : index
    %c0_4 = arith.constant 0 : index
    %c0_5 = arith.constant 0 : index
    %false = arith.constant false
    %alloc = memref.alloc() {alignment = 128 : i64} : memref<i1>
    %alloc_6 = memref.alloc() : memref<i1, 1>
    %alloc_7 = memref.alloc() : memref<1xi32>
    affine.store %false, %alloc[] : memref<i1>
    %alloc_8 = memref.alloc() {alignment = 128 : i64} : memref<i1>
    memref.copy %alloc, %alloc_8 : memref<i1> to memref<i1>
    affine.dma_start %alloc_6[], %alloc[], %alloc_7[%c0_4], %c1_3 : memref<i1, 1>, memref<i1>, memref<1xi32>
    affine.dma_wait %alloc_7[%c0_4], %c1_3 : memref<1xi32>
    memref.dealloc %alloc_7 : memref<1xi32>
    memref.dealloc %alloc_6 : memref<i1, 1>
    %alloc_9 = memref.alloc() : memref<480xi1, 1>
    %alloc_10 = memref.alloc() : memref<1xi32>
    affine.dma_start %arg0[%c0_2], %alloc_9[%c0_2], %alloc_10[%c0_2], %c480 : memref<480xi1>, memref<480xi1, 1>, memref<1xi32>
    affine.dma_wait %alloc_10[%c0_2], %c480 : memref<1xi32>
    %alloc_11 = memref.alloc() : memref<i1, 1>
    %alloc_12 = memref.alloc() : memref<1xi32>
    affine.dma_start %alloc_8[], %alloc_11[], %alloc_12[%c0_1], %c1_0 : memref<i1>, memref<i1, 1>, memref<1xi32>
    affine.dma_wait %alloc_12[%c0_1], %c1_0 : memref<1xi32>
    %alloc_13 = memref.alloc() : memref<1xi32>
    affine.for %arg1 = 0 to 480 {
      %0 = affine.load %alloc_9[%arg1] : memref<480xi1, 1>
      %1 = affine.load %alloc_11[] : memref<i1, 1>
      %2 = arith.cmpi slt, %0, %1 : i1
      %3 = arith.select %2, %0, %1 : i1
      affine.store %3, %alloc_11[] : memref<i1, 1>
    }
    affine.dma_start %alloc_11[], %alloc_8[], %alloc_13[%c0], %c1 : memref<i1, 1>, memref<i1>, memref<1xi32>
    affine.dma_wait %alloc_13[%c0], %c1 : memref<1xi32>
    memref.dealloc %alloc_13 : memref<1xi32>
    memref.dealloc %alloc_12 : memref<1xi32>
    memref.dealloc %alloc_11 : memref<i1, 1>
    memref.dealloc %alloc_10 : memref<1xi32>
    memref.dealloc %alloc_9 : memref<480xi1, 1>
    return
  }
}

