// RUN: accelsim opt %s '--affine-loop-tile=tile-size=32' | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s '--affine-loop-tile=tile-size=32' | filecheck %s %}
// Upstream's loop-tiling cases with one tile size: a band whose sizes divide (no min), a
// partial tile (min with the trip count), a tile larger than the loop (the intra-tile loop
// runs to the original bound, no min), max/min and symbolic bounds carried into the intra-tile
// min, a non-unit step scaled by the tile size, an imperfect nest tiled at its perfect outer
// band, and no tiling of a loop with iter_args.

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[UB32:map[0-9]*]] = affine_map<(d0) -> (d0 + 32)>
// CHECK-DAG: #[[UB50:map[0-9]*]] = affine_map<(d0) -> (d0 + 32, 50)>
// CHECK-DAG: #[[UB21:map[0-9]*]] = affine_map<(d0) -> (d0 + 21)>
// CHECK-DAG: #[[LB:map[0-9]*]] = affine_map<()[s0] -> (0, s0)>
// CHECK-DAG: #[[UBMM:map[0-9]*]] = affine_map<()[s0, s1] -> (s0, s1 floordiv 2)>
// CHECK-DAG: #[[UBMM_INTRA:map[0-9]*]] = affine_map<(d0)[s0, s1] -> (d0 + 32, s0, s1 floordiv 2)>
// CHECK-DAG: #[[UBSYM:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 + 32, s0)>
// CHECK-DAG: #[[SUM:map[0-9]*]] = affine_map<()[s0, s1] -> (s0 + s1)>
// CHECK-DAG: #[[UBSUM:map[0-9]*]] = affine_map<(d0)[s0, s1] -> (d0 + 32, s0 + s1)>
// CHECK-DAG: #[[UB160:map[0-9]*]] = affine_map<(d0)[s0] -> (d0 + 160, s0)>
// CHECK-DAG: #[[PLUS2:map[0-9]*]] = affine_map<(d0) -> (d0 + 2)>
// CHECK-DAG: #[[PLUS4:map[0-9]*]] = affine_map<(d0) -> (d0 + 4)>

