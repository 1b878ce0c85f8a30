// RUN: accelsim opt %s --affine-dma-start-hoist="fast-mem-space=1 fast-mem-capacity=1" | filecheck %s
// A copy-in's start (with its buffer's and tag's allocs) rises above the earlier nest and
// write-back, which do not touch what it reads; it stops below a write of its source (the
// wait of a DMA into it), below another copy-in (their issue order is kept), and where its
// buffer would not fit beside the ops it passes (1 KiB here).

// CHECK-LABEL: func.func @hoist
// CHECK: %af = memref.alloc() : memref<64xf32, 1>
// CHECK-NEXT: %ta = memref.alloc()
// CHECK-NEXT: affine.dma_start %a[0], %af[0], %ta[0]
// CHECK: %yf = memref.alloc()
// CHECK: affine.dma_wait %t[0]
// CHECK-NOT: memref.dealloc %yf
// CHECK: %bf = memref.alloc()
// CHECK-NEXT: %tb = memref.alloc()
// CHECK-NEXT: affine.dma_start %y[0], %bf[0], %tb[0]
func.func @hoist(%a: memref<64xf32>, %y: memref<64xf32>, %o: memref<64xf32, 1>) {
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
  %af = memref.alloc() : memref<64xf32, 1>
  %ta = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0], %af[0], %ta[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  %bf = memref.alloc() : memref<64xf32, 1>
  %tb = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %y[0], %bf[0], %tb[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %tb[0], %n : memref<1xi32, 2>
  affine.dma_wait %ta[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %u = affine.load %af[%i] : memref<64xf32, 1>
    %v = affine.load %bf[%i] : memref<64xf32, 1>
    %w = arith.addf %u, %v : f32
    affine.store %w, %o[%i] : memref<64xf32, 1>
  }
  return
}

// A 768 B buffer does not fit beside the 512 B one the nest above holds: it stays.
// CHECK-LABEL: func.func @full
// CHECK: affine.for
// CHECK: memref.dealloc %big
// CHECK-NEXT: %af = memref.alloc() : memref<192xf32, 1>
// CHECK-NEXT: %ta = memref.alloc()
// CHECK-NEXT: affine.dma_start %a[0], %af[0], %ta[0]
func.func @full(%a: memref<192xf32>, %o: memref<192xf32, 1>) {
  %n = arith.constant 192 : index
  %z = arith.constant 0.0 : f32
  %big = memref.alloc() : memref<128xf32, 1>
  affine.for %i = 0 to 128 {
    affine.store %z, %big[%i] : memref<128xf32, 1>
  }
  memref.dealloc %big : memref<128xf32, 1>
  %af = memref.alloc() : memref<192xf32, 1>
  %ta = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %a[0], %af[0], %ta[0], %n : memref<192xf32>, memref<192xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %ta[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 192 {
    %u = affine.load %af[%i] : memref<192xf32, 1>
    affine.store %u, %o[%i] : memref<192xf32, 1>
  }
  return
}
