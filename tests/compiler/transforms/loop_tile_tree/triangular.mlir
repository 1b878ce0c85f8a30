// RUN: --affine-loop-tile="tile-sizes=4,4,4"
// A triangular band (j < i + 1; upstream leaves it untiled): the j tile loop runs to the
// largest i + 1 of the i tile, the intra-tile j loop is clipped exactly by min(jt + 4, i + 1).

module {
  func.func @tri(%C: memref<16x16xf32>, %A: memref<16x8xf32>) {
    affine.for %i = 0 to 16 {
      affine.for %k = 0 to 8 {
        affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
          %c = affine.load %C[%i, %j] : memref<16x16xf32>
          %a = affine.load %A[%i, %k] : memref<16x8xf32>
          %b = affine.load %A[%j, %k] : memref<16x8xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<16x16xf32>
        }
      }
    }
    return
  }
}
