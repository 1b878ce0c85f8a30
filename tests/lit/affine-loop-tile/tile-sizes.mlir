// RUN: accelsim opt %s '--affine-loop-tile=tile-sizes=32,16' | filecheck %s
// RUN: accelsim opt %s -o %t '--affine-loop-tile="tile-sizes=32,16"' && filecheck %s --input-file %t
// RUN: accelsim opt %s '--affine-loop-tile=tile-sizes=32,16' | accelsim opt - | filecheck %s
// RUN: accelsim opt %s '--affine-loop-tile=tile-sizes=32,16' > %t.1 && accelsim opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: %if mlir-opt %{ %mlir-opt %s '--affine-loop-tile=tile-sizes=32,16' | filecheck %s %}
// Sizes that do not divide get `min` bounds; the missing third size defaults to 4.

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[UB_I:map[0-9]*]] = affine_map<(d0) -> (d0 + 32, 50)>
// CHECK-DAG: #[[UB_J:map[0-9]*]] = affine_map<(d0) -> (d0 + 16, 40)>
// CHECK-DAG: #[[UB_K:map[0-9]*]] = affine_map<(d0) -> (d0 + 4)>
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 50 step 32 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 40 step 16 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 48 step 4 {
// CHECK-NEXT: affine.for %[[II:.*]] = #[[ID]](%[[I]]) to min #[[UB_I]](%[[I]]) {
// CHECK-NEXT: affine.for %[[JJ:.*]] = #[[ID]](%[[J]]) to min #[[UB_J]](%[[J]]) {
// CHECK-NEXT: affine.for %[[KK:.*]] = #[[ID]](%[[K]]) to #[[UB_K]](%[[K]]) {
// CHECK-NEXT: affine.load %{{.*}}[%[[II]], %[[KK]]]
// CHECK-NOT: affine.for
// CHECK: return
module {
  func.func @matmul(%A: memref<50x48xf32>, %B: memref<48x40xf32>, %C: memref<50x40xf32>) {
    affine.for %i = 0 to 50 {
      affine.for %j = 0 to 40 {
        affine.for %k = 0 to 48 {
          %a = affine.load %A[%i, %k] : memref<50x48xf32>
          %b = affine.load %B[%k, %j] : memref<48x40xf32>
          %c = affine.load %C[%i, %j] : memref<50x40xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<50x40xf32>
        }
      }
    }
    return
  }
}
