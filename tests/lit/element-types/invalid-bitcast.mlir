// RUN: not accelsim opt %s 2>&1 | filecheck %s
// RUN: %if mlir-opt %{ not %mlir-opt %s 2>&1 | filecheck %s --check-prefix=UPSTREAM %}
// bitcast keeps the bits: the widths must be equal.

// CHECK: invalid-bitcast.mlir:8:{{[0-9]+}}: error: 'arith.bitcast' op operand type 'f8E4M3FN' and result type 'i16' are cast incompatible (integer or float to one of the same bit width)
// UPSTREAM: invalid-bitcast.mlir:8:{{[0-9]+}}: error: 'arith.bitcast' op operand type 'f8E4M3FN' and result type 'i16' are cast incompatible
func.func @f(%a: f8E4M3FN) -> i16 {
  %b = arith.bitcast %a : f8E4M3FN to i16
  return %b : i16
}
