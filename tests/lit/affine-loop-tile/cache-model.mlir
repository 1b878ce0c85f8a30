// RUN: accelsim opt %s '--affine-loop-tile=cache-size=512' | filecheck %s --check-prefix=KIB512
// RUN: accelsim opt %s '--affine-loop-tile=cache-size=8' | filecheck %s --check-prefix=KIB8
// Automatic tile sizes from the cache size (upstream's MODEL case): our own model picks sizes
// that divide the trip counts (no min bounds) and whose footprint fits the cache, preferring
// long rows; a smaller cache gives smaller tiles.

// KIB512-LABEL: func.func @simple_matmul
// KIB512-NEXT: affine.for %{{.*}} = 0 to 256 step 128 {
// KIB512-NEXT: affine.for %{{.*}} = 0 to 256 step 256 {
// KIB512-NEXT: affine.for %{{.*}} = 0 to 250 step 250 {
// KIB512-NOT: min
// KIB8-LABEL: func.func @simple_matmul
// KIB8-NEXT: affine.for %{{.*}} = 0 to 256 step 4 {
// KIB8-NEXT: affine.for %{{.*}} = 0 to 256 step 4 {
// KIB8-NEXT: affine.for %{{.*}} = 0 to 250 step 250 {
// KIB8-NOT: min
func.func @simple_matmul(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 256 {
      affine.for %k = 0 to 250 {
        %l = affine.load %A[%i, %k] : memref<256x256xf32>
        %r = affine.load %B[%k, %j] : memref<256x256xf32>
        %o = affine.load %C[%i, %j] : memref<256x256xf32>
        %m = arith.mulf %l, %r : f32
        %a = arith.addf %o, %m : f32
        affine.store %a, %C[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}
