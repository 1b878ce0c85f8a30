// RUN: accelsim opt %s --convert-linalg-to-affine-loops | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s --convert-linalg-to-affine-loops | filecheck %s %}
// Named ops with inputs of another element type than the output convert each input first,
// with upstream's (signed) casts: i8 x i4 -> i32 by extsi, bf16 -> f32 by extf, i8 -> f32 by
// sitofp; the same ops in the same order as mlir-opt-19.

// CHECK-LABEL: func.func @mm
func.func @mm(%A: memref<4x8xi8>, %B: memref<8x5xi4>, %C: memref<4x5xi32>,
              %X: memref<4x8xbf16>, %Y: memref<8x5xbf16>, %Z: memref<4x5xf32>,
              %P: memref<4x8xi8>, %Q: memref<8x5xi8>, %R: memref<4x5xf32>) {
  // CHECK: %[[A:.*]] = affine.load %{{.*}} : memref<4x8xi8>
  // CHECK-NEXT: %[[B:.*]] = affine.load %{{.*}} : memref<8x5xi4>
  // CHECK-NEXT: %[[C:.*]] = affine.load %{{.*}} : memref<4x5xi32>
  // CHECK-NEXT: %[[A32:.*]] = arith.extsi %[[A]] : i8 to i32
  // CHECK-NEXT: %[[B32:.*]] = arith.extsi %[[B]] : i4 to i32
  // CHECK-NEXT: %[[M:.*]] = arith.muli %[[A32]], %[[B32]] : i32
  // CHECK-NEXT: %[[S:.*]] = arith.addi %[[C]], %[[M]] : i32
  // CHECK-NEXT: affine.store %[[S]], %{{.*}} : memref<4x5xi32>
  linalg.matmul ins(%A, %B : memref<4x8xi8>, memref<8x5xi4>) outs(%C : memref<4x5xi32>)
  // CHECK: arith.extf %{{.*}} : bf16 to f32
  // CHECK-NEXT: arith.extf %{{.*}} : bf16 to f32
  // CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} : f32
  // CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : f32
  linalg.matmul ins(%X, %Y : memref<4x8xbf16>, memref<8x5xbf16>) outs(%Z : memref<4x5xf32>)
  // CHECK: arith.sitofp %{{.*}} : i8 to f32
  // CHECK-NEXT: arith.sitofp %{{.*}} : i8 to f32
  // CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} : f32
  linalg.matmul ins(%P, %Q : memref<4x8xi8>, memref<8x5xi8>) outs(%R : memref<4x5xf32>)
  return
}
