// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma fast-mem-space=1 skip-non-unit-stride-loops' | filecheck %s
// RUN: %if mlir-opt %{ accelsim opt %s '--affine-data-copy-generate=generate-dma fast-mem-space=1 skip-non-unit-stride-loops' | %mlir-opt > /dev/null %}
// DMA generation (upstream's dma-generate cases): one fast buffer per memref region, the
// region's bounding box; reads are copied in before the nest and writes copied out after,
// each with a tag and a wait; accesses are rebased into the buffer. A memref already in fast
// memory is left alone; a 2-D sub-box becomes one strided DMA; a constant row index gives a
// 1 x N buffer; several accesses to one memref share the box of their union.

// CHECK-LABEL: func.func @loop_nest_1d
// CHECK-SAME: (%[[A:.*]]: memref<256xf32>, %[[B:.*]]: memref<512xf32>, %[[F:.*]]: memref<256xf32, 1>, %[[O:.*]]: memref<256xf32>)
// CHECK: %[[N:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[AF:.*]] = memref.alloc() : memref<256xf32, 1>
// CHECK-NEXT: %[[TA:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT: affine.dma_start %[[A]][0], %[[AF]][0], %[[TA]][0], %[[N]] : memref<256xf32>, memref<256xf32, 1>, memref<1xi32>
// CHECK-NEXT: affine.dma_wait %[[TA]][0], %[[N]] : memref<1xi32>
// CHECK-NEXT: %[[BF:.*]] = memref.alloc() : memref<256xf32, 1>
// CHECK-NEXT: %[[TB:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT: affine.dma_start %[[B]][256], %[[BF]][0], %[[TB]][0], %[[N]] : memref<512xf32>, memref<256xf32, 1>, memref<1xi32>
// CHECK-NEXT: affine.dma_wait %[[TB]][0], %[[N]]
// CHECK-NEXT: %[[OF:.*]] = memref.alloc() : memref<256xf32, 1>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 256 {
// CHECK-NEXT: affine.load %[[AF]][%[[I]]] : memref<256xf32, 1>
// CHECK-NEXT: %[[IDX:.*]] = affine.apply
// CHECK-NEXT: affine.load %[[BF]][%[[IDX]] - 256] : memref<256xf32, 1>
// CHECK-NEXT: affine.load %[[F]][%[[I]]] : memref<256xf32, 1>
// CHECK: affine.store %{{.*}}, %[[OF]][%[[I]]] : memref<256xf32, 1>
// CHECK-NEXT: }
// CHECK-NEXT: %[[TO:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT: affine.dma_start %[[OF]][0], %[[O]][0], %[[TO]][0], %[[N]] : memref<256xf32, 1>, memref<256xf32>, memref<1xi32>
// CHECK-NEXT: affine.dma_wait %[[TO]][0], %[[N]]
// CHECK-COUNT-6: memref.dealloc
// CHECK-NEXT: return

