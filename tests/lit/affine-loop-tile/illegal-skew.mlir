// RUN: accelsim opt %s --affine-loop-tile=tile-sizes=4,4 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %if mlir-opt %{ %mlir-opt %s --affine-loop-tile=tile-sizes=4,4 | filecheck %s --check-prefix=UPSTREAM %}
// A[i][j] = A[i-1][j+1]: the (1, -1) dependence forbids rectangular tiles; unchanged.
// mlir-opt-19 tiles it anyway (no dependence check) and the results change
// (tests/compiler/transforms/test_loop_tile.py runs both).

// REMARK: remark: [affine-loop-tile]
// REMARK-SAME: flow dependence on %A
// UPSTREAM: affine.for %{{.*}} = 1 to 12 step 4 {

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
