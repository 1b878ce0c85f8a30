// RUN: accelsim opt %s --affine-loop-tile=tile-sizes=4,3 | filecheck %s
// A lower bound on an outer IV (j >= i + 1): the j tiles sit on multiples of 3, the tile
// loop starts at the one holding the smallest i + 1 of the i tile, and the intra-tile loop
// starts at max(jt, i + 1).

// CHECK-DAG: #[[ALIGN:map[0-9]*]] = affine_map<(d0) -> ((d0 + 1) floordiv 3 * 3)>
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[UB_I:map[0-9]*]] = affine_map<(d0) -> (d0 + 4, 14)>
// CHECK-DAG: #[[LB_J:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1 + 1)>
// CHECK-DAG: #[[UB_J:map[0-9]*]] = affine_map<(d0) -> (d0 + 3, 14)>
// CHECK-LABEL: func.func @upper
// CHECK-NEXT: affine.for %[[IT:.*]] = 0 to 14 step 4 {
// CHECK-NEXT: affine.for %[[JT:.*]] = #[[ALIGN]](%[[IT]]) to 14 step 3 {
// CHECK-NEXT: affine.for %[[I:.*]] = #[[ID]](%[[IT]]) to min #[[UB_I]](%[[IT]]) {
// CHECK-NEXT: affine.for %[[J:.*]] = max #[[LB_J]](%[[JT]], %[[I]]) to min #[[UB_J]](%[[JT]]) {
// CHECK-NEXT: affine.load %C[%[[I]], %[[J]]]
// CHECK: return

module {
  func.func @upper(%C: memref<14x14xf32>) {
    affine.for %i = 0 to 14 {
      affine.for %j = affine_map<(d0) -> (d0 + 1)>(%i) to 14 {
        %c = affine.load %C[%i, %j] : memref<14x14xf32>
        %t = affine.load %C[%j, %i] : memref<14x14xf32>
        %s = arith.addf %c, %t : f32
        affine.store %s, %C[%i, %j] : memref<14x14xf32>
      }
    }
    return
  }
}
