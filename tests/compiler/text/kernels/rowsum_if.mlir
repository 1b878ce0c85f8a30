// Row sums with iter_args; rows past the first also add the previous row's first element.
#set = affine_set<(d0) : (d0 - 1 >= 0)>
func.func @rowsum(%A: memref<128x256xf32>, %out: memref<128xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  affine.for %i = 0 to 128 {
    %sum = affine.for %j = 0 to 256 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %A[%i, %j] : memref<128x256xf32>
      %acc2 = arith.addf %acc, %v : f32
      affine.yield %acc2 : f32
    }
    %r = affine.if #set(%i) -> f32 {
      %p = affine.load %A[%i - 1, 0] : memref<128x256xf32>
      %q = arith.addf %sum, %p : f32
      affine.yield %q : f32
    } else {
      affine.yield %sum : f32
    }
    affine.store %r, %out[%i] : memref<128xf32>
  }
  return
}
