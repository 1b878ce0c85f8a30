module {
  func.func @main(%A: memref<8x64xf32>, %C: memref<8x64xf32>) {
    %tile = memref.alloc() : memref<4x16xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":186:15)
    %tag = memref.alloc() : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":134:16)
    %0 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":188:9)
    %1 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":188:9)
    %2 = arith.constant 16 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":188:9)
    affine.dma_start %A[0, 56], %tile[0, 0], %tag[0], %0, %1, %2 : memref<8x64xf32>, memref<4x16xf32, 1>, memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":188:9)
    return loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
  } loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
} loc("/work/main/tests/accelsim/sim_golden_gen.py":116:13)
