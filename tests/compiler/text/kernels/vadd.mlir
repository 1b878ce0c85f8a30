// z = x + y over 1024 elements.
func.func @vadd(%x: memref<1024xf32>, %y: memref<1024xf32>, %z: memref<1024xf32>) {
  affine.for %i = 0 to 1024 {
    %a = affine.load %x[%i] : memref<1024xf32>
    %b = affine.load %y[%i] : memref<1024xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %z[%i] : memref<1024xf32>
  }
  return
}
