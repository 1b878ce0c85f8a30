// RUN: accelsim opt %s --test-affine-data-copy=memref-filter > %t.f && filecheck %s --check-prefix=FILTER --input-file %t.f
// RUN: accelsim opt %s --test-affine-data-copy=for-memref-region 2>%t.rerr > %t.r && filecheck %s --check-prefix=REGION --input-file %t.r
// RUN: filecheck %s --check-prefix=REGION-REMARK --input-file %t.rerr
// RUN: accelsim opt %s --test-affine-data-copy=capacity-kib=4 2>%t.cerr > %t.c && filecheck %s --check-prefix=CAP --input-file %t.c
// RUN: filecheck %s --check-prefix=CAP-REMARK --input-file %t.cerr
// RUN: %if mlir-opt %{ %mlir-opt %t.f > /dev/null && %mlir-opt %t.r > /dev/null && %mlir-opt %t.c > /dev/null %}
// Upstream's copy test pass, point-wise copies in memory space 0, per function with one
// outermost nest and one innermost loop (two nests: left alone).
// memref-filter: copies in the outermost loop's body for the memref of the first load of the
// innermost loop only, hoisted above the loops its region does not depend on.
// for-memref-region: one buffer for that memref around the whole nest; where the nest also
// writes it the buffer covers every access and is copied back (upstream's loses the writes).
// capacity-kib: every memref of the outermost loop's body, buffers over capacity a remark; a
// buffer allocated in the body is copied after its alloc, and copy loops of one iteration are
// inlined.

// FILTER-LABEL: func.func @tiled_matmul
// FILTER-NEXT: affine.for %[[I:.*]] = 0 to 64 step 16 {
// FILTER-NEXT: %[[AF:.*]] = memref.alloc() : memref<16x48xf32>
// FILTER: affine.store %{{.*}}, %[[AF]][%{{.*}} - %[[I]], %{{.*}}] : memref<16x48xf32>
// FILTER-NOT: memref.alloc
// FILTER: affine.load %[[AF]][%{{.*}} - %[[I]], %{{.*}}] : memref<16x48xf32>
// FILTER-NEXT: affine.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<48x32xf32>
// FILTER-NEXT: affine.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xf32>
// FILTER: memref.dealloc %[[AF]] : memref<16x48xf32>
// FILTER-NEXT: }
// FILTER-NEXT: return
// FILTER-LABEL: func.func @accumulate
// FILTER-NEXT: %[[XF:.*]] = memref.alloc() : memref<24x20xf32>
// FILTER-NEXT: affine.for %{{.*}} = 0 to 24 {
// FILTER-NEXT: affine.for %{{.*}} = 0 to 20 {
// FILTER: affine.for %{{.*}} = 0 to 30 {
// FILTER-NEXT: affine.for %[[J:.*]] = 0 to 20 {
// FILTER-NEXT: affine.for %[[K:.*]] = 0 to 24 {
// FILTER-NEXT: affine.load %[[XF]][%[[K]], %[[J]]]
// FILTER-NEXT: affine.load %{{.*}}[%{{.*}}, %[[J]]] : memref<30x20xf32>
// FILTER: memref.dealloc %[[XF]]
// FILTER-NEXT: return
// FILTER-LABEL: func.func @partial_tiles
// FILTER-NEXT: affine.for %[[T:.*]] = 0 to 250 step 64 {
// FILTER-NEXT: %[[VF:.*]] = memref.alloc() : memref<64xi32>
// FILTER-NEXT: affine.for %[[X:.*]] = #{{.*}}(%[[T]]) to min #{{.*}}(%[[T]]) {
// FILTER-NEXT: affine.load %{{.*}}[%[[X]]] : memref<250xi32>
// FILTER-NEXT: affine.store %{{.*}}, %[[VF]][%[[X]] - %[[T]]] : memref<64xi32>
// FILTER: arith.muli
// FILTER-NEXT: affine.store %{{.*}}, %[[VF]][%{{.*}} - %[[T]]] : memref<64xi32>
// FILTER-NEXT: }
// FILTER-NEXT: affine.for
// FILTER-NEXT: affine.load %[[VF]][%{{.*}} - %[[T]]] : memref<64xi32>
// FILTER-NEXT: affine.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<250xi32>
// FILTER-NEXT: }
// FILTER-NEXT: memref.dealloc %[[VF]]
// FILTER-LABEL: func.func @alloc_in_body
// FILTER: %[[TMP:.*]] = memref.alloc() : memref<1xf32>
// FILTER-NEXT: %[[TF:.*]] = memref.alloc() : memref<1xf32>
// FILTER-NEXT: affine.load %[[TMP]][0] : memref<1xf32>
// FILTER-NEXT: affine.store %{{.*}}, %[[TF]][0] : memref<1xf32>
// FILTER-NEXT: affine.store %{{.*}}, %[[TF]][0] : memref<1xf32>
// FILTER-NEXT: affine.load %[[TF]][0] : memref<1xf32>
// FILTER: affine.store %{{.*}}, %[[TMP]][0] : memref<1xf32>
// FILTER-NEXT: memref.dealloc %[[TF]]
// FILTER-NEXT: memref.dealloc %[[TMP]]
// FILTER-LABEL: func.func @two_nests
// FILTER-NOT: memref.alloc
// FILTER: return

