// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma fast-mem-space=1 tag-mem-space=2' > %t.1 && filecheck %s --input-file %t.1
// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma fast-mem-space=1 tag-mem-space=2 elide-dead-copy-in=false' > %t.2 && filecheck %s --check-prefix=UPSTREAM --input-file %t.2
// No copy-in of a buffer whose every load reads what the same execution of the copy point
// stored first and whose stores write the whole box (`compiler/analysis/exposed.py`): an
// accumulator initialized in place. A load before the first store, a store after the loads
// only, or a box the stores do not cover keep the copy-in. `elide-dead-copy-in=false`:
// upstream's copy-in of every read region.

// CHECK-LABEL: func.func @init_in_place
// CHECK-NOT: affine.dma_start %O[
// CHECK: affine.dma_start %A[0, 0], %A_fast
// CHECK-NOT: affine.dma_start %O[
// CHECK: affine.dma_start %O_fast[0], %O[0]
// UPSTREAM-LABEL: func.func @init_in_place
// UPSTREAM: affine.dma_start %O[0], %O_fast[0]
// UPSTREAM: affine.dma_start %O_fast[0], %O[0]
func.func @init_in_place(%A: memref<8x4xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %z, %O[%i] : memref<8xf32>
    affine.for %j = 0 to 4 {
      %o = affine.load %O[%i] : memref<8xf32>
      %a = affine.load %A[%i, %j] : memref<8x4xf32>
      %s = arith.addf %o, %a : f32
      affine.store %s, %O[%i] : memref<8xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @accumulate_onto_memory
// CHECK: affine.dma_start %O[0], %O_fast[0]
// CHECK: affine.dma_start %O_fast[0], %O[0]
func.func @accumulate_onto_memory(%A: memref<8x4xf32>, %O: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %o = affine.load %O[%i] : memref<8xf32>
      %a = affine.load %A[%i, %j] : memref<8x4xf32>
      %s = arith.addf %o, %a : f32
      affine.store %s, %O[%i] : memref<8xf32>
    }
  }
  return
}

// The store to O[i + 1] comes after the load of O[i + 1] in the same execution: exposed.
// CHECK-LABEL: func.func @store_after_the_load
// CHECK: affine.dma_start %O[0], %O_fast[0]
func.func @store_after_the_load(%O: memref<9xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %z, %O[%i] : memref<9xf32>
    %o = affine.load %O[%i + 1] : memref<9xf32>
    %p = affine.load %O[%i] : memref<9xf32>
    %s = arith.addf %o, %p : f32
    affine.store %s, %O[%i + 1] : memref<9xf32>
  }
  return
}

// Only the even elements are initialized and read, yet the box holds the odd ones too:
// copy-in (a whole-box copy-out writes the odd ones back).
// CHECK-LABEL: func.func @box_not_covered
// CHECK: affine.dma_start %O[0], %O_fast[0]
func.func @box_not_covered(%A: memref<8xf32>, %O: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %z, %O[2 * %i] : memref<16xf32>
    %o = affine.load %O[2 * %i] : memref<16xf32>
    %a = affine.load %A[%i] : memref<8xf32>
    %s = arith.addf %o, %a : f32
    affine.store %s, %O[2 * %i] : memref<16xf32>
  }
  return
}
