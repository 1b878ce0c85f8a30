// RUN: not accelsim opt %s 2>&1 | filecheck %s
// Linalg on tensors is refused where it is written, with the command that bufferizes it.

// CHECK: errors.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: linalg on tensors is not supported: bufferize first
// CHECK-SAME: --one-shot-bufferize
// CHECK-NOT: Traceback
func.func @f(%A: memref<4xf32>, %B: memref<4xf32>) {
  %r = linalg.copy ins(%A : memref<4xf32>) outs(%B : memref<4xf32>) -> tensor<4xf32>
  return
}
