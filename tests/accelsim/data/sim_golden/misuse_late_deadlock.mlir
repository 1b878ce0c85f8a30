module {
  func.func private @rd(%buf: memref<64xf32, 1>, %out: memref<1xf32, 1>) {
    affine.for %arg0 = 0 to 64 {
      %0 = affine.load %out[0] : memref<1xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":121:30)
      %1 = affine.load %buf[%arg0] : memref<64xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":121:39)
      %2 = arith.addf %0, %1 : f32 loc("/work/main/tests/accelsim/sim_golden_gen.py":121:30)
      affine.store %2, %out[0] : memref<1xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":121:21)
    } loc("/work/main/tests/accelsim/sim_golden_gen.py":120:17)
    return loc("/work/main/tests/accelsim/sim_golden_gen.py":118:13)
  } loc("/work/main/tests/accelsim/sim_golden_gen.py":118:13)
  func.func @main(%A: memref<8x64xf32>, %C: memref<8x64xf32>) {
    %buf = memref.alloc() : memref<64xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":131:16)
    %out = memref.alloc() : memref<1xf32, 1> loc("/work/main/tests/accelsim/sim_golden_gen.py":131:16)
    %tag = memref.alloc() : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":134:16)
    %0 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":217:9)
    affine.dma_start %A[0, 0], %buf[0], %tag[0], %0 : memref<8x64xf32>, memref<64xf32, 1>, memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":217:9)
    %1 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":218:9)
    affine.dma_wait %tag[0], %1 : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":218:9)
    func.call @rd(%buf, %out) : (memref<64xf32, 1>, memref<1xf32, 1>) -> () loc("/work/main/tests/accelsim/sim_golden_gen.py":219:9)
    %2 = arith.constant 64 : index loc("/work/main/tests/accelsim/sim_golden_gen.py":220:9)
    affine.dma_wait %tag[1], %2 : memref<2xi32, 2> loc("/work/main/tests/accelsim/sim_golden_gen.py":220:9)
    return loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
  } loc("/work/main/tests/accelsim/sim_golden_gen.py":126:9)
} loc("/work/main/tests/accelsim/sim_golden_gen.py":116:13)
