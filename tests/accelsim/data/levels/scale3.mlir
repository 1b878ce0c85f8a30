// DRAM (space 0) -> global buffer (space 1) -> scratchpad (space 2), tags in space 3:
// B = 2 * A + 1, tile by tile. The glb holds all of A; each 64-element tile goes on to the
// scratchpad, is scaled there, and comes back through the glb. Double-buffered on the spad.
func.func private @scale_kernel(%buf: memref<2x64xf32, 2>, %h: index) {
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  affine.for %j = 0 to 64 {
    %v = affine.load %buf[%h, %j] : memref<2x64xf32, 2>
    %w = arith.mulf %v, %two : f32
    %x = arith.addf %w, %one : f32
    affine.store %x, %buf[%h, %j] : memref<2x64xf32, 2>
  }
  return
}

func.func @scale3(%A: memref<256xf32>, %B: memref<256xf32>) {
  %c256 = arith.constant 256 : index
  %c64 = arith.constant 64 : index
  %glb = memref.alloc() : memref<256xf32, 1>
  %spad = memref.alloc() : memref<2x64xf32, 2>
  %t0 = memref.alloc() : memref<1xi32, 3>
  %tin = memref.alloc() : memref<2xi32, 3>
  %tout = memref.alloc() : memref<2xi32, 3>
  affine.dma_start %A[0], %glb[0], %t0[0], %c256 : memref<256xf32>, memref<256xf32, 1>, memref<1xi32, 3>
  affine.dma_wait %t0[0], %c256 : memref<1xi32, 3>
  affine.dma_start %glb[0], %spad[0, 0], %tin[0], %c64 : memref<256xf32, 1>, memref<2x64xf32, 2>, memref<2xi32, 3>
  affine.for %i = 0 to 4 {
    affine.if affine_set<(d0) : (2 - d0 >= 0)>(%i) {
      affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%i) {
        affine.dma_wait %tout[(%i + 1) mod 2], %c64 : memref<2xi32, 3>
      }
      affine.dma_start %glb[(%i + 1) * 64], %spad[(%i + 1) mod 2, 0], %tin[(%i + 1) mod 2], %c64 : memref<256xf32, 1>, memref<2x64xf32, 2>, memref<2xi32, 3>
    }
    affine.dma_wait %tin[%i mod 2], %c64 : memref<2xi32, 3>
    %h = affine.apply affine_map<(d0) -> (d0 mod 2)>(%i)
    func.call @scale_kernel(%spad, %h) : (memref<2x64xf32, 2>, index) -> ()
    affine.dma_start %spad[%i mod 2, 0], %glb[%i * 64], %tout[%i mod 2], %c64 : memref<2x64xf32, 2>, memref<256xf32, 1>, memref<2xi32, 3>
  }
  affine.dma_wait %tout[0], %c64 : memref<2xi32, 3>
  affine.dma_wait %tout[1], %c64 : memref<2xi32, 3>
  affine.dma_start %glb[0], %B[0], %t0[0], %c256 : memref<256xf32, 1>, memref<256xf32>, memref<1xi32, 3>
  affine.dma_wait %t0[0], %c256 : memref<1xi32, 3>
  memref.dealloc %spad : memref<2x64xf32, 2>
  memref.dealloc %glb : memref<256xf32, 1>
  return
}