// CHECK-LABEL: func.func @loop_nest_tiled
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-NEXT: affine.for %[[T0:.*]] = 0 to 256 step 32 {
// CHECK-NEXT: affine.for %[[T1:.*]] = 0 to 1024 step 32 {
// CHECK-NEXT: %[[TF:.*]] = memref.alloc() : memref<32x32xf32, 1>
// CHECK-NEXT: %[[TT:.*]] = memref.alloc() : memref<1xi32>
// a strided DMA: 1024 elements, stride 1024, 32 per stride
// CHECK-NEXT: affine.dma_start %{{.*}}[%[[T0]], %[[T1]]], %[[TF]][0, 0], %[[TT]][0], %[[C1024]], %[[C1024]], %[[C32]] : memref<256x1024xf32>, memref<32x32xf32, 1>, memref<1xi32>
// CHECK-NEXT: affine.dma_wait
// CHECK: affine.load %[[TF]][%{{.*}} - %[[T0]], %{{.*}} - %[[T1]]] : memref<32x32xf32, 1>

// CHECK-LABEL: func.func @dma_constant_dim_access
// CHECK: %[[C100:.*]] = arith.constant 100 : index
// CHECK: memref.alloc() : memref<1x100xf32, 1>
// CHECK-NEXT: memref.alloc() : memref<1xi32>
// CHECK-NEXT: affine.dma_start %{{.*}}[1, 0], %{{.*}}[0, 0], %{{.*}}[0], %[[C100]] : memref<100x100xf32>, memref<1x100xf32, 1>, memref<1xi32>

// CHECK-LABEL: func.func @multi_load_store_union
// CHECK: %[[W:.*]] = arith.constant 446 : index
// CHECK-NEXT: %[[S:.*]] = arith.constant 512 : index
// CHECK-NEXT: %[[E:.*]] = arith.constant 170372 : index
// CHECK-NEXT: %[[UF:.*]] = memref.alloc() : memref<382x446xf32, 1>
// CHECK-NEXT: memref.alloc() : memref<1xi32>
// CHECK-NEXT: affine.dma_start %{{.*}}[2, 2], %[[UF]][0, 0], %{{.*}}[0], %[[E]], %[[S]], %[[W]] : memref<512x512xf32>, memref<382x446xf32, 1>, memref<1xi32>
// CHECK: affine.load %[[UF]][%{{.*}}, %{{.*}} + 126] : memref<382x446xf32, 1>
// CHECK-NEXT: affine.load %[[UF]][%{{.*}} + 62, %{{.*}}] : memref<382x446xf32, 1>
// CHECK-NEXT: affine.store %{{.*}}, %[[UF]][%{{.*}}, %{{.*}} + 190] : memref<382x446xf32, 1>
// CHECK-NEXT: affine.store %{{.*}}, %[[UF]][%{{.*}} + 126, %{{.*}}] : memref<382x446xf32, 1>
// CHECK: affine.dma_start %[[UF]][0, 0], %{{.*}}[2, 2], %{{.*}}[0], %[[E]], %[[S]], %[[W]]

// Empty loops: nothing to copy.
// CHECK-LABEL: func.func @empty_loops
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @loop_nest_1d(%A: memref<256xf32>, %B: memref<512xf32>, %F: memref<256xf32, 1>, %O: memref<256xf32>) {
  affine.for %i = 0 to 256 {
    %a = affine.load %A[%i] : memref<256xf32>
    %idx = affine.apply affine_map<(d0) -> (d0 + 256)>(%i)
    %b = affine.load %B[%idx] : memref<512xf32>
    %f = affine.load %F[%i] : memref<256xf32, 1>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %f : f32
    affine.store %t, %O[%i] : memref<256xf32>
  }
  return
}
func.func @loop_nest_tiled(%A: memref<256x1024xf32>, %S: memref<256x1024xf32>) {
  affine.for %i0 = 0 to 256 step 32 {
    affine.for %i1 = 0 to 1024 step 32 {
      affine.for %i2 = affine_map<(d0) -> (d0)>(%i0) to affine_map<(d0) -> (d0 + 32)>(%i0) {
        affine.for %i3 = affine_map<(d0) -> (d0)>(%i1) to affine_map<(d0) -> (d0 + 32)>(%i1) {
          %v = affine.load %A[%i2, %i3] : memref<256x1024xf32>
          %w = arith.mulf %v, %v : f32
          affine.store %w, %S[%i2, %i3] : memref<256x1024xf32>
        }
      }
    }
  }
  return
}
func.func @dma_constant_dim_access(%A: memref<100x100xf32>, %O: memref<100x100xf32>) {
  %one = arith.constant 1 : index
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      %v = affine.load %A[%one, %j] : memref<100x100xf32>
      affine.store %v, %O[%i, %j] : memref<100x100xf32>
    }
  }
  return
}
func.func @multi_load_store_union(%A: memref<512x512xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 256 {
      %u = affine.load %A[%i + 2, %j + 128] : memref<512x512xf32>
      %v = affine.load %A[%i + 64, %j + 2] : memref<512x512xf32>
      affine.store %u, %A[%i + 2, %j + 192] : memref<512x512xf32>
      affine.store %v, %A[%i + 128, %j + 2] : memref<512x512xf32>
    }
  }
  return
}
func.func @empty_loops(%A: memref<1024x1024xf64>, %O: memref<1xf64>) {
  affine.for %i = 0 to 0 {
    %v = affine.load %A[0, %i] : memref<1024x1024xf64>
    affine.store %v, %O[0] : memref<1xf64>
  }
  return
}
