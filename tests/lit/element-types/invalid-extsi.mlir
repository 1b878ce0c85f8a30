// RUN: not accelsim opt %s 2>&1 | filecheck %s
// RUN: %if mlir-opt %{ not %mlir-opt %s 2>&1 | filecheck %s --check-prefix=UPSTREAM %}
// extsi must widen: both tools refuse a narrower result, at the op.

// CHECK: invalid-extsi.mlir:8:{{[0-9]+}}: error: 'arith.extsi' op operand type 'i32' and result type 'i8' are cast incompatible (integer to a wider integer)
// UPSTREAM: invalid-extsi.mlir:8:{{[0-9]+}}: error: 'arith.extsi' op operand type 'i32' and result type 'i8' are cast incompatible
func.func @f(%a: i32) -> i8 {
  %b = arith.extsi %a : i32 to i8
  return %b : i8
}
