// 5-point Jacobi stencil on a 66x66 grid (interior 64x64).
func.func @stencil(%In: memref<66x66xf32>, %Out: memref<66x66xf32>) {
  %quarter = arith.constant 2.500000e-01 : f32
  affine.for %i = 1 to 65 {
    affine.for %j = 1 to 65 {
      %n = affine.load %In[%i - 1, %j] : memref<66x66xf32>
      %s = affine.load %In[%i + 1, %j] : memref<66x66xf32>
      %w = affine.load %In[%i, %j - 1] : memref<66x66xf32>
      %e = affine.load %In[%i, %j + 1] : memref<66x66xf32>
      %t0 = arith.addf %n, %s : f32
      %t1 = arith.addf %w, %e : f32
      %t2 = arith.addf %t0, %t1 : f32
      %r = arith.mulf %t2, %quarter : f32
      affine.store %r, %Out[%i, %j] : memref<66x66xf32>
    }
  }
  return
}
