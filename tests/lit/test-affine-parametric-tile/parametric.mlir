// RUN: accelsim opt %s --test-affine-parametric-tile 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err
// RUN: accelsim opt %s --test-affine-parametric-tile > %t.1 && accelsim opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: %if mlir-opt %{ %mlir-opt %t.1 > /dev/null %}
// Parametric tiling (upstream's test pass): the function's first arguments are the tile
// sizes, one per loop of each outermost perfect band. Tile-space loops count tiles from the
// constant lower bound, `lb + (ub - lb) ceildiv T` for each upper-bound result, with the
// original step; intra-tile loops run from `(it - lb) * T + lb` to the min of
// `(it - lb) * T + T * step + lb` and the original upper bounds. Bounds over symbols, dims
// and floordiv stay inside the semi-affine maps. An imperfect nest tiles its perfect band
// only. A band whose dependences forbid tiling for some tile size stays as written.

// CHECK-DAG: #[[LB:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK-DAG: #[[T20:map[0-9]*]] = affine_map<()[s0] -> (20 ceildiv s0)>
// CHECK-DAG: #[[T18:map[0-9]*]] = affine_map<()[s0] -> (18 ceildiv s0)>
// CHECK-DAG: #[[T14:map[0-9]*]] = affine_map<()[s0] -> (14 ceildiv s0)>
// CHECK-DAG: #[[U20:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 + d0 * s0, 20)>
// CHECK-DAG: #[[U18:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 + d0 * s0, 18)>
// CHECK-DAG: #[[U14:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 + d0 * s0, 14)>
// CHECK-DAG: #[[T37:map[0-9]*]] = affine_map<()[s0] -> (37 ceildiv s0 + 3)>
// CHECK-DAG: #[[TMIN:map[0-9]*]] = affine_map<()[s0, s1] -> ((s0 - 2) ceildiv s1 + 2, 28 ceildiv s1 + 2)>
// CHECK-DAG: #[[L3:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 * (d0 - 3) + 3)>
// CHECK-DAG: #[[U3:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 * 4 + s0 * (d0 - 3) + 3, 40)>
// CHECK-DAG: #[[L2:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 * (d0 - 2) + 2)>
// CHECK-DAG: #[[U2:map[0-9]*]] = affine_map<(d0)[s0, s1] -> (s1 * 3 + s1 * (d0 - 2) + 2, s0, 30)>
// CHECK-DAG: #[[TDS:map[0-9]*]] = affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>
// CHECK-DAG: #[[TFD:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 floordiv 2 ceildiv s1)>
// CHECK-DAG: #[[UDS:map[0-9]*]] = affine_map<(d0, d1)[s0, s1] -> (s1 + d1 * s1, d0 - s0)>
// CHECK-DAG: #[[UFD:map[0-9]*]] = affine_map<(d0)[s0, s1] -> (s1 * 2 + d0 * s1, s0 floordiv 2)>
// CHECK-DAG: #[[T12:map[0-9]*]] = affine_map<()[s0] -> (12 ceildiv s0)>
// CHECK-DAG: #[[U12:map[0-9]*]] = affine_map<(d0)[s0] -> (s0 + d0 * s0, 12)>

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[TI:[a-z0-9]+]]: index, %[[TJ:[a-z0-9]+]]: index, %[[TK:[a-z0-9]+]]: index
// CHECK-NEXT: affine.for %[[I0:.*]] = 0 to #[[T20]]()[%[[TI]]] {
// CHECK-NEXT: affine.for %[[J0:.*]] = 0 to #[[T18]]()[%[[TJ]]] {
// CHECK-NEXT: affine.for %[[K0:.*]] = 0 to #[[T14]]()[%[[TK]]] {
// CHECK-NEXT: affine.for %[[I:.*]] = #[[LB]](%[[I0]])[%[[TI]]] to min #[[U20]](%[[I0]])[%[[TI]]] {
// CHECK-NEXT: affine.for %[[J:.*]] = #[[LB]](%[[J0]])[%[[TJ]]] to min #[[U18]](%[[J0]])[%[[TJ]]] {
// CHECK-NEXT: affine.for %[[K:.*]] = #[[LB]](%[[K0]])[%[[TK]]] to min #[[U14]](%[[K0]])[%[[TK]]] {
// CHECK-NEXT: affine.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT: affine.load %{{.*}}[%[[K]], %[[J]]]
// CHECK-NEXT: affine.load %{{.*}}[%[[I]], %[[J]]]

// CHECK-LABEL: func.func @steps_and_offsets
// CHECK-SAME: (%[[S0:[a-z0-9]+]]: index, %[[S1:[a-z0-9]+]]: index, %{{.*}}: memref<40x30xi32>, %[[N:[A-Za-z0-9]+]]: index)
// CHECK-NEXT: affine.for %[[I0:.*]] = 3 to #[[T37]]()[%[[S0]]] step 4 {
// CHECK-NEXT: affine.for %[[J0:.*]] = 2 to min #[[TMIN]]()[%[[N]], %[[S1]]] step 3 {
// CHECK-NEXT: affine.for %{{.*}} = #[[L3]](%[[I0]])[%[[S0]]] to min #[[U3]](%[[I0]])[%[[S0]]] step 4 {
// CHECK-NEXT: affine.for %{{.*}} = #[[L2]](%[[J0]])[%[[S1]]] to min #[[U2]](%[[J0]])[%[[N]], %[[S1]]] step 3 {

