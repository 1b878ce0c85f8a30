// RUN: accelsim opt %s --affine-dma-start-hoist="fast-mem-space=1 fast-mem-capacity=1" | filecheck %s
// A top-level copy-in starts above the nests before it that do not touch its data, with
// the allocs of its buffer and tag; never above another copy-in's start, a nest holding
// DMAs, a write of its source, or where its buffer would not fit.

// The second nest's input starts right after the first nest's: both arrive while the
// control processor waits for the first; its wait stays where it was.
// CHECK-LABEL: func.func @two_nests
// CHECK: affine.dma_start %a[0], %af[0], %t0[0]
// CHECK-NEXT: %cf = memref.alloc()
// CHECK-NEXT: %t1 = memref.alloc()
// CHECK-NEXT: affine.dma_start %c[0], %cf[0], %t1[0]
// CHECK-NEXT: affine.dma_wait %t0[0]
// CHECK-NEXT: affine.for
// CHECK: affine.dma_wait %t1[0]
// CHECK-NEXT: affine.for
func.func @two_nests(%a: memref<64xf32>, %c: memref<64xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %af = memref.alloc() : memref<64xf32, 1>
  %t0 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0], %af[0], %t0[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t0[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %af[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  %cf = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %c[0], %cf[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %cf[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  return
}

// The first nest writes %c (the copy-in's source), and the copy-out's wait orders a write
// of %a: neither copy-in passes them.
// CHECK-LABEL: func.func @writes_source
// CHECK: affine.store %{{.*}}, %c[%{{.*}}]
// CHECK: }
// CHECK-NEXT: %cf = memref.alloc()
// CHECK: affine.dma_wait %t2[0]
// CHECK-NEXT: %af = memref.alloc()
func.func @writes_source(%a: memref<64xf32>, %c: memref<64xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  affine.for %i = 0 to 64 {
    %x = affine.load %g[%i] : memref<64xf32, 1>
    affine.store %x, %c[%i] : memref<64xf32>
  }
  %cf = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %c[0], %cf[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  %t2 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %cf[0], %a[0], %t2[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t2[0], %n : memref<1xi32, 2>
  %af = memref.alloc() : memref<64xf32, 1>
  %t3 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0], %af[0], %t3[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t3[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %af[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  return
}

// %big keeps the 1 KiB fast memory full while the first nest runs: the copy-in of %c
// starts only after %big's dealloc.
// CHECK-LABEL: func.func @no_room
// CHECK: memref.dealloc %big
// CHECK-NEXT: %cf = memref.alloc()
func.func @no_room(%c: memref<64xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %big = memref.alloc() : memref<224xf32, 1>
  affine.for %i = 0 to 64 {
    %x = affine.load %big[%i] : memref<224xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  memref.dealloc %big : memref<224xf32, 1>
  %cf = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %c[0], %cf[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %cf[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  return
}
