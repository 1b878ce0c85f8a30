// RUN: accelsim opt %s '--affine-data-copy-generate=generate-dma=false fast-mem-space=0' > %t.1 && filecheck %s --input-file %t.1
// RUN: %if mlir-opt %{ %mlir-opt %t.1 > /dev/null %}
// A memref defined inside the range being copied (a get_global after the range's first
// load): its copy goes after the definition, never before it (upstream's placement reads it
// before it exists and its output does not verify).

// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[A:.*]] = "memref.get_global"() <{name = @g1}>
// CHECK-NEXT: %[[AF:.*]] = memref.alloc() : memref<1xi64>
// CHECK: affine.load %[[A]]
// CHECK: affine.load %[[AF]][0]
// CHECK-NEXT: %[[B:.*]] = "memref.get_global"() <{name = @g2}>
// CHECK-NEXT: %[[BF:.*]] = memref.alloc() : memref<1xi64>
// CHECK: affine.load %[[B]]
// CHECK: affine.load %[[BF]][0]
memref.global "private" constant @g1 : memref<8xi64> = dense<[0, 1, 2, 3, 4, 5, 6, 7]>
memref.global "private" constant @g2 : memref<8xi64> = dense<[7, 6, 5, 4, 3, 2, 1, 0]>

func.func @f(%s: index, %t: index) -> i64 {
  %a = memref.get_global @g1 : memref<8xi64>
  %x = affine.load %a[symbol(%s)] : memref<8xi64>
  %b = memref.get_global @g2 : memref<8xi64>
  %y = affine.load %b[symbol(%t)] : memref<8xi64>
  %r = arith.addi %x, %y : i64
  return %r : i64
}