// CHECK-LABEL: func.func @dim_and_symbol_bounds
// CHECK: %[[M:.*]] = memref.dim
// CHECK-NEXT: %[[NN:.*]] = memref.dim
// CHECK-NEXT: affine.for %[[I0:.*]] = 0 to #[[TDS]](%[[M]])[%[[K:.*]], %[[D0:.*]]] {
// CHECK-NEXT: affine.for %[[J0:.*]] = 0 to #[[TFD]]()[%[[NN]], %[[D1:.*]]] step 2 {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[I0]])[%[[D0]]] to min #[[UDS]](%[[M]], %[[I0]])[%[[K]], %[[D0]]] {
// CHECK-NEXT: affine.for %{{.*}} = #[[LB]](%[[J0]])[%[[D1]]] to min #[[UFD]](%[[J0]])[%[[NN]], %[[D1]]] step 2 {

// the band of an imperfect nest is its outer loop; the inner j loop is not tiled
// CHECK-LABEL: func.func @imperfect
// CHECK: affine.for %[[P0:.*]] = 0 to #[[T12]]()[%[[P:[a-z0-9]+]]] {
// CHECK-NEXT: affine.for %[[I:.*]] = #[[LB]](%[[P0]])[%[[P]]] to min #[[U12]](%[[P0]])[%[[P]]] {
// CHECK-NEXT: affine.store %{{.*}}, %{{.*}}[%[[I]]]
// CHECK-NEXT: affine.for %{{.*}} = 0 to 10 {

func.func @matmul(%ti: index, %tj: index, %tk: index, %A: memref<20x14xf32>, %B: memref<14x18xf32>, %C: memref<20x18xf32>) {
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 18 {
      affine.for %k = 0 to 14 {
        %a = affine.load %A[%i, %k] : memref<20x14xf32>
        %b = affine.load %B[%k, %j] : memref<14x18xf32>
        %c = affine.load %C[%i, %j] : memref<20x18xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<20x18xf32>
      }
    }
  }
  return
}

func.func @steps_and_offsets(%t0: index, %t1: index, %A: memref<40x30xi32>, %N: index) {
  affine.for %i = 3 to 40 step 4 {
    affine.for %j = 2 to min affine_map<()[s0] -> (s0, 30)>()[%N] step 3 {
      %v = affine.load %A[%i, %j] : memref<40x30xi32>
      %w = arith.addi %v, %v : i32
      affine.store %w, %A[%i, %j] : memref<40x30xi32>
    }
  }
  return
}

func.func @dim_and_symbol_bounds(%t0: index, %t1: index, %A: memref<?x?xf32>, %K: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  affine.for %i = 0 to affine_map<(d0)[s0] -> (d0 - s0)>(%m)[%K] {
    affine.for %j = 0 to affine_map<()[s0] -> (s0 floordiv 2)>()[%n] step 2 {
      %v = affine.load %A[%i, %j] : memref<?x?xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %A[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @imperfect(%t0: index, %t1: index, %A: memref<12x10xf32>, %x: memref<12xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 12 {
    affine.store %z, %x[%i] : memref<12xf32>
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<12x10xf32>
      %s = affine.load %x[%i] : memref<12xf32>
      %t = arith.addf %s, %a : f32
      affine.store %t, %x[%i] : memref<12xf32>
    }
  }
  affine.for %p = 0 to 12 {
    affine.for %q = 1 to 10 {
      %a = affine.load %A[%p, %q] : memref<12x10xf32>
      %b = affine.load %A[%p, %q - 1] : memref<12x10xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %A[%p, %q] : memref<12x10xf32>
    }
  }
  return
}

// a dependence of distance (1, -1): tiling the band is illegal for tile sizes above 1
// CHECK-LABEL: func.func @skewed
// CHECK-NEXT: affine.for %{{.*}} = 1 to 10 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 9 {
// CHECK-NEXT: affine.load
// REMARK: parametric.mlir:[[# @LINE + 4]]:3: remark: [test-affine-parametric-tile] band of 2 loops not tiled: tiling would reverse the flow dependence on %A
// REMARK-SAME: distance (1, -1) for some tile sizes

func.func @skewed(%t0: index, %t1: index, %A: memref<10x10xf32>) {
  affine.for %i = 1 to 10 {
    affine.for %j = 0 to 9 {
      %a = affine.load %A[%i - 1, %j + 1] : memref<10x10xf32>
      affine.store %a, %A[%i, %j] : memref<10x10xf32>
    }
  }
  return
}
