// RUN: accelsim opt %s '--affine-loop-tile=tile-sizes=8,4,8 tile-imperfect=true' | filecheck %s
// syrk's imperfect, triangular nest as a tree: i tiled by 8; at depth 1 the scale's j loop
// and the k loop by 4; at depth 2 the update's j by 8. Inside each i tile the scale runs
// first (its own intra-tile loops), then the k and j tiles of the update.

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[TOP:map[0-9]*]] = affine_map<(d0) -> (d0 + 8, 20)>
// CHECK-DAG: #[[SCALE_J:map[0-9]*]] = affine_map<(d0, d1) -> (d0 + 4, d1 + 1)>
// CHECK-DAG: #[[PLUS4:map[0-9]*]] = affine_map<(d0) -> (d0 + 4)>
// CHECK-DAG: #[[UPD_J:map[0-9]*]] = affine_map<(d0, d1) -> (d0 + 8, d1 + 1)>
// CHECK-LABEL: func.func @syrk
// CHECK: affine.for %[[IT:.*]] = 0 to 20 step 8 {
// CHECK-NEXT: affine.for %[[JS:.*]] = 0 to min #[[TOP]](%[[IT]]) step 4 {
// CHECK-NEXT: affine.for %[[I:.*]] = #[[ID]](%[[IT]]) to min #[[TOP]](%[[IT]]) {
// CHECK-NEXT: affine.for %[[J:.*]] = #[[ID]](%[[JS]]) to min #[[SCALE_J]](%[[JS]], %[[I]]) {
// CHECK-NEXT: affine.load %C[%[[I]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: affine.store
// CHECK: affine.for %[[KT:.*]] = 0 to 12 step 4 {
// CHECK-NEXT: affine.for %[[JT:.*]] = 0 to min #[[TOP]](%[[IT]]) step 8 {
// CHECK-NEXT: affine.for %[[I2:.*]] = #[[ID]](%[[IT]]) to min #[[TOP]](%[[IT]]) {
// CHECK-NEXT: affine.for %[[K:.*]] = #[[ID]](%[[KT]]) to #[[PLUS4]](%[[KT]]) {
// CHECK-NEXT: affine.for %[[J2:.*]] = #[[ID]](%[[JT]]) to min #[[UPD_J]](%[[JT]], %[[I2]]) {
// CHECK-NEXT: affine.load %C[%[[I2]], %[[J2]]]
// CHECK: return

#map = affine_map<(d0) -> (d0 + 1)>
module {
  func.func @syrk(%C: memref<20x20xf32>, %A: memref<20x12xf32>) {
    %alpha = arith.constant 1.5 : f32
    %beta = arith.constant 1.2 : f32
    affine.for %i = 0 to 20 {
      affine.for %j = 0 to #map(%i) {
        %c = affine.load %C[%i, %j] : memref<20x20xf32>
        %s = arith.mulf %c, %beta : f32
        affine.store %s, %C[%i, %j] : memref<20x20xf32>
      }
      affine.for %k = 0 to 12 {
        affine.for %j = 0 to #map(%i) {
          %c = affine.load %C[%i, %j] : memref<20x20xf32>
          %a = affine.load %A[%i, %k] : memref<20x12xf32>
          %p = arith.mulf %alpha, %a : f32
          %b = affine.load %A[%j, %k] : memref<20x12xf32>
          %q = arith.mulf %p, %b : f32
          %r = arith.addf %c, %q : f32
          affine.store %r, %C[%i, %j] : memref<20x20xf32>
        }
      }
    }
    return
  }
}
