// RUN: accelsim opt %s --affine-loop-tile=tile-sizes=4,4,4 | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s --affine-loop-tile=tile-sizes=4,4,4 | filecheck %s --check-prefix=UPSTREAM %}
// A triangular band (j < i + 1; upstream leaves it untiled): the j tile loop runs to the
// largest i + 1 of the i tile, the intra-tile j loop is clipped exactly by min(jt + 4, i + 1).

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[JT:map[0-9]*]] = affine_map<(d0) -> (d0 + 4, 16)>
// CHECK-DAG: #[[UB:map[0-9]*]] = affine_map<(d0) -> (d0 + 4)>
// CHECK-DAG: #[[JUB:map[0-9]*]] = affine_map<(d0, d1) -> (d0 + 4, d1 + 1)>
// CHECK-LABEL: func.func @tri
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 16 step 4 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 8 step 4 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to min #[[JT]](%[[I]]) step 4 {
// CHECK-NEXT: affine.for %[[II:.*]] = #[[ID]](%[[I]]) to #[[UB]](%[[I]]) {
// CHECK-NEXT: affine.for %[[KK:.*]] = #[[ID]](%[[K]]) to #[[UB]](%[[K]]) {
// CHECK-NEXT: affine.for %[[JJ:.*]] = #[[ID]](%[[J]]) to min #[[JUB]](%[[J]], %[[II]]) {
// CHECK-NEXT: affine.load %{{.*}}[%[[II]], %[[JJ]]]
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[II]], %[[JJ]]]
// upstream leaves the triangular band untiled:
// UPSTREAM-NOT: step

module {
  func.func @tri(%C: memref<16x16xf32>, %A: memref<16x8xf32>) {
    affine.for %i = 0 to 16 {
      affine.for %k = 0 to 8 {
        affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
          %c = affine.load %C[%i, %j] : memref<16x16xf32>
          %a = affine.load %A[%i, %k] : memref<16x8xf32>
          %b = affine.load %A[%j, %k] : memref<16x8xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<16x16xf32>
        }
      }
    }
    return
  }
}
