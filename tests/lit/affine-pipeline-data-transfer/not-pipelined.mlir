// RUN: accelsim opt %s --affine-pipeline-data-transfer 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err
// What is not pipelined (upstream's escaping_use, escaping_tag, live_out_use): a fast
// buffer or tag that a call takes whole, or that is read after the loop, keeps its single
// slot and the loop is unchanged, with a remark naming why. A DMA in and back out of the same
// buffer in one iteration (upstream's loop_dma_dependent, which it leaves alone) is
// pipelined here: the in-DMA of the next iteration reads rows the out-DMA does not write
// (tests/compiler/transforms/test_pipeline_upstream_cases.py runs both on the host).

// REMARK: remark: [affine-pipeline-data-transfer] won't pipeline: 'func.call' at {{.*}}not-pipelined.mlir:[[# @LINE + 44]]:5
// REMARK: remark: [affine-pipeline-data-transfer] won't pipeline this DMA: its fast buffer %buf is used outside the loop
// REMARK: remark: [affine-pipeline-data-transfer] won't pipeline: 'func.call' at {{.*}}not-pipelined.mlir:[[# @LINE + 71]]:5

// CHECK-LABEL: func.func @dependent
// CHECK: memref.alloc() : memref<2x32x32xf32, 1>
// CHECK: affine.for %{{.*}} = 1 to 16 {
// CHECK-LABEL: func.func @escaping_use
// CHECK-NOT: memref<2x
// CHECK: affine.for %{{.*}} = 0 to 16 {
// CHECK-NEXT: affine.dma_start
// CHECK-NEXT: affine.dma_wait
// CHECK-NEXT: func.call @use(%buf)
// CHECK-LABEL: func.func @live_out_use
// CHECK-NOT: memref<2x
// CHECK: affine.for %{{.*}} = 0 to 16 {
// CHECK-LABEL: func.func @escaping_tag
// CHECK-NOT: memref<2x
// CHECK: affine.for %{{.*}} = 0 to 16 {
// CHECK: func.call @use_tag(%tag)
func.func private @use(memref<32x32xf32, 1>)
func.func @dependent(%A: memref<512x32xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  %buf = memref.alloc() : memref<32x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  affine.for %i = 0 to 16 {
    affine.dma_start %A[%i * 32, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<512x32xf32>, memref<32x32xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
    affine.dma_start %buf[%c0, %c0], %A[%i * 32, %c0], %tag[%c0], %n : memref<32x32xf32, 1>, memref<512x32xf32>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  memref.dealloc %tag : memref<1xi32>
  memref.dealloc %buf : memref<32x32xf32, 1>
  return
}
func.func @escaping_use(%A: memref<512x32xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  %buf = memref.alloc() : memref<32x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  affine.for %i = 0 to 16 {
    affine.dma_start %A[%i * 32, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<512x32xf32>, memref<32x32xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
    func.call @use(%buf) : (memref<32x32xf32, 1>) -> ()
  }
  memref.dealloc %tag : memref<1xi32>
  memref.dealloc %buf : memref<32x32xf32, 1>
  return
}
func.func @live_out_use(%A: memref<512x32xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  %buf = memref.alloc() : memref<32x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  affine.for %i = 0 to 16 {
    affine.dma_start %A[%i * 32, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<512x32xf32>, memref<32x32xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  %v = affine.load %buf[0, 0] : memref<32x32xf32, 1>
  memref.dealloc %tag : memref<1xi32>
  memref.dealloc %buf : memref<32x32xf32, 1>
  return %v : f32
}
func.func private @use_tag(memref<1xi32>)
func.func @escaping_tag(%A: memref<512x32xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  %buf = memref.alloc() : memref<32x32xf32, 1>
  %tag = memref.alloc() : memref<1xi32>
  affine.for %i = 0 to 16 {
    affine.dma_start %A[%i * 32, %c0], %buf[%c0, %c0], %tag[%c0], %n : memref<512x32xf32>, memref<32x32xf32, 1>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
    func.call @use_tag(%tag) : (memref<1xi32>) -> ()
  }
  memref.dealloc %tag : memref<1xi32>
  memref.dealloc %buf : memref<32x32xf32, 1>
  return
}
