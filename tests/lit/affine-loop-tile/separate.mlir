// RUN: accelsim opt %s '--affine-loop-tile=tile-size=32 separate' | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s '--affine-loop-tile=tile-size=32 separate' | filecheck %s %}
// Full/partial tile separation (upstream's separate_full_tile_2d / _1d_max_min): full
// tiles run under an affine.if with plain bounds, partial ones in the else branch keep the
// original bounds inside their min.

// CHECK-DAG: #[[LB:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[FULL:map[0-9]*]] = affine_map<(d0) -> (d0 + 32)>
// CHECK-DAG: #[[PART:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 + 32, s0)>
// CHECK-DAG: #[[PART3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2 + 32, d0, d1)>
// CHECK-DAG: #[[SET2:set[0-9]*]] = affine_set<(d0, d1)[s0, s1] : (-d0 + s0 - 32 >= 0, -d1 + s1 - 32 >= 0)>
// CHECK-DAG: #[[SET1:set[0-9]*]] = affine_set<(d0)[s0, s1] : (-d0 + s0 - 32 >= 0, -d0 + s1 - 32 >= 0)>

// CHECK-LABEL: func.func @separate_full_tile_2d
// CHECK-SAME: %[[M:[a-zA-Z0-9_]+]]: index, %[[N:[a-zA-Z0-9_]+]]: index)
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to %[[M]] step 32 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to %[[N]] step 32 {
// CHECK-NEXT: affine.if #[[SET2]](%[[I]], %[[J]])[%[[M]], %[[N]]] {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[I]]) to #[[FULL]](%[[I]]) {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[J]]) to #[[FULL]](%[[J]]) {
// CHECK: } else {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[I]]) to min #[[PART]](%[[I]])[%[[M]]] {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[J]]) to min #[[PART]](%[[J]])[%[[N]]] {

// CHECK-LABEL: func.func @separate_full_tile_1d_max_min
// CHECK-SAME: %[[P:[a-zA-Z0-9_]+]]: index, %[[Q:[a-zA-Z0-9_]+]]: index)
// CHECK-NEXT: affine.for %[[T:.*]] = max #{{.*}}(%{{.*}}, %{{.*}}) to min #{{.*}}(%[[P]], %[[Q]]) step 32 {
// CHECK-NEXT: affine.if #[[SET1]](%[[T]])[%[[P]], %[[Q]]] {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[T]]) to #[[FULL]](%[[T]]) {
// CHECK: } else {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[T]]) to min #[[PART3]](%[[P]], %[[Q]], %[[T]]) {
func.func @separate_full_tile_2d(%A: memref<?x?xf32>, %M: index, %N: index) {
  affine.for %i = 0 to %M {
    affine.for %j = 0 to %N {
      %v = affine.load %A[%i, %j] : memref<?x?xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %A[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
func.func @separate_full_tile_1d_max_min(%A: memref<?xf32>, %M: index, %N: index, %P: index, %Q: index) {
  affine.for %i = max affine_map<(d0, d1) -> (d0, d1)>(%M, %N) to min affine_map<(d0, d1) -> (d0, d1)>(%P, %Q) {
    %v = affine.load %A[%i] : memref<?xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %A[%i] : memref<?xf32>
  }
  return
}