// CHECK-LABEL: func.func @loop_tiling
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 256 step 32 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 512 step 32 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 1024 step 32 {
// CHECK-NEXT: affine.for %[[II:.*]] = #[[ID]](%[[I]]) to #[[UB32]](%[[I]]) {
// CHECK-NEXT: affine.for %[[JJ:.*]] = #[[ID]](%[[J]]) to #[[UB32]](%[[J]]) {
// CHECK-NEXT: affine.for %[[KK:.*]] = #[[ID]](%[[K]]) to #[[UB32]](%[[K]]) {
// CHECK-NEXT: affine.load %{{.*}}[%[[II]], %[[JJ]], %[[KK]]]
// CHECK: affine.for %[[X:.*]] = 0 to 50 step 32 {
// CHECK-NEXT: affine.for %[[XX:.*]] = #[[ID]](%[[X]]) to min #[[UB50]](%[[X]]) {
// CHECK: affine.for %[[Y:.*]] = 0 to 21 step 32 {
// CHECK-NEXT: affine.for %[[YY:.*]] = #[[ID]](%[[Y]]) to #[[UB21]](%[[Y]]) {
// CHECK-NEXT: affine.load %{{.*}}[%[[YY]]] : memref<21xf32>

// CHECK-LABEL: func.func @loop_max_min_bound
// CHECK-SAME: %[[L:[a-zA-Z0-9_]+]]: index, %[[M:[a-zA-Z0-9_]+]]: index, %[[U:[a-zA-Z0-9_]+]]: index
// CHECK-NEXT: affine.for %[[T:.*]] = max #[[LB]]()[%[[L]]] to min #[[UBMM]]()[%[[M]], %[[U]]] step 32 {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[T]]) to min #[[UBMM_INTRA]](%[[T]])[%[[M]], %[[U]]] {

// CHECK-LABEL: func.func @symbolic_upper_bounds
// CHECK-SAME: %[[N:[a-zA-Z0-9_]+]]: index)
// CHECK-NEXT: arith.constant
// CHECK-NEXT: affine.for %[[TI:.*]] = 0 to %[[N]] step 32 {
// CHECK-NEXT: affine.for %[[TJ:.*]] = 0 to %[[N]] step 32 {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[TI]]) to min #[[UBSYM]](%[[TI]])[%[[N]]] {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[TJ]]) to min #[[UBSYM]](%[[TJ]])[%[[N]]] {
// CHECK-NEXT: affine.store
// CHECK-NEXT: affine.for %{{.*}} = 0 to %[[N]] {
// CHECK-NEXT: affine.load
// CHECK-NEXT: affine.load
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: affine.load
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store
// CHECK-NEXT: }

// CHECK-LABEL: func.func @upper_bound_two_symbols
// CHECK-NEXT: affine.for %[[S:.*]] = 0 to #[[SUM]]()[%{{.*}}, %{{.*}}] step 32 {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[S]]) to min #[[UBSUM]](%[[S]])[%{{.*}}, %{{.*}}] {

// CHECK-LABEL: func.func @non_unit_step
// CHECK-NEXT: affine.for %[[T5:.*]] = 0 to %[[N5:.*]] step 160 {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[T5]]) to min #[[UB160]](%[[T5]])[%[[N5]]] step 5 {

// CHECK-LABEL: func.func @larger_than_trip_count
// CHECK-SAME: %[[PM:[a-zA-Z0-9_]+]]: index, %[[PN:[a-zA-Z0-9_]+]]: index)
// CHECK-NEXT: affine.for %[[A:.*]] = #[[ID]](%[[PM]]) to #[[PLUS2]](%[[PM]]) step 32 {
// CHECK-NEXT: affine.for %[[B:.*]] = #[[ID]](%[[PN]]) to #[[PLUS4]](%[[PN]]) step 32 {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[A]]) to #[[PLUS2]](%[[A]]) {
// CHECK-NEXT: affine.for %{{.*}} = #[[ID]](%[[B]]) to #[[PLUS4]](%[[B]]) {

// CHECK-LABEL: func.func @trip_count_one
// CHECK: affine.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<196608x1xf32>

// CHECK-LABEL: func.func @yield_values
// CHECK-NEXT: arith.constant
// CHECK-NEXT: affine.for %{{.*}} = 0 to 10 iter_args
// CHECK-NOT: step
// CHECK: return
func.func @loop_tiling(%A: memref<256x512x1024xf32>, %B: memref<50xf32>, %C: memref<21xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 1024 {
        %v = affine.load %A[%i, %j, %k] : memref<256x512x1024xf32>
        %w = arith.addf %v, %v : f32
        affine.store %w, %A[%i, %j, %k] : memref<256x512x1024xf32>
      }
    }
  }
  affine.for %x = 0 to 50 {
    %v = affine.load %B[%x] : memref<50xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %B[%x] : memref<50xf32>
  }
  affine.for %y = 0 to 21 {
    %v = affine.load %C[%y] : memref<21xf32>
    %w = arith.negf %v : f32
    affine.store %w, %C[%y] : memref<21xf32>
  }
  return
}
func.func @loop_max_min_bound(%A: memref<4096xi32>, %L: index, %M: index, %U: index) {
  affine.for %i = max affine_map<()[s0] -> (0, s0)>()[%L] to min affine_map<()[s0, s1] -> (s0, s1 floordiv 2)>()[%M, %U] {
    %v = affine.load %A[%i] : memref<4096xi32>
    %w = arith.addi %v, %v : i32
    affine.store %w, %A[%i] : memref<4096xi32>
  }
  return
}
func.func @symbolic_upper_bounds(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %i = 0 to %N {
    affine.for %j = 0 to %N {
      affine.store %cst, %C[%i, %j] : memref<?x?xf32>
      affine.for %k = 0 to %N {
        %a = affine.load %A[%i, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %j] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %c = affine.load %C[%i, %j] : memref<?x?xf32>
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<?x?xf32>
      }
    }
  }
  return
}
func.func @upper_bound_two_symbols(%A: memref<?xf32>, %D: index, %L: index) {
  affine.for %i = 0 to affine_map<()[s0, s1] -> (s0 + s1)>()[%D, %L] {
    %v = affine.load %A[%i] : memref<?xf32>
    affine.store %v, %A[%i] : memref<?xf32>
  }
  return
}
func.func @non_unit_step(%A: memref<50xf32>, %N: index) {
  affine.for %i = 0 to %N step 5 {
    %v = affine.load %A[%i] : memref<50xf32>
    affine.store %v, %A[%i] : memref<50xf32>
  }
  return
}
func.func @larger_than_trip_count(%A: memref<?x?xf32>, %M: index, %N: index) {
  affine.for %i = affine_map<(d0) -> (d0)>(%M) to affine_map<(d0) -> (d0 + 2)>(%M) {
    affine.for %j = affine_map<(d0) -> (d0)>(%N) to affine_map<(d0) -> (d0 + 4)>(%N) {
      %v = affine.load %A[%i, %j] : memref<?x?xf32>
      affine.store %v, %A[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
func.func @trip_count_one(%A: memref<196608x1xf32>, %B: memref<196608x1xf32>) {
  affine.for %i = 0 to 196608 {
    affine.for %j = 0 to 1 {
      %v = affine.load %A[%i, %j] : memref<196608x1xf32>
      affine.store %v, %B[%i, %j] : memref<196608x1xf32>
    }
  }
  return
}
func.func @yield_values(%A: memref<10xf32>, %S: memref<1xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 10 iter_args(%s = %zero) -> (f32) {
    %v = affine.load %A[%i] : memref<10xf32>
    %t = arith.addf %s, %v : f32
    affine.yield %t : f32
  }
  affine.store %r, %S[0] : memref<1xf32>
  return
}
