// RUN: accelsim opt %s '--affine-loop-tile=tile-size=8 separate' | filecheck %s
// RUN: accelsim opt %s '--affine-loop-tile=tile-size=8 separate' > %t.1 && accelsim opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: %if mlir-opt %{ %mlir-opt %s '--affine-loop-tile=tile-size=8 separate' | filecheck %s %}
// Symbolic and max/min bounds: full tiles under an affine.if, partial ones in the else
// branch keep the original bounds inside the min. A non-unit step is not separated
// (mlir-opt does not either); it only gets the min bound.

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[FULL:map[0-9]*]] = affine_map<(d0) -> (d0 + 8)>
// CHECK-DAG: #[[PART:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 + 8, 100, s0)>
// CHECK-DAG: #[[PART3:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 + 24, 100, s0)>
// CHECK-DAG: #[[SET:set[0-9]*]] = affine_set<(d0)[s0] : (-d0 + 92 >= 0, -d0 + s0 - 8 >= 0)>
// CHECK-LABEL: func.func @scale
// CHECK: affine.for %[[T:.*]] = max #{{.*}}()[%{{.*}}] to min #{{.*}}()[%[[N:[A-Za-z0-9_]*]]] step 8 {
// CHECK-NEXT: affine.if #[[SET]](%[[T]])[%[[N]]] {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[T]]) to #[[FULL]](%[[T]]) {
// CHECK: } else {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[T]]) to min #[[PART]](%[[T]])[%[[N]]] {
// CHECK-LABEL: func.func @scale_step3
// CHECK: affine.for %[[T3:.*]] = max #{{.*}}()[%{{.*}}] to min #{{.*}}()[%[[N3:[A-Za-z0-9_]*]]] step 24 {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[T3]]) to min #[[PART3]](%[[T3]])[%[[N3]]] step 3 {
// CHECK-NOT: affine.if
// CHECK: return
module {
  func.func @scale(%A: memref<100xf32>, %N: index, %M: index) {
    affine.for %i = max affine_map<()[s0] -> (0, s0)>()[%M] to min affine_map<()[s0] -> (100, s0)>()[%N] {
      %a = affine.load %A[%i] : memref<100xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %A[%i] : memref<100xf32>
    }
    return
  }
  func.func @scale_step3(%A: memref<100xf32>, %N: index, %M: index) {
    affine.for %i = max affine_map<()[s0] -> (0, s0)>()[%M] to min affine_map<()[s0] -> (100, s0)>()[%N] step 3 {
      %a = affine.load %A[%i] : memref<100xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %A[%i] : memref<100xf32>
    }
    return
  }
}
