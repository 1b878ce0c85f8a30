// RUN: accelsim opt %s --convert-linalg-to-affine-loops | filecheck %s
// RUN: %if mlir-opt %{ %mlir-opt %s --convert-linalg-to-affine-loops | filecheck %s %}
// RUN: accelsim opt %s | accelsim opt - | filecheck %s --check-prefix=ROUNDTRIP
// Named ops: one loop per iterator in the op's own order, loads of the inputs then the
// output, the payload, one store; windows (strides, dilations) through affine.apply.

// CHECK-DAG: #[[WH:map[0-9]*]] = affine_map<(d0, d1) -> (d0 * 3 + d1 * 2)>
// CHECK-DAG: #[[WW:map[0-9]*]] = affine_map<(d0, d1) -> (d0 * 2 + d1)>

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: memref<4x6xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<6x5xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4x5xf32>)
// CHECK-NEXT: affine.for %[[M:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[N:.*]] = 0 to 5 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 6 {
// CHECK-NEXT: %[[a:.*]] = affine.load %[[A]][%[[M]], %[[K]]] : memref<4x6xf32>
// CHECK-NEXT: %[[b:.*]] = affine.load %[[B]][%[[K]], %[[N]]] : memref<6x5xf32>
// CHECK-NEXT: %[[c:.*]] = affine.load %[[C]][%[[M]], %[[N]]] : memref<4x5xf32>
// CHECK-NEXT: %[[p:.*]] = arith.mulf %[[a]], %[[b]] : f32
// CHECK-NEXT: %[[s:.*]] = arith.addf %[[c]], %[[p]] : f32
// CHECK-NEXT: affine.store %[[s]], %[[C]][%[[M]], %[[N]]] : memref<4x5xf32>
// CHECK-NOT: linalg.
// ROUNDTRIP: linalg.matmul ins(%A, %B : memref<4x6xf32>, memref<6x5xf32>) outs(%C : memref<4x5xf32>)
func.func @matmul(%A: memref<4x6xf32>, %B: memref<6x5xf32>, %C: memref<4x5xf32>) {
  linalg.matmul ins(%A, %B : memref<4x6xf32>, memref<6x5xf32>) outs(%C : memref<4x5xf32>)
  return
}

// (n, oh, ow, f, kh, kw, c); input rows oh * 3 + kh * 2, columns ow * 2 + kw
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[I:[a-zA-Z0-9_]+]]: {{.*}}, %[[W:[a-zA-Z0-9_]+]]: {{.*}}, %[[O:[a-zA-Z0-9_]+]]: memref<1x3x4x4xf32>)
// CHECK-NEXT: affine.for %[[n:.*]] = 0 to 1 {
// CHECK-NEXT: affine.for %[[oh:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[ow:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[f:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[kh:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[kw:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[ch:.*]] = 0 to 2 {
// CHECK-NEXT: %[[r:.*]] = affine.apply #[[WH]](%[[oh]], %[[kh]])
// CHECK-NEXT: %[[q:.*]] = affine.apply #[[WW]](%[[ow]], %[[kw]])
// CHECK-NEXT: affine.load %[[I]][%[[n]], %[[r]], %[[q]], %[[ch]]]
// CHECK-NEXT: affine.load %[[W]][%[[kh]], %[[kw]], %[[ch]], %[[f]]]
// CHECK-NEXT: affine.load %[[O]][%[[n]], %[[oh]], %[[ow]], %[[f]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{.*}}, %[[O]][%[[n]], %[[oh]], %[[ow]], %[[f]]]
// ROUNDTRIP: linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>} ins(%I, %W
func.func @conv(%I: memref<1x11x12x2xf32>, %W: memref<3x3x2x4xf32>, %O: memref<1x3x4x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>}
    ins(%I, %W : memref<1x11x12x2xf32>, memref<3x3x2x4xf32>) outs(%O : memref<1x3x4x4xf32>)
  return
}

// The window operand only gives the extents of kh and kw: it is never loaded.
// CHECK-LABEL: func.func @maxpool
// CHECK-SAME: (%[[PI:[a-zA-Z0-9_]+]]: {{.*}}, %[[PW:[a-zA-Z0-9_]+]]: memref<2x2xf32>, %[[PO:[a-zA-Z0-9_]+]]: {{.*}})
// CHECK-COUNT-6: affine.for
// CHECK-NEXT: affine.apply
// CHECK-NEXT: affine.apply
// CHECK-NEXT: %[[x:.*]] = affine.load %[[PI]]
// CHECK-NEXT: %[[o:.*]] = affine.load %[[PO]]
// CHECK-NEXT: %[[m:.*]] = arith.maximumf %[[o]], %[[x]] : f32
// CHECK-NEXT: affine.store %[[m]], %[[PO]]
// CHECK-NOT: %[[PW]][
// CHECK: return
func.func @maxpool(%I: memref<1x8x8x3xf32>, %W: memref<2x2xf32>, %O: memref<1x4x4x3xf32>) {
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%I, %W : memref<1x8x8x3xf32>, memref<2x2xf32>) outs(%O : memref<1x4x4x3xf32>)
  return
}

// fill stores its scalar; the output is not loaded
// CHECK-LABEL: func.func @fill
// CHECK-NEXT: %[[V:.*]] = arith.constant {{2.5|2.500000e\+00}} : f32
// CHECK-NEXT: affine.for %[[i:.*]] = 0 to 7 {
// CHECK-NEXT: affine.for %[[j:.*]] = 0 to 3 {
// CHECK-NEXT: affine.store %[[V]], %{{.*}}[%[[i]], %[[j]]] : memref<7x3xf32>
// CHECK-NEXT: }
func.func @fill(%O: memref<7x3xf32>) {
  %v = arith.constant 2.5 : f32
  linalg.fill ins(%v : f32) outs(%O : memref<7x3xf32>)
  return
}
