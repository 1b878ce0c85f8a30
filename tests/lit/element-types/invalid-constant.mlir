// RUN: not accelsim opt %s 2>&1 | filecheck %s
// RUN: %if mlir-opt %{ not %mlir-opt %s 2>&1 | filecheck %s --check-prefix=UPSTREAM %}
// 16 does not fit in i4 (its values read signed are -8..7, unsigned 0..15).

// CHECK: invalid-constant.mlir:8:{{[0-9]+}}: error: integer constant 16 does not fit in i4
// UPSTREAM: invalid-constant.mlir:8:{{[0-9]+}}: error: integer constant out of range for attribute
func.func @f() -> i4 {
  %b = arith.constant 16 : i4
  return %b : i4
}
