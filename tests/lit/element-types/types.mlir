// RUN: accelsim opt %s > %t.ours && filecheck %s --input-file %t.ours
// RUN: %if mlir-opt %{ %mlir-opt %t.ours | filecheck %s %}
// RUN: %if mlir-opt %{ %mlir-opt %s > %t.m && accelsim opt %t.m | filecheck %s %}
// RUN: accelsim opt %t.ours > %t.again
// RUN: %if mlir-opt %{ %mlir-opt %t.ours > %t.up && accelsim opt %t.up | %mlir-opt > %t.up2 && diff %t.up %t.up2 %}
// RUN: diff %t.ours %t.again
// (diffs last: lit's built-in diff leaves PYTHONPATH pointing at lit for later commands)
// Every element type as a memref element, a loaded value and a constant, printed in MLIR's
// spelling; upstream reads what we print and we read what it prints, with the same values
// (its floats come back as `1.500000e+00`, ours as the shortest exact decimal).

// CHECK-LABEL: func.func @types
// CHECK-SAME: memref<4xi4>, %{{.*}}: memref<4xi8>, %{{.*}}: memref<4xi16>, %{{.*}}: memref<4xi32>, %{{.*}}: memref<4xi64>
// CHECK-SAME: memref<4xf16>, %{{.*}}: memref<4xbf16>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf64>
// CHECK-SAME: memref<2x3xf8E4M3FN, 1>, %{{.*}}: memref<?xf8E5M2>
func.func @types(%a: memref<4xi4>, %b: memref<4xi8>, %c: memref<4xi16>, %d: memref<4xi32>, %e: memref<4xi64>,
                 %f: memref<4xf16>, %g: memref<4xbf16>, %h: memref<4xf32>, %k: memref<4xf64>,
                 %l: memref<2x3xf8E4M3FN, 1>, %m: memref<?xf8E5M2>) {
  %i = arith.constant 1 : index
  // CHECK: affine.load %{{.*}} : memref<4xi4>
  %0 = affine.load %a[%i] : memref<4xi4>
  // CHECK: affine.load %{{.*}} : memref<4xbf16>
  %1 = affine.load %g[%i] : memref<4xbf16>
  // CHECK: affine.load %{{.*}} : memref<2x3xf8E4M3FN, 1>
  %2 = affine.load %l[%i, %i] : memref<2x3xf8E4M3FN, 1>
  // CHECK: affine.load %{{.*}} : memref<?xf8E5M2>
  %3 = affine.load %m[%i] : memref<?xf8E5M2>
  // integers are signless: a constant prints as its signed reading
  // CHECK: arith.constant -8 : i4
  %c8 = arith.constant 8 : i4
  // CHECK: arith.constant 7 : i4
  %c7 = arith.constant 7 : i4
  // CHECK: arith.constant -1 : i8
  %c255 = arith.constant 255 : i8
  // CHECK: arith.constant -32768 : i16
  %cmin = arith.constant 32768 : i16
  // CHECK: arith.constant 2147483647 : i32
  %cmax = arith.constant 2147483647 : i32
  // CHECK: arith.constant -1 : i64
  %cm1 = arith.constant 0xFFFFFFFFFFFFFFFF : i64
  // a float constant holds what its type represents (ties to even)
  // CHECK: arith.constant {{1.5|1.500000e\+00}} : bf16
  %bf = arith.constant 1.5 : bf16
  // CHECK: arith.constant {{0.100098|1.000980e-01}} : bf16
  %bf01 = arith.constant 0.1 : bf16
  // CHECK: arith.constant {{0.1|9.997550e-02}} : f16
  %h01 = arith.constant 0.1 : f16
  // CHECK: arith.constant {{448.0|4.480000e\+02}} : f8E4M3FN
  %e4max = arith.constant 448.0 : f8E4M3FN
  // CHECK: arith.constant {{0.3125|3.125000e-01}} : f8E5M2
  %e5 = arith.constant 0.3 : f8E5M2
  // CHECK: arith.constant {{0.00195312|1.953130e-03}} : f8E4M3FN
  %e4sub = arith.constant 0.002 : f8E4M3FN
  // inf and NaN as raw bits
  // CHECK: arith.constant 0x7FC0 : bf16
  %bfnan = arith.constant 0x7FC0 : bf16
  // CHECK: arith.constant 0xFF80 : bf16
  %bfninf = arith.constant 0xFF80 : bf16
  // CHECK: arith.constant 0x7F : f8E4M3FN
  %e4nan = arith.constant 0x7F : f8E4M3FN
  // CHECK: arith.constant 0x7C : f8E5M2
  %e5inf = arith.constant 0x7C : f8E5M2
  // CHECK: affine.store %{{.*}} : memref<4xi4>
  affine.store %c7, %a[%i] : memref<4xi4>
  // CHECK: affine.store %{{.*}} : memref<4xbf16>
  affine.store %bf01, %g[%i] : memref<4xbf16>
  // CHECK: affine.store %{{.*}} : memref<?xf8E5M2>
  affine.store %e5inf, %m[%i] : memref<?xf8E5M2>
  return
}
