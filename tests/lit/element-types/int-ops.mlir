// RUN: accelsim opt %s > %t.ours && filecheck %s --input-file %t.ours
// RUN: %if mlir-opt %{ %mlir-opt %t.ours | filecheck %s %}
// RUN: %if mlir-opt %{ %mlir-opt %s > %t.m && accelsim opt %t.m | filecheck %s %}
// RUN: accelsim opt %t.ours > %t.again
// RUN: %if mlir-opt %{ %mlir-opt %t.ours > %t.up && accelsim opt %t.up | %mlir-opt > %t.up2 && diff %t.up %t.up2 %}
// RUN: diff %t.ours %t.again
// (diffs last: lit's built-in diff leaves PYTHONPATH pointing at lit for later commands)
// Integer arithmetic on signless integers: the op says signed (`si`) or unsigned (`ui`).

// CHECK-LABEL: func.func @int_ops
func.func @int_ops(%a: i8, %b: i8, %p: i4, %q: i4) -> i8 {
  // CHECK: arith.addi %{{.*}}, %{{.*}} : i8
  %0 = arith.addi %a, %b : i8
  // CHECK: arith.subi %{{.*}}, %{{.*}} : i8
  %1 = arith.subi %0, %b : i8
  // CHECK: arith.muli %{{.*}}, %{{.*}} : i4
  %2 = arith.muli %p, %q : i4
  // CHECK: arith.divsi %{{.*}}, %{{.*}} : i8
  %3 = arith.divsi %1, %b : i8
  // CHECK: arith.divui %{{.*}}, %{{.*}} : i8
  %4 = arith.divui %3, %b : i8
  // CHECK: arith.remsi %{{.*}}, %{{.*}} : i8
  %5 = arith.remsi %4, %b : i8
  // CHECK: arith.remui %{{.*}}, %{{.*}} : i4
  %6 = arith.remui %2, %q : i4
  // CHECK: arith.shli %{{.*}}, %{{.*}} : i8
  %7 = arith.shli %5, %b : i8
  // CHECK: arith.shrsi %{{.*}}, %{{.*}} : i8
  %8 = arith.shrsi %7, %b : i8
  // CHECK: arith.shrui %{{.*}}, %{{.*}} : i8
  %9 = arith.shrui %8, %b : i8
  // CHECK: arith.andi %{{.*}}, %{{.*}} : i8
  %10 = arith.andi %9, %a : i8
  // CHECK: arith.ori %{{.*}}, %{{.*}} : i8
  %11 = arith.ori %10, %a : i8
  // CHECK: arith.xori %{{.*}}, %{{.*}} : i8
  %12 = arith.xori %11, %a : i8
  // CHECK: arith.maxsi %{{.*}}, %{{.*}} : i8
  %13 = arith.maxsi %12, %a : i8
  // CHECK: arith.minsi %{{.*}}, %{{.*}} : i8
  %14 = arith.minsi %13, %a : i8
  // CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
  %15 = arith.maxui %14, %a : i8
  // CHECK: arith.minui %{{.*}}, %{{.*}} : i4
  %16 = arith.minui %6, %p : i4
  // CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
  %17 = arith.cmpi ult, %15, %a : i8
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i8
  %18 = arith.select %17, %15, %a : i8
  return %18 : i8
}