// REGION-LABEL: func.func @tiled_matmul
// REGION-NEXT: %[[AF:.*]] = memref.alloc() : memref<64x48xf32>
// REGION-NEXT: affine.for %{{.*}} = 0 to 64 {
// REGION-NEXT: affine.for %{{.*}} = 0 to 48 {
// REGION: affine.for %{{.*}} = 0 to 64 step 16 {
// REGION-NOT: memref.alloc
// REGION: affine.load %[[AF]][%{{.*}}, %{{.*}}] : memref<64x48xf32>
// REGION: memref.dealloc %[[AF]]
// REGION-NEXT: return
// REGION-LABEL: func.func @partial_tiles
// REGION-NEXT: %[[VF:.*]] = memref.alloc() : memref<250xi32>
// REGION-NEXT: affine.for %[[X:.*]] = 0 to 250 {
// REGION-NEXT: affine.load %{{.*}}[%[[X]]] : memref<250xi32>
// REGION-NEXT: affine.store %{{.*}}, %[[VF]][%[[X]]] : memref<250xi32>
// REGION: affine.store %{{.*}}, %[[VF]][%{{.*}}] : memref<250xi32>
// the copy-out upstream lacks
// REGION: affine.for %[[Y:.*]] = 0 to 250 {
// REGION-NEXT: affine.load %[[VF]][%[[Y]]] : memref<250xi32>
// REGION-NEXT: affine.store %{{.*}}, %{{.*}}[%[[Y]]] : memref<250xi32>
// REGION: memref.dealloc %[[VF]]
// REGION-LABEL: func.func @alloc_in_body
// REGION-NOT: _fast
// REGION: return
// REGION-REMARK: remark: [test-affine-data-copy] %V: the buffer covers all 2 accesses of %V in the nest and is copied back where written (1 store(s)); upstream's covers this load's region only and never copies back
// REGION-REMARK: remark: [test-affine-data-copy] no copy for %tmp: it is allocated inside the nest

