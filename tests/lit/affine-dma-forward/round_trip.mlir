// RUN: accelsim opt %s --affine-dma-forward="fast-mem-space=1 fast-mem-capacity=1" | filecheck %s
// A buffer written back and read straight back into a buffer of the same box is kept; the
// write-back, made dead by the later one of the same box, goes too.

// CHECK-LABEL: func.func @round_trip
// CHECK: %yf = memref.alloc() : memref<64xf32, 1>
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.store %{{.*}}, %yf[
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load %yf[
// CHECK: affine.dma_start %yf[0], %y[0], %t3[0]
// CHECK-NOT: affine.dma_start
func.func @round_trip(%y: memref<64xf32>) {
  %n = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %yf = memref.alloc() : memref<64xf32, 1>
  affine.for %i = 0 to 64 {
    affine.store %z, %yf[%i] : memref<64xf32, 1>
  }
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %yf[0], %y[0], %t[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  memref.dealloc %t : memref<1xi32, 2>
  memref.dealloc %yf : memref<64xf32, 1>
  %yg = memref.alloc() : memref<64xf32, 1>
  %t2 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %y[0], %yg[0], %t2[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t2[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %v = affine.load %yg[%i] : memref<64xf32, 1>
    %w = arith.addf %v, %v : f32
    affine.store %w, %yg[%i] : memref<64xf32, 1>
  }
  %t3 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %yg[0], %y[0], %t3[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t3[0], %n : memref<1xi32, 2>
  memref.dealloc %t3 : memref<1xi32, 2>
  memref.dealloc %yg : memref<64xf32, 1>
  return
}

// A read of the memref between the write-back and the read-back: both stay.
// CHECK-LABEL: func.func @read_between
// CHECK: affine.dma_start %yf[0], %y[0]
// CHECK: affine.load %y[
// CHECK: affine.dma_start %y[0], %yg[0]
func.func @read_between(%y: memref<64xf32>, %o: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %yf = memref.alloc() : memref<64xf32, 1>
  affine.for %i = 0 to 64 {
    affine.store %z, %yf[%i] : memref<64xf32, 1>
  }
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %yf[0], %y[0], %t[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  memref.dealloc %yf : memref<64xf32, 1>
  affine.for %i = 0 to 64 {
    %v = affine.load %y[%i] : memref<64xf32>
    affine.store %v, %o[%i] : memref<64xf32, 1>
  }
  %yg = memref.alloc() : memref<64xf32, 1>
  %t2 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %y[0], %yg[0], %t2[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t2[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %v = affine.load %yg[%i] : memref<64xf32, 1>
    affine.store %v, %o[%i] : memref<64xf32, 1>
  }
  memref.dealloc %yg : memref<64xf32, 1>
  return
}

// A scalar written back into the first element of a vector that is then read back whole
// and written back whole: the scalar's loads and stores go to that element of the vector's
// buffer, whose copy-in starts where the scalar's buffer was allocated; the scalar's
// write-back goes.
// CHECK-LABEL: func.func @part
// CHECK: %yg = memref.alloc() : memref<64xf32, 1>
// CHECK-NEXT: %t2 = memref.alloc()
// CHECK-NEXT: affine.dma_start %y[0], %yg[0], %t2[0]
// CHECK-NEXT: affine.dma_wait %t2[0]
// CHECK-NEXT: affine.store %{{.*}}, %yg[3]
// CHECK-NOT: %ys
// CHECK: affine.dma_start %yg[0], %y[0], %t3[0]
// CHECK-NOT: affine.dma_start
func.func @part(%y: memref<64xf32>) {
  %one = arith.constant 1 : index
  %n = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %ys = memref.alloc() : memref<1xf32, 1>
  affine.store %z, %ys[0] : memref<1xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %ys[0], %y[3], %t[0], %one : memref<1xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t[0], %one : memref<1xi32, 2>
  memref.dealloc %ys : memref<1xf32, 1>
  %yg = memref.alloc() : memref<64xf32, 1>
  %t2 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %y[0], %yg[0], %t2[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t2[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %v = affine.load %yg[%i] : memref<64xf32, 1>
    %w = arith.addf %v, %v : f32
    affine.store %w, %yg[%i] : memref<64xf32, 1>
  }
  %t3 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %yg[0], %y[0], %t3[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t3[0], %n : memref<1xi32, 2>
  memref.dealloc %yg : memref<64xf32, 1>
  return
}
