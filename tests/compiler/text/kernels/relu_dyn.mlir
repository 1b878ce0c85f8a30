// y = max(x, 0) * scale over a dynamic length %n, with a compare/select clamp at 6.
func.func @relu6(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %zero = arith.constant 0.000000e+00 : f32
  %six = arith.constant 6.000000e+00 : f32
  affine.for %i = 0 to %n {
    %v = affine.load %x[%i] : memref<?xf32>
    %r = arith.maximumf %v, %zero : f32
    %big = arith.cmpf ogt, %r, %six : f32
    %c = arith.select %big, %six, %r : f32
    %e = math.exp %c : f32
    affine.store %e, %y[%i] : memref<?xf32>
  }
  return
}
