module {
  func.func private @wr(%buf: memref<64xf32, 1>) {
    affine.for %arg0 = 0 to 64 {
      %0 = affine.load %buf[%arg0] : memref<64xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":125:30)
      %1 = arith.constant 2.0 : f32 loc("/work/main/tests/accelsim/sim_golden_gen.py":125:30)
      %2 = arith.mulf %0, %1 : f32 loc("/work/main/tests/accelsim/sim_golden_gen.py":125:30)
      affine.store %2, %buf[%arg0] : memref<64xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":125:21)
    } loc("/work/main/tests/accelsim/sim_golden_gen.py":124:17)
    return loc("/work/main/tests/accelsim/sim_golden_gen.py":123:13)
  } loc("/work/main/tests/accelsim/sim_golden_gen.py":123:13)
  func.func @main(%A: memref<8x64xf32>, %C: memref<8x64xf32>) {
    %buf = memref.alloc() : memref<64xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":131:16)
    %tag = memref.alloc() : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":134:16)
    %0 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":145:9)
    affine.dma_start %A[0, 0], %buf[0], %tag[0], %0 : memref<8x64xf32>, memref<64xf32, 1>, memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":145:9)
    %1 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":146:9)
    affine.dma_wait %tag[0], %1 : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":146:9)
    %2 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":147:9)
    affine.dma_start %buf[0], %C[0, 0], %tag[0], %2 : memref<64xf32, 1>, memref<8x64xf32>, memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":147:9)
    func.call @wr(%buf) : (memref<64xf32, 1>) -> () loc("/work/main/tests/accelsim/sim_golden_gen.py":148:9)
    return loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
  } loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
} loc("/work/main/tests/accelsim/sim_golden_gen.py":116:13)
