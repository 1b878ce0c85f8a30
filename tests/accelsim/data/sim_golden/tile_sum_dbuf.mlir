#map = affine_map<(d0) -> (d0 mod 2)>
#set = affine_set<(d0) : (-d0 + 298 >= 0)>
module {
  func.func private @tile_sum_kernel(%buf: memref<2x64xf32, 1>, %half: index, %acc: memref<1xf32, 1>) {
    affine.for %arg0 = 0 to 64 {
      %0 = affine.load %acc[0] : memref<1xf32, 1> loc("/tmp/old/accelsim/examples.py":23:22)
      %1 = affine.load %buf[symbol(%half), %arg0] : memref<2x64xf32, 1> loc("/tmp/old/accelsim/examples.py":23:31)
      %2 = arith.addf %0, %1 : f32 loc("/tmp/old/accelsim/examples.py":23:22)
      affine.store %2, %acc[0] : memref<1xf32, 1> loc("/tmp/old/accelsim/examples.py":23:13)
    } loc("/tmp/old/accelsim/examples.py":22:9)
    return loc("/tmp/old/accelsim/examples.py":20:5)
  } loc("/tmp/old/accelsim/examples.py":20:5)
  func.func @tile_sum(%A: memref<300x64xf32>, %out: memref<1xf32>) {
    %buf = memref.alloc() : memref<2x64xf32, 1> loc("/tmp/old/accelsim/examples.py":25:15)
    %acc = memref.alloc() : memref<1xf32, 1> loc("/tmp/old/accelsim/examples.py":26:15)
    %tag = memref.alloc() : memref<2xi32, 2> loc("/tmp/old/accelsim/examples.py":27:15)
    %otag = memref.alloc() : memref<1xi32, 2> loc("/tmp/old/accelsim/examples.py":28:16)
    %0 = arith.constant 64 : index loc("/tmp/old/accelsim/examples.py":30:13)
    affine.dma_start %A[0, 0], %buf[0, 0], %tag[0], %0 : memref<300x64xf32>, memref<2x64xf32, 1>, memref<2xi32, 2> loc("/tmp/old/accelsim/examples.py":30:13)
    affine.for %arg0 = 0 to 300 {
      affine.if #set(%arg0) {
        %1 = arith.constant 64 : index loc("/tmp/old/accelsim/examples.py":33:21)
        affine.dma_start %A[%arg0 + 1, 0], %buf[(%arg0 + 1) mod 2, 0], %tag[(%arg0 + 1) mod 2], %1 : memref<300x64xf32>, memref<2x64xf32, 1>, memref<2xi32, 2> loc("/tmp/old/accelsim/examples.py":33:21)
      } loc("/tmp/old/accelsim/examples.py":32:17)
      %2 = arith.constant 64 : index loc("/tmp/old/accelsim/examples.py":34:17)
      affine.dma_wait %tag[%arg0 mod 2], %2 : memref<2xi32, 2> loc("/tmp/old/accelsim/examples.py":34:17)
      %3 = affine.apply #map(%arg0) loc("/tmp/old/accelsim/examples.py":35:49)
      func.call @tile_sum_kernel(%buf, %3, %acc) : (memref<2x64xf32, 1>, index, memref<1xf32, 1>) -> () loc("/tmp/old/accelsim/examples.py":35:17)
    } loc("/tmp/old/accelsim/examples.py":31:13)
    %4 = arith.constant 1 : index loc("/tmp/old/accelsim/examples.py":41:9)
    affine.dma_start %acc[0], %out[0], %otag[0], %4 : memref<1xf32, 1>, memref<1xf32>, memref<1xi32, 2> loc("/tmp/old/accelsim/examples.py":41:9)
    %5 = arith.constant 1 : index loc("/tmp/old/accelsim/examples.py":42:9)
    affine.dma_wait %otag[0], %5 : memref<1xi32, 2> loc("/tmp/old/accelsim/examples.py":42:9)
    memref.dealloc %buf : memref<2x64xf32, 1> loc("/tmp/old/accelsim/examples.py":43:9)
    memref.dealloc %acc : memref<1xf32, 1> loc("/tmp/old/accelsim/examples.py":44:9)
    return loc("/tmp/old/accelsim/examples.py":24:5)
  } loc("/tmp/old/accelsim/examples.py":24:5)
} loc("/tmp/old/accelsim/examples.py":19:9)
