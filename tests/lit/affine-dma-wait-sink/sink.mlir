// RUN: accelsim opt %s --affine-dma-wait-sink | filecheck %s
// Each dma_wait moves down to the first op that touches its transfer's memory (its source,
// destination or tag); at a function's top a nest whose leading part does not touch it is
// split so the wait passes that part, where isl finds no dependence against the split.

// Two hoisted copy-ins: both started before either is waited for, the waits just before
// the nest that reads the buffers.
// CHECK-LABEL: func.func @two_copies
// CHECK: affine.dma_start %g[0], %gf[0], %t0[0]
// CHECK-NEXT: affine.dma_start %b[0], %bf[0], %t1[0]
// CHECK-NEXT: affine.dma_wait %t0[0]
// CHECK-NEXT: affine.dma_wait %t1[0]
// CHECK-NEXT: affine.for
func.func @two_copies(%g: memref<64xf32>, %b: memref<64xf32>, %y: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %gf = memref.alloc() : memref<64xf32, 1>
  %bf = memref.alloc() : memref<64xf32, 1>
  %t0 = memref.alloc() : memref<1xi32, 2>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %g[0], %gf[0], %t0[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t0[0], %n : memref<1xi32, 2>
  affine.dma_start %b[0], %bf[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  affine.for %j = 0 to 64 {
    %u = affine.load %gf[%j] : memref<64xf32, 1>
    %v = affine.load %bf[%j] : memref<64xf32, 1>
    %w = arith.addf %u, %v : f32
    affine.store %w, %y[%j] : memref<64xf32, 1>
  }
  return
}

// pad2d's fused nest: the fill does not read the input, so the nest is split and the fill
// runs while the input arrives.
// CHECK-LABEL: func.func @pad
// CHECK: affine.dma_start %in[0, 0], %inf[0, 0], %t[0]
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.store %{{.*}}, %outf[%[[C]], %{{.*}}]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.dma_wait %t[0]
// CHECK-NEXT: affine.for %[[D:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load %inf[%[[D]], %{{.*}}]
func.func @pad(%in: memref<4x8xf32>, %out: memref<4x10xf32>) {
  %n = arith.constant 32 : index
  %z = arith.constant 0.0 : f32
  %outf = memref.alloc() : memref<4x10xf32, 1>
  %inf = memref.alloc() : memref<4x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %in[0, 0], %inf[0, 0], %t[0], %n : memref<4x8xf32>, memref<4x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %c = 0 to 4 {
    affine.for %w = 0 to 10 {
      affine.store %z, %outf[%c, %w] : memref<4x10xf32, 1>
    }
    affine.for %w = 0 to 8 {
      %x = affine.load %inf[%c, %w] : memref<4x8xf32, 1>
      affine.store %x, %outf[%c, %w + 1] : memref<4x10xf32, 1>
    }
  }
  return
}

// Not split: the second part writes what the first part reads in a later iteration
// (row c + 1 of %outf is read by the first part of iteration c + 1 after the second part
// of iteration c wrote it); the wait stays before the nest.
// CHECK-LABEL: func.func @dependent
// CHECK: affine.dma_start
// CHECK-NEXT: affine.dma_wait
// CHECK-NEXT: affine.for %{{.*}} = 0 to 3 {
// CHECK-NOT: affine.dma_wait
// CHECK: return
func.func @dependent(%in: memref<4x8xf32>, %acc: memref<4x8xf32, 1>) {
  %n = arith.constant 32 : index
  %inf = memref.alloc() : memref<4x8xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %in[0, 0], %inf[0, 0], %t[0], %n : memref<4x8xf32>, memref<4x8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %c = 0 to 3 {
    affine.for %w = 0 to 8 {
      %a = affine.load %acc[%c, %w] : memref<4x8xf32, 1>
      %d = arith.addf %a, %a : f32
      affine.store %d, %acc[%c, %w] : memref<4x8xf32, 1>
    }
    affine.for %w = 0 to 8 {
      %x = affine.load %inf[%c, %w] : memref<4x8xf32, 1>
      affine.store %x, %acc[%c + 1, %w] : memref<4x8xf32, 1>
    }
  }
  return
}

// An outgoing copy's wait passes a nest that does not touch its buffer and stops at the
// dealloc of the buffer.
// CHECK-LABEL: func.func @stops
// CHECK: affine.dma_start %buf[0], %o[0], %t[0]
// CHECK-NEXT: affine.for
// CHECK: affine.dma_wait %t[0]
// CHECK-NEXT: memref.dealloc %buf
func.func @stops(%o: memref<64xf32>, %y: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %z = arith.constant 1.0 : f32
  %buf = memref.alloc() : memref<64xf32, 1>
  %t = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %buf[0], %o[0], %t[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t[0], %n : memref<1xi32, 2>
  affine.for %j = 0 to 64 {
    affine.store %z, %y[%j] : memref<64xf32, 1>
  }
  memref.dealloc %buf : memref<64xf32, 1>
  return
}
