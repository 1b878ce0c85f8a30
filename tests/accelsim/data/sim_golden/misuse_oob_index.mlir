module {
  func.func @main(%A: memref<8x64xf32>, %C: memref<8x64xf32>) {
    %buf = memref.alloc() : memref<64xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":131:16)
    %tag = memref.alloc() : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":134:16)
    %0 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":183:9)
    affine.dma_start %A[8, 0], %buf[0], %tag[0], %0 : memref<8x64xf32>, memref<64xf32, 1>, memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":183:9)
    return loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
  } loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
} loc("/work/main/tests/accelsim/sim_golden_gen.py":116:13)
