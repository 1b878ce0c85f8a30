// The spellings upstream's own tests use (written for accelsim's tests, not copied):
// blanks inside types, vector elements, identity layouts, unnamed results, the generic form.
#id = affine_map<(d0) -> (d0)>
memref.global "private" constant @table : memref<3xi32> = dense<[1, 2, 3]>
func.func @spelling(%X: memref<16 x 8 x f32>, %V: memref<4 x vector<2 x f32>>, %D: memref<? x f32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %buf = memref.alloc() {alignment = 64} : memref<16 x f32, #id, 1>
  %tag = memref.alloc() : memref<1 x f32>
  %g = memref.get_global @table : memref<3xi32>
  %len = memref.dim %D, %c0 : memref<? x f32>
  affine.dma_start %X[%c0, %c0], %buf[%c0], %tag[%c0], %c4,
      : memref<16 x 8 x f32>, memref<16 x f32, 1>, memref<1 x f32>
  affine.dma_wait %tag[%c0], %c4 : memref<1 x f32>
  affine.for %i = 0 to %len {
    affine.load %D[%i] : memref<? x f32>
    %v = affine.load %V[0] : memref<4 x vector<2 x f32>>
    "test.use"(%v, %i) {note = "kept", n = 3 : i64} : (vector<2 x f32>, index) -> ()
  }
  %w = "test.make"() : () -> f32
  %e = memref.load %D[%c0] : memref<?xf32>
  memref.store %e, %D[%c0] : memref<?xf32>
  memref.copy %D, %D : memref<?xf32> to memref<?xf32>
  memref.dealloc %buf : memref<16 x f32, affine_map<(d0) -> (d0)>, 1>
  return %w : f32
}
