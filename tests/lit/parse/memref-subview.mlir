// RUN: accelsim opt %s | filecheck %s --check-prefix=KEEP
// RUN: accelsim opt %s --fold-memref-alias-ops | filecheck %s --check-prefix=FOLD
// RUN: %if mlir-opt %{ accelsim opt %s | %mlir-opt | filecheck %s --check-prefix=UP %}
// A static memref.subview is kept and printed back (generic form; its strided result type
// as written), mlir-opt-19 reads it back; the front door's fold puts its offsets and strides
// into the users' subscripts.

// KEEP-LABEL: func.func @strided
// KEEP: "memref.subview"(%A) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 4, 1>, static_sizes = array<i64: 8, 8>, static_strides = array<i64: 1, 2>}> : (memref<16x16xf32>) -> memref<8x8xf32, strided<[16, 2], offset: 65>>
// KEEP: affine.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<8x8xf32, strided<[16, 2], offset: 65>>
// FOLD-LABEL: func.func @strided
// FOLD-NOT: subview
// FOLD: affine.load %A[%{{.*}} + 4, %{{.*}} * 2 + 1] : memref<16x16xf32>
// UP-LABEL: func.func @strided
// UP: memref.subview %{{.*}}[4, 1] [8, 8] [1, 2] : memref<16x16xf32> to memref<8x8xf32, strided<[16, 2], offset: 65>>
func.func @strided(%A: memref<16x16xf32>, %B: memref<8x8xf32>) {
  %s = memref.subview %A[4, 1] [8, 8] [1, 2] : memref<16x16xf32> to memref<8x8xf32, strided<[16, 2], offset: 65>>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %s[%i, %j] : memref<8x8xf32, strided<[16, 2], offset: 65>>
      affine.store %v, %B[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
