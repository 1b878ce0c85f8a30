// RUN: accelsim opt %s --affine-producer-consumer-fusion | filecheck %s
// RUN: accelsim opt %s '--affine-producer-consumer-fusion=private-memory-space=1' | filecheck %s --check-prefix=SPACE
// RUN: accelsim opt %s --affine-producer-consumer-fusion 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// An element-wise producer and consumer through a temporary: fused at depth 2, the temporary
// is private to the fused nest and indexed by both shared IVs, so it shrinks to one element.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK: %[[T:.*]] = memref.alloc() : memref<1x1xf32>
// CHECK: affine.for %[[I:.*]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 8 {
// CHECK-NEXT: affine.load %{{.*}}[%[[I]], %[[J]]] : memref<16x8xf32>
// CHECK: affine.store %{{.*}}, %[[T]][0, 0] : memref<1x1xf32>
// CHECK-NEXT: affine.load %[[T]][0, 0] : memref<1x1xf32>
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<16x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[T]] : memref<1x1xf32>
// SPACE-LABEL: func.func @elementwise_chain
// SPACE: memref.alloc() : memref<1x1xf32, 1>
// REMARK: remark: [affine-producer-consumer-fusion] private buffer memref<16x8xf32> shrunk to memref<1x1xf32>
// REMARK: remark: [affine-producer-consumer-fusion] fused into the nest at {{.*}} at depth 2
func.func @elementwise_chain(%X: memref<16x8xf32>, %Y: memref<16x8xf32>) {
  %c = arith.constant 2.0 : f32
  %T = memref.alloc() : memref<16x8xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 8 {
      %x = affine.load %X[%i, %j] : memref<16x8xf32>
      %m = arith.mulf %x, %c : f32
      affine.store %m, %T[%i, %j] : memref<16x8xf32>
    }
  }
  affine.for %i2 = 0 to 16 {
    affine.for %j2 = 0 to 8 {
      %t = affine.load %T[%i2, %j2] : memref<16x8xf32>
      %a = arith.addf %t, %c : f32
      affine.store %a, %Y[%i2, %j2] : memref<16x8xf32>
    }
  }
  memref.dealloc %T : memref<16x8xf32>
  return
}

// A row reduction feeding a row-scaled output (rmsnorm's shape): depth 2 would read s[i]
// before its last update, so the consumer goes under the shared row loop only, after the
// producer's inner loop.
// CHECK-LABEL: func.func @row_reduction
// CHECK: affine.for %[[R:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 4 {
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[R]]] : memref<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 4 {
// CHECK-NEXT: affine.load %{{.*}}[%[[R]], %[[C]]] : memref<8x4xf32>
// CHECK-NEXT: affine.load %{{.*}}[%[[R]]] : memref<8xf32>
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// REMARK: remark: [affine-producer-consumer-fusion] fused into the nest at {{.*}} at depth 1
func.func @row_reduction(%X: memref<8x4xf32>, %s: memref<8xf32>, %Y: memref<8x4xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %a = affine.load %s[%i] : memref<8xf32>
      %x = affine.load %X[%i, %j] : memref<8x4xf32>
      %m = arith.mulf %x, %x : f32
      %n = arith.addf %a, %m : f32
      affine.store %n, %s[%i] : memref<8xf32>
    }
  }
  affine.for %k = 0 to 8 {
    affine.for %l = 0 to 4 {
      %x = affine.load %X[%k, %l] : memref<8x4xf32>
      %r = affine.load %s[%k] : memref<8xf32>
      %y = arith.mulf %x, %r : f32
      affine.store %y, %Y[%k, %l] : memref<8x4xf32>
    }
  }
  return
}

// The consumer reads the next row of what the producer writes: under a shared row loop it
// would read t[i + 1] before the producer's iteration i + 1 stored it. Refused.
// CHECK-LABEL: func.func @reads_ahead
// CHECK: affine.for
// CHECK: }
// CHECK-NEXT: affine.for
// REMARK: cases.mlir:91:3: remark: [affine-producer-consumer-fusion] not fused with the nest at {{.*}}cases.mlir:87:3: depth 1 would reverse flow dependence on %t
func.func @reads_ahead(%X: memref<9xf32>, %t: memref<9xf32>, %Y: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %x = affine.load %X[%i] : memref<9xf32>
    affine.store %x, %t[%i] : memref<9xf32>
  }
  affine.for %k = 0 to 8 {
    %a = affine.load %t[%k + 1] : memref<9xf32>
    affine.store %a, %Y[%k] : memref<8xf32>
  }
  return
}

// A private temporary indexed by the shared row IV and an inner column IV keeps its
// columns: memref<4x6xf32> becomes memref<1x6xf32>.
// CHECK-LABEL: func.func @private_row
// CHECK: memref.alloc() : memref<1x6xf32>
// CHECK: affine.store %{{.*}}, %{{.*}}[0, %{{.*}}] : memref<1x6xf32>
// CHECK-NOT: affine.for %{{.*}} = 0 to 4
func.func @private_row(%X: memref<4x6xf32>, %s: memref<4xf32>) {
  %T = memref.alloc() : memref<4x6xf32>
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 6 {
      %x = affine.load %X[%i, %j] : memref<4x6xf32>
      %m = arith.mulf %x, %x : f32
      affine.store %m, %T[%i, %j] : memref<4x6xf32>
    }
  }
  affine.for %k = 0 to 4 {
    affine.for %l = 0 to 6 {
      %a = affine.load %s[%k] : memref<4xf32>
      %t = affine.load %T[%k, 5 - %l] : memref<4x6xf32>
      %n = arith.addf %a, %t : f32
      affine.store %n, %s[%k] : memref<4xf32>
    }
  }
  memref.dealloc %T : memref<4x6xf32>
  return
}

// Outer loops with different trip counts: nothing to share, nothing fused.
// CHECK-LABEL: func.func @different_bounds
// CHECK: affine.for %{{.*}} = 0 to 8 {
// CHECK: affine.for %{{.*}} = 0 to 7 {
// REMARK: remark: [affine-producer-consumer-fusion] not fused with the nest at {{.*}}: the outermost loops differ
func.func @different_bounds(%X: memref<8xf32>, %t: memref<8xf32>, %Y: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %x = affine.load %X[%i] : memref<8xf32>
    affine.store %x, %t[%i] : memref<8xf32>
  }
  affine.for %k = 0 to 7 {
    %a = affine.load %t[%k] : memref<8xf32>
    affine.store %a, %Y[%k] : memref<8xf32>
  }
  return
}
