// RUN: accelsim opt %s | filecheck %s
// RUN: accelsim opt %s --affine-loop-tile=tile-size=4 2>&1 | filecheck %s --check-prefix=PASS
// RUN: %if mlir-opt %{ accelsim opt %s | %mlir-opt | filecheck %s --check-prefix=UP %}
// A function of several blocks (cf.br / cf.cond_br, block arguments) is parsed, kept and
// printed back; mlir-opt-19 reads it; the passes leave its loops alone, with a remark.

// CHECK-LABEL: func.func @branches
// CHECK: cf.cond_br %c, ^bb1, ^bb2(%z : f32)
// CHECK-NEXT: ^bb1:
// CHECK: affine.for %i = 0 to 8 {
// CHECK: cf.br ^bb2(%z : f32)
// CHECK-NEXT: ^bb2(%x: f32):
// CHECK-NEXT: return
// PASS: remark: [pass-manager] @branches has 3 blocks (cf.br / cf.cond_br): the passes leave its loops alone
// PASS: affine.for %i = 0 to 8 {
// PASS-NOT: affine.for %{{.*}} = 0 to 8 step 4
// UP-LABEL: func.func @branches
// UP: cf.cond_br
// UP: ^bb2(%{{.*}}: f32):
func.func @branches(%A: memref<8xf32>, %c: i1) {
  %z = arith.constant 0.0 : f32
  cf.cond_br %c, ^bb1, ^bb2(%z : f32)
^bb1:
  affine.for %i = 0 to 8 {
    %v = affine.load %A[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %A[%i] : memref<8xf32>
  }
  cf.br ^bb2(%z : f32)
^bb2(%x: f32):
  return
}
