// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma=false fast-mem-space=1 skip-non-unit-stride-loops' 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %if mlir-opt %{ accelsim opt %s '--affine-data-copy-generate=generate-dma=false fast-mem-space=1 skip-non-unit-stride-loops' | %mlir-opt > /dev/null %}
// Point-wise copies (upstream's affine-data-copy cases): copy loops instead of DMAs. In a
// tiled matmul the buffers sit right inside the tile loops (skip-non-unit-stride-loops): C's
// 32 x 32 tile is copied in above the k tile loop and out after it, A's and B's per k tile.
// A partial last tile (min upper bound) gets a 100-element buffer and clipped copy loops. A
// max lower bound over symbols gives a buffer offset by the symbol; where those symbols make
// the loop empty the nest writes nothing, so the write-only O is written back only where the
// nest stored (upstream copies the whole box back, overwriting O with what no one wrote).

// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[P32:map[0-9]*]] = affine_map<(d0) -> (d0 + 32)>
// CHECK-DAG: #[[CLIP:map[0-9]*]] = affine_map<(d0) -> (d0 + 100, 4096)>
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 256 step 32 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 256 step 32 {
// CHECK-NEXT: %[[CF:.*]] = memref.alloc() : memref<32x32xf32, 1>
// CHECK-NEXT: affine.for %[[CI:.*]] = #[[ID]](%[[I]]) to #[[P32]](%[[I]]) {
// CHECK-NEXT: affine.for %[[CJ:.*]] = #[[ID]](%[[J]]) to #[[P32]](%[[J]]) {
// CHECK-NEXT: %[[V:.*]] = affine.load %{{.*}}[%[[CI]], %[[CJ]]] : memref<256x256xf32>
// CHECK-NEXT: affine.store %[[V]], %[[CF]][%[[CI]] - %[[I]], %[[CJ]] - %[[J]]] : memref<32x32xf32, 1>
// CHECK: affine.for %[[K:.*]] = 0 to 256 step 32 {
// CHECK-NEXT: %[[AF:.*]] = memref.alloc() : memref<32x32xf32, 1>
// CHECK: %[[BF:.*]] = memref.alloc() : memref<32x32xf32, 1>
// CHECK: affine.load %[[AF]][%{{.*}} - %[[I]], %{{.*}} - %[[K]]] : memref<32x32xf32, 1>
// CHECK-NEXT: affine.load %[[BF]][%{{.*}} - %[[K]], %{{.*}} - %[[J]]] : memref<32x32xf32, 1>
// CHECK-NEXT: affine.load %[[CF]][%{{.*}} - %[[I]], %{{.*}} - %[[J]]] : memref<32x32xf32, 1>
// CHECK: memref.dealloc %[[BF]]
// CHECK-NEXT: memref.dealloc %[[AF]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[OI:.*]] = #[[ID]](%[[I]]) to #[[P32]](%[[I]]) {
// CHECK-NEXT: affine.for %[[OJ:.*]] = #[[ID]](%[[J]]) to #[[P32]](%[[J]]) {
// CHECK-NEXT: %[[W:.*]] = affine.load %[[CF]][%[[OI]] - %[[I]], %[[OJ]] - %[[J]]]
// CHECK-NEXT: affine.store %[[W]], %{{.*}}[%[[OI]], %[[OJ]]] : memref<256x256xf32>
// CHECK: memref.dealloc %[[CF]]

// CHECK-LABEL: func.func @min_upper_bound
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 4096 step 100 {
// CHECK-NEXT: %[[MF:.*]] = memref.alloc() : memref<100xf32, 1>
// CHECK-NEXT: affine.for %[[X:.*]] = #[[ID]](%[[T]]) to min #[[CLIP]](%[[T]]) {
// CHECK-NEXT: affine.load %{{.*}}[%[[X]]] : memref<4096xf32>
// CHECK-NEXT: affine.store %{{.*}}, %[[MF]][%[[X]] - %[[T]]] : memref<100xf32, 1>
// CHECK: affine.load %[[MF]][%{{.*}} - %[[T]]] : memref<100xf32, 1>
// CHECK: affine.for %[[Y:.*]] = #[[ID]](%[[T]]) to min #[[CLIP]](%[[T]]) {
// CHECK-NEXT: affine.load %[[MF]][%[[Y]] - %[[T]]]
// CHECK-NEXT: affine.store %{{.*}}, %{{.*}}[%[[Y]]] : memref<4096xf32>

// CHECK-LABEL: func.func @max_lower_bound
// CHECK-SAME: %[[SI:[a-zA-Z0-9_]+]]: index, %[[SJ:[a-zA-Z0-9_]+]]: index)
// CHECK-NEXT: %[[BUF:.*]] = memref.alloc() : memref<2048x6xf64, 1>
// CHECK: affine.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}} - symbol(%[[SJ]]) * 6] : memref<2048x6xf64, 1>
// CHECK: %[[OF:.*]] = memref.alloc() : memref<2048xf64, 1>
// CHECK: affine.load %[[BUF]][%{{.*}}, %{{.*}} - symbol(%[[SJ]]) * 6]
// the write-back replays the nest: it stores only where the nest stored
// CHECK: affine.for %[[R:.*]] = 0 to 2048 {
// CHECK-NEXT: affine.for %{{.*}} = max #{{.*}}()[%[[SI]], %[[SJ]]] to min #{{.*}}()[%[[SI]], %[[SJ]]] {
// CHECK-NEXT: %[[E:.*]] = affine.load %[[OF]][%[[R]]] : memref<2048xf64, 1>
// CHECK-NEXT: affine.store %[[E]], %{{.*}}[%[[R]]] : memref<2048xf64>
// REMARK: remark: [affine-data-copy-generate] copy-out of %O writes back only the elements the nest stores
func.func @matmul(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  affine.for %i = 0 to 256 step 32 {
    affine.for %j = 0 to 256 step 32 {
      affine.for %k = 0 to 256 step 32 {
        affine.for %ii = affine_map<(d0) -> (d0)>(%i) to affine_map<(d0) -> (d0 + 32)>(%i) {
          affine.for %jj = affine_map<(d0) -> (d0)>(%j) to affine_map<(d0) -> (d0 + 32)>(%j) {
            affine.for %kk = affine_map<(d0) -> (d0)>(%k) to affine_map<(d0) -> (d0 + 32)>(%k) {
              %a = affine.load %A[%ii, %kk] : memref<256x256xf32>
              %b = affine.load %B[%kk, %jj] : memref<256x256xf32>
              %c = affine.load %C[%ii, %jj] : memref<256x256xf32>
              %p = arith.mulf %a, %b : f32
              %s = arith.addf %c, %p : f32
              affine.store %s, %C[%ii, %jj] : memref<256x256xf32>
            }
          }
        }
      }
    }
  }
  return
}
func.func @min_upper_bound(%A: memref<4096xf32>) {
  affine.for %i = 0 to 4096 step 100 {
    affine.for %ii = affine_map<(d0) -> (d0)>(%i) to min affine_map<(d0) -> (4096, d0 + 100)>(%i) {
      %5 = affine.load %A[%ii] : memref<4096xf32>
      %6 = arith.mulf %5, %5 : f32
      affine.store %6, %A[%ii] : memref<4096xf32>
    }
  }
  return
}
func.func @max_lower_bound(%M: memref<2048x516xf64>, %O: memref<2048xf64>, %i: index, %j: index) {
  affine.for %ii = 0 to 2048 {
    affine.for %jj = max affine_map<()[s0, s1] -> (s0 * 512, s1 * 6)>()[%i, %j] to min affine_map<()[s0, s1] -> (s0 * 512 + 512, s1 * 6 + 6)>()[%i, %j] {
      %v = affine.load %M[%ii, %jj] : memref<2048x516xf64>
      affine.store %v, %O[%ii] : memref<2048xf64>
    }
  }
  return
}
