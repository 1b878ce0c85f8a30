// RUN: --affine-loop-tile="tile-sizes=4,4"
// A[i][j] = A[i-1][j+1]: the (1, -1) dependence forbids rectangular tiles; unchanged.
// UPSTREAM-DIFFERS: mlir-opt-19 tiles it anyway (no dependence check) and the results change.

// CHECK-LABEL: func.func @skew
// CHECK-NEXT: affine.for %[[I:.*]] = 1 to 12 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 11 {
// CHECK-NOT: step
// CHECK: return
module {
  func.func @skew(%A: memref<12x12xf32>) {
    affine.for %i = 1 to 12 {
      affine.for %j = 0 to 11 {
        %a = affine.load %A[%i - 1, %j + 1] : memref<12x12xf32>
        affine.store %a, %A[%i, %j] : memref<12x12xf32>
      }
    }
    return
  }
}