// CAP-LABEL: func.func @tiled_matmul
// CAP-NEXT: %[[BF:.*]] = memref.alloc() : memref<48x32xf32>
// CAP: affine.for %[[I:.*]] = 0 to 64 step 16 {
// CAP-NEXT: %[[AF:.*]] = memref.alloc() : memref<16x48xf32>
// CAP: %[[CF:.*]] = memref.alloc() : memref<16x32xf32>
// CAP: affine.load %[[AF]][%{{.*}} - %[[I]], %{{.*}}]
// CAP-NEXT: affine.load %[[BF]][%{{.*}}, %{{.*}}]
// CAP-NEXT: affine.load %[[CF]][%{{.*}} - %[[I]], %{{.*}}]
// CAP: affine.load %[[CF]]
// CAP-NEXT: affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xf32>
// CAP-LABEL: func.func @accumulate
// CAP: affine.for %[[I:.*]] = 0 to 30 {
// CAP-NEXT: %[[YF:.*]] = memref.alloc() : memref<1x20xf32>
// CAP: affine.load %[[YF]][0, %{{.*}}] : memref<1x20xf32>
// CAP-LABEL: func.func @alloc_in_body
// CAP-NEXT: arith.constant
// CAP-NEXT: affine.for %[[I:.*]] = 0 to 12 {
// CAP-NEXT: %[[SF:.*]] = memref.alloc() : memref<1xf32>
// CAP-NEXT: affine.load %{{.*}}[%[[I]]] : memref<12xf32>
// CAP-NEXT: affine.store %{{.*}}, %[[SF]][0] : memref<1xf32>
// CAP-NEXT: %[[TMP:.*]] = memref.alloc() : memref<1xf32>
// CAP-NEXT: %[[TF:.*]] = memref.alloc() : memref<1xf32>
// CAP-NEXT: affine.load %[[TMP]][0]
// CAP-NEXT: affine.store %{{.*}}, %[[TF]][0]
// CAP-NEXT: affine.store %{{.*}}, %[[TF]][0]
// CAP: affine.store %{{.*}}, %[[TMP]][0]
// CAP-NEXT: memref.dealloc %[[TF]]
// CAP-NEXT: memref.dealloc %[[TMP]]
// CAP-NEXT: affine.load %[[SF]][0]
// CAP-NEXT: affine.store %{{.*}}, %{{.*}}[%[[I]]] : memref<12xf32>
// CAP-NEXT: memref.dealloc %[[SF]]
// CAP-REMARK: copy.mlir:[[# @LINE + 4]]:5: remark: [test-affine-data-copy] the copy buffers for this block need 11264 bytes of fast memory, more than fast-mem-capacity (4096 bytes); copies kept (upstream warns alike)

func.func @tiled_matmul(%A: memref<64x48xf32>, %B: memref<48x32xf32>, %C: memref<64x32xf32>) {
  affine.for %i = 0 to 64 step 16 {
    affine.for %j = 0 to 32 step 16 {
      affine.for %k = 0 to 48 step 16 {
        affine.for %ii = affine_map<(d0) -> (d0)>(%i) to affine_map<(d0) -> (d0 + 16)>(%i) {
          affine.for %jj = affine_map<(d0) -> (d0)>(%j) to affine_map<(d0) -> (d0 + 16)>(%j) {
            affine.for %kk = affine_map<(d0) -> (d0)>(%k) to affine_map<(d0) -> (d0 + 16)>(%k) {
              %a = affine.load %A[%ii, %kk] : memref<64x48xf32>
              %b = affine.load %B[%kk, %jj] : memref<48x32xf32>
              %c = affine.load %C[%ii, %jj] : memref<64x32xf32>
              %p = arith.mulf %a, %b : f32
              %s = arith.addf %c, %p : f32
              affine.store %s, %C[%ii, %jj] : memref<64x32xf32>
            }
          }
        }
      }
    }
  }
  return
}

func.func @accumulate(%X: memref<24x20xf32>, %Y: memref<30x20xf32>) {
  affine.for %i = 0 to 30 {
    affine.for %j = 0 to 20 {
      affine.for %k = 0 to 24 {
        %x = affine.load %X[%k, %j] : memref<24x20xf32>
        %y = affine.load %Y[%i, %j] : memref<30x20xf32>
        %s = arith.addf %x, %y : f32
        affine.store %s, %Y[%i, %j] : memref<30x20xf32>
      }
    }
  }
  return
}

func.func @partial_tiles(%V: memref<250xi32>) {
  affine.for %t = 0 to 250 step 64 {
    affine.for %x = affine_map<(d0) -> (d0)>(%t) to min affine_map<(d0) -> (250, d0 + 64)>(%t) {
      %v = affine.load %V[%x] : memref<250xi32>
      %w = arith.muli %v, %v : i32
      affine.store %w, %V[%x] : memref<250xi32>
    }
  }
  return
}

func.func @alloc_in_body(%S: memref<12xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 12 {
    %tmp = memref.alloc() : memref<1xf32>
    affine.store %one, %tmp[0] : memref<1xf32>
    %t = affine.load %tmp[0] : memref<1xf32>
    %s = affine.load %S[%i] : memref<12xf32>
    %r = arith.addf %s, %t : f32
    affine.store %r, %S[%i] : memref<12xf32>
    memref.dealloc %tmp : memref<1xf32>
  }
  return
}

func.func @two_nests(%A: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %A[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %A[%i] : memref<8xf32>
  }
  return
}
