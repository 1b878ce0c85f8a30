// RUN: accelsim opt %s --convert-linalg-to-affine-loops | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s --convert-linalg-to-affine-loops | filecheck %s %}
// RUN: accelsim opt %s > %t.1 && accelsim opt %t.1 > %t.2 && diff %t.1 %t.2
// linalg.generic: the region is inlined in the innermost loop, block arguments replaced by
// the loaded values (only those the region uses), linalg.index by its loop variable, and
// each yielded value stored through its output's map.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
#none = affine_map<(d0, d1) -> ()>
#shift = affine_map<(d0, d1) -> (d1 + 1, d0)>

// CHECK-DAG: #[[PLUS1:map[0-9]*]] = affine_map<(d0) -> (d0 + 1)>

// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: memref<6x10xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<10xf32>, %[[Y:[a-zA-Z0-9_]+]]: memref<6x10xf32>)
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 6 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 10 {
// CHECK-NEXT: %[[x:.*]] = affine.load %[[X]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[b:.*]] = affine.load %[[B]][%[[J]]]
// CHECK-NEXT: %[[s:.*]] = arith.addf %[[x]], %[[b]] : f32
// CHECK-NEXT: %[[r:.*]] = arith.maximumf %[[s]], %[[ZERO]] : f32
// CHECK-NEXT: affine.store %[[r]], %[[Y]][%[[I]], %[[J]]]
// CHECK-NEXT: }
func.func @bias_relu(%X: memref<6x10xf32>, %b: memref<10xf32>, %Y: memref<6x10xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%X, %b : memref<6x10xf32>, memref<10xf32>) outs(%Y : memref<6x10xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// A reduction reads and writes its output each iteration.
// CHECK-LABEL: func.func @row_sum_exp
// CHECK: affine.for %[[R:.*]] = 0 to 5 {
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 8 {
// CHECK-NEXT: %[[v:.*]] = affine.load %{{.*}}[%[[R]], %[[C]]] : memref<5x8xf32>
// CHECK-NEXT: %[[acc:.*]] = affine.load %[[S:.*]][%[[R]]] : memref<5xf32>
// CHECK-NEXT: %[[e:.*]] = math.exp %[[v]] : f32
// CHECK-NEXT: %[[t:.*]] = arith.addf %[[acc]], %[[e]] : f32
// CHECK-NEXT: affine.store %[[t]], %[[S]][%[[R]]] : memref<5xf32>
func.func @row_sum_exp(%X: memref<5x8xf32>, %S: memref<5xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%X : memref<5x8xf32>) outs(%S : memref<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %t = arith.addf %out, %e : f32
    linalg.yield %t : f32
  }
  return
}

// Loop extents come from the first operand dimension a loop indexes alone: d0 from X's
// second dimension, d1 from Y's; X's first index goes through an affine.apply.
// CHECK-LABEL: func.func @transpose_shift
// CHECK-NEXT: affine.for %[[P:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[Q:.*]] = 0 to 6 {
// CHECK-NEXT: %[[q1:.*]] = affine.apply #[[PLUS1]](%[[Q]])
// CHECK-NEXT: %[[v:.*]] = affine.load %{{.*}}[%[[q1]], %[[P]]] : memref<7x4xf32>
// CHECK-NEXT: affine.store %[[v]], %{{.*}}[%[[P]], %[[Q]]] : memref<4x6xf32>
func.func @transpose_shift(%X: memref<7x4xf32>, %Y: memref<4x6xf32>) {
  linalg.generic {indexing_maps = [#shift, #id], iterator_types = ["parallel", "parallel"]}
      ins(%X : memref<7x4xf32>) outs(%Y : memref<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// A scalar input is used as it is; linalg.index is the loop variable; two outputs.
// CHECK-LABEL: func.func @index_scalar_two_outputs
// CHECK-SAME: %[[K:[a-zA-Z0-9_]+]]: f32
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 5 {
// CHECK-NEXT: %[[x:.*]] = affine.load %[[X:.*]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[z:.*]] = affine.load %[[Z:.*]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[ij:.*]] = arith.addi %[[I]], %[[J]] : index
// CHECK-NEXT: arith.index_cast %[[ij]]
// CHECK-NEXT: %[[f:.*]] = arith.sitofp
// CHECK-NEXT: %[[m:.*]] = arith.mulf %[[x]], %[[K]] : f32
// CHECK-NEXT: %[[y:.*]] = arith.addf %[[m]], %[[f]] : f32
// CHECK-NEXT: %[[d:.*]] = arith.subf %[[z]], %[[x]] : f32
// CHECK-NEXT: affine.store %[[y]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: affine.store %[[d]], %[[Z]][%[[I]], %[[J]]]
func.func @index_scalar_two_outputs(%X: memref<3x5xf32>, %k: f32, %Y: memref<3x5xf32>, %Z: memref<3x5xf32>) {
  linalg.generic {indexing_maps = [#id, #none, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%X, %k : memref<3x5xf32>, f32) outs(%Y, %Z : memref<3x5xf32>, memref<3x5xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32, %out_1: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ij = arith.addi %i, %j : index
    %ii = arith.index_cast %ij : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %m = arith.mulf %in, %s : f32
    %y = arith.addf %m, %f : f32
    %d = arith.subf %out_1, %in : f32
    linalg.yield %y, %d : f32, f32
  }
  return
}
