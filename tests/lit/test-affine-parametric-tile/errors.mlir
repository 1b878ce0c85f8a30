// RUN: not accelsim opt %s --test-affine-parametric-tile 2>&1 | filecheck %s
// Upstream's test pass errors when the function has fewer arguments than the band has
// loops; ours too, located at the band's outer loop, exit status non-zero, no traceback.
// (The other refusals are in tests/compiler/transforms/test_parametric_tile.py.)

// CHECK: errors.mlir:[[# @LINE + 4]]:3: error: too few tile sizes provided in the argument list of the function which contains the current band
// CHECK-SAME: (a band of 2 loops, @two_loops_one_size has 1 argument(s))
// CHECK-NOT: Traceback
func.func @two_loops_one_size(%A: memref<8x8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %A[%i, %j] : memref<8x8xf32>
      affine.store %v, %A[%j, %i] : memref<8x8xf32>
    }
  }
  return
}
