// RUN: accelsim opt %s --affine-copy-stream="fast-mem-space=1 chunks=2" | filecheck %s

// A column sum with its zeroing and scaling around it (covariance's mean): every piece of
// the outer loop reads every row, so the body is distributed around its inner loop and the
// sum interchanged to run row by row; the zeroing runs first, then the pieces of the sum,
// each waiting for its rows, then the scaling. The write-back stays whole: a later nest
// writes the buffer.
// CHECK-LABEL: func.func @column_sum
// CHECK: affine.dma_start %a[0, 0], %af[0, 0], %[[T0:[0-9a-z_]+]][0], %[[C32:[0-9a-z_]+]] :
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: affine.dma_start %a[4, 0], %af[4, 0], %[[T1:[0-9a-z_]+]][0], %[[C32]] :
// CHECK: affine.for %[[J0:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.store %{{.*}}, %mf[%[[J0]]]
// CHECK: affine.dma_wait %[[T0]][0]
// CHECK-NEXT: affine.for %[[I1:[a-z0-9_]+]] = max #{{.*}}() to min #{{.*}}() {
// CHECK-NEXT: affine.for %[[J1:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.load %mf[%[[J1]]]
// CHECK-NEXT: affine.load %af[%[[I1]], %[[J1]]]
// CHECK: affine.dma_wait %[[T1]][0]
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{.*}}, %mf[
// CHECK: affine.for %[[J2:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.load %mf[%[[J2]]]
// CHECK-NEXT: arith.mulf
// CHECK: affine.for
// CHECK: affine.store %{{.*}}, %af
// CHECK: affine.dma_start %af[0, 0], %a[0, 0], %u[0], %n
func.func @column_sum(%a: memref<8x8xf32>, %m: memref<8xf32>) {
  %n = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.5 : f32
  %af = memref.alloc() : memref<8x8xf32, 1>
  %mf = memref.alloc() : memref<8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0, 0], %af[0, 0], %t[0], %n : memref<8x8xf32>, memref<8x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %j = 0 to 8 {
    affine.store %z, %mf[%j] : memref<8xf32, 1>
    affine.for %i = 0 to 8 {
      %s = affine.load %mf[%j] : memref<8xf32, 1>
      %x = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %y = arith.addf %s, %x : f32
      affine.store %y, %mf[%j] : memref<8xf32, 1>
    }
    %s2 = affine.load %mf[%j] : memref<8xf32, 1>
    %y2 = arith.mulf %s2, %h : f32
    affine.store %y2, %mf[%j] : memref<8xf32, 1>
  }
  affine.for %i2 = 0 to 8 {
    affine.for %j2 = 0 to 8 {
      %x = affine.load %af[%i2, %j2] : memref<8x8xf32, 1>
      %w = affine.load %mf[%j2] : memref<8xf32, 1>
      %d = arith.subf %x, %w : f32
      affine.store %d, %af[%i2, %j2] : memref<8x8xf32, 1>
    }
  }
  %u = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %af[0, 0], %a[0, 0], %u[0], %n : memref<8x8xf32, 1>, memref<8x8xf32>, memref<1xi32, 2>
  affine.dma_wait %u[0], %n : memref<1xi32, 2>
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %u : memref<1xi32, 2>
  memref.dealloc %mf : memref<8xf32, 1>
  memref.dealloc %af : memref<8x8xf32, 1>
  return
}

// A row-major matrix read along its rows beside a vector every row reads whole (gesummv):
// the interchange would walk the matrix down its columns, so the vector is not streamed.
// CHECK-LABEL: func.func @keeps_rows_contiguous
// CHECK: affine.dma_start %x[0], %xf[0], %t[0], %m
// CHECK-NEXT: affine.dma_wait %t[0], %m
func.func @keeps_rows_contiguous(%x: memref<8xf32>, %af: memref<8x8xf32, 1>, %yf: memref<8xf32, 1>) {
  %m = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %xf = memref.alloc() : memref<8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %x[0], %xf[0], %t[0], %m : memref<8xf32>, memref<8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %m : memref<1xi32, 2>
  affine.for %i = 0 to 8 {
    affine.store %z, %yf[%i] : memref<8xf32, 1>
    affine.for %j = 0 to 8 {
      %s = affine.load %yf[%i] : memref<8xf32, 1>
      %a = affine.load %af[%i, %j] : memref<8x8xf32, 1>
      %v = affine.load %xf[%j] : memref<8xf32, 1>
      %p = arith.mulf %a, %v : f32
      %q = arith.addf %s, %p : f32
      affine.store %q, %yf[%i] : memref<8xf32, 1>
    }
  }
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %xf : memref<8xf32, 1>
  return
}
