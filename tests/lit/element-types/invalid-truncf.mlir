// RUN: not accelsim opt %s 2>&1 | filecheck %s
// RUN: %if mlir-opt %{ not %mlir-opt %s 2>&1 | filecheck %s --check-prefix=UPSTREAM %}
// bf16 and f16 have the same width: truncf cannot go from one to the other.

// CHECK: invalid-truncf.mlir:8:{{[0-9]+}}: error: 'arith.truncf' op operand type 'f16' and result type 'bf16' are cast incompatible (float to a narrower float)
// UPSTREAM: invalid-truncf.mlir:8:{{[0-9]+}}: error: 'arith.truncf' op operand type 'f16' and result type 'bf16' are cast incompatible
func.func @f(%a: f16) -> bf16 {
  %b = arith.truncf %a : f16 to bf16
  return %b : bf16
}
