// RUN: accelsim opt %s --affine-copy-forward="fast-mem-space=1 fast-mem-capacity=1" | filecheck %s
// A copy-in of a region a fast buffer already holds (written back by a copy-out, or copied
// in before, and written by nothing since) is dropped; the nest reads that buffer, whose
// dealloc moves down to the dropped buffer's.

// The result of the first nest is written back and read back by the second: the read-back
// goes, the second nest reads %ef.
// CHECK-LABEL: func.func @round_trip
// CHECK: affine.dma_start %ef[0], %e[0], %t0[0]
// CHECK-NEXT: affine.dma_wait %t0[0]
// CHECK-NOT: memref.dealloc %ef
// CHECK-NOT: affine.dma_start %e[0]
// CHECK: affine.load %ef[%{{.*}}]
// CHECK: memref.dealloc %ef
func.func @round_trip(%a: memref<64xf32>, %e: memref<64xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %ef = memref.alloc() : memref<64xf32, 1>
  affine.for %i = 0 to 64 {
    %x = affine.load %g[%i] : memref<64xf32, 1>
    affine.store %x, %ef[%i] : memref<64xf32, 1>
  }
  %t0 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %ef[0], %e[0], %t0[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t0[0], %n : memref<1xi32, 2>
  memref.dealloc %t0 : memref<1xi32, 2>
  memref.dealloc %ef : memref<64xf32, 1>
  %ef2 = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %e[0], %ef2[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %ef2[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  memref.dealloc %t1 : memref<1xi32, 2>
  memref.dealloc %ef2 : memref<64xf32, 1>
  return
}

// Something writes %e between the copy-out and the copy-in: the copy-in stays.
// CHECK-LABEL: func.func @written_between
// CHECK: affine.store %{{.*}}, %e[5]
// CHECK: affine.dma_start %e[0], %ef2[0], %t1[0]
// CHECK: affine.load %ef2
func.func @written_between(%e: memref<64xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %ef = memref.alloc() : memref<64xf32, 1>
  %t0 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %ef[0], %e[0], %t0[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t0[0], %n : memref<1xi32, 2>
  affine.store %z, %e[5] : memref<64xf32>
  %ef2 = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %e[0], %ef2[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %ef2[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  return
}

// An input copied in twice, read only in between: the second copy goes. A different region
// of the same memref (offset 64) is not the same copy and stays.
// CHECK-LABEL: func.func @read_twice
// CHECK: affine.dma_start %d[0], %df[0], %t0[0]
// CHECK-NOT: affine.dma_start %d[0]
// CHECK: affine.dma_start %d[64], %df3[0], %t2[0]
func.func @read_twice(%d: memref<128xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %df = memref.alloc() : memref<64xf32, 1>
  %t0 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %d[0], %df[0], %t0[0], %n : memref<128xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t0[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %df[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  %df2 = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %d[0], %df2[0], %t1[0], %n : memref<128xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  %df3 = memref.alloc() : memref<64xf32, 1>
  %t2 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %d[64], %df3[0], %t2[0], %n : memref<128xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t2[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %df2[%i] : memref<64xf32, 1>
    %y = affine.load %df3[%i] : memref<64xf32, 1>
    %s = arith.addf %x, %y : f32
    affine.store %s, %g[%i] : memref<64xf32, 1>
  }
  return
}

// Keeping %ef live past its dealloc would exceed the 1 KiB capacity beside %big: kept as is.
// CHECK-LABEL: func.func @no_room
// CHECK: affine.dma_start %e[0], %ef2[0], %t1[0]
func.func @no_room(%e: memref<64xf32>, %g: memref<64xf32, 1>) {
  %n = arith.constant 64 : index
  %ef = memref.alloc() : memref<64xf32, 1>
  %t0 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %ef[0], %e[0], %t0[0], %n : memref<64xf32, 1>, memref<64xf32>, memref<1xi32, 2>
  affine.dma_wait %t0[0], %n : memref<1xi32, 2>
  memref.dealloc %ef : memref<64xf32, 1>
  %big = memref.alloc() : memref<224xf32, 1>
  memref.dealloc %big : memref<224xf32, 1>
  %ef2 = memref.alloc() : memref<64xf32, 1>
  %t1 = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %e[0], %ef2[0], %t1[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %t1[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 64 {
    %x = affine.load %ef2[%i] : memref<64xf32, 1>
    affine.store %x, %g[%i] : memref<64xf32, 1>
  }
  return
}
