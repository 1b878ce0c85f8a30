// RUN: accelsim opt %s '--affine-loop-tile=tile-size=32' 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err
// RUN: not accelsim opt %s '--affine-loop-tile=cache-size=0' 2>&1 | filecheck %s --check-prefix=CACHE0
// Legality (upstream's loop-tiling-validity, loop-tile-anti-dep, loop-tile-cache-size-invalid):
// tiling is decided on the exact dependences. Upstream's diagonal case has (+d, -d)
// dependences; it starts j at 0 and reads A[i, -1], outside the memref, so the port starts at
// 1. Then i and j tiles do not line up and a square tile would run the store at (33, 32)
// before the load at (32, 33): refused, with the remark. With the tiles aligned (j from 0, the
// second read in bounds) the same dependences stay in order: tiled (upstream refuses both).
// Flow and anti dependences of distance (1, -1) would be reversed, so those bands are left
// as written with a remark (mlir-opt-19 tiles them, and their results change:
// tests/compiler/transforms/test_loop_tile.py runs these on the host).

// CHECK-LABEL: func.func @valid_to_tile
// CHECK-NEXT: affine.for %{{.*}} = 0 to 64 step 32 {
// CHECK-LABEL: func.func @illegal_loop_with_diag_dependence
// CHECK-NEXT: affine.for %{{.*}} = 0 to 64 {
// CHECK-NEXT: affine.for %{{.*}} = 1 to 64 {
// CHECK-NOT: step
// CHECK-LABEL: func.func @diag_dependence_aligned_tiles
// CHECK-NEXT: affine.for %{{.*}} = 0 to 64 step 32 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 64 step 32 {
// CHECK-LABEL: func.func @flow_dep_distance_1_neg1
// CHECK-NEXT: affine.for %{{.*}} = 1 to 1024 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 1023 {
// CHECK-NOT: step
// CHECK-LABEL: func.func @anti_dep
// CHECK-NEXT: affine.for %{{.*}} = 0 to 1023 {
// CHECK-NEXT: affine.for %{{.*}} = 1 to 1024 {
// CHECK-NOT: step
// CHECK: return

// REMARK: tiling-validity.mlir:[[# @LINE + 15]]:3: remark: [affine-loop-tile] band of 2 loops not tiled with sizes 32,32: tiling would reverse the anti dependence on %A
// REMARK-SAME: distance (1..62, -62..-1)
// REMARK: tiling-validity.mlir:[[# @LINE + 35]]:3: remark: [affine-loop-tile] band of 2 loops not tiled with sizes 32,32: tiling would reverse the flow dependence on %arr
// REMARK-SAME: distance (1, -1)
// REMARK: tiling-validity.mlir:[[# @LINE + 42]]:3: remark: [affine-loop-tile] band of 2 loops not tiled with sizes 32,32: tiling would reverse the anti dependence on %arr
// CACHE0: error: affine-loop-tile: cache-size must be a positive number of KiB, got 0
func.func @valid_to_tile(%A: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %1 = affine.load %A[%i] : memref<64xf32>
    %2 = arith.addf %1, %1 : f32
    affine.store %2, %A[%i] : memref<64xf32>
  }
  return
}
func.func @illegal_loop_with_diag_dependence(%A: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 1 to 64 {
      %0 = affine.load %A[%j, %i] : memref<64x64xf32>
      %1 = affine.load %A[%i, %j - 1] : memref<64x64xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
func.func @diag_dependence_aligned_tiles(%A: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %0 = affine.load %A[%j, %i] : memref<64x64xf32>
      %1 = affine.load %A[%i, %j] : memref<64x64xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
func.func @flow_dep_distance_1_neg1(%arr: memref<1024x1024xi32>) {
  affine.for %i = 1 to 1024 {
    affine.for %j = 0 to 1023 {
      %val = affine.load %arr[%i - 1, %j + 1] : memref<1024x1024xi32>
      affine.store %val, %arr[%i, %j] : memref<1024x1024xi32>
    }
  }
  return
}
func.func @anti_dep(%arr: memref<1024x1024xi32>) {
  affine.for %i = 0 to 1023 {
    affine.for %j = 1 to 1024 {
      %val = affine.load %arr[%i + 1, %j - 1] : memref<1024x1024xi32>
      affine.store %val, %arr[%i, %j] : memref<1024x1024xi32>
    }
  }
  return
}
