// RUN: accelsim opt %s > %t.ours && filecheck %s --input-file %t.ours
// RUN: %if mlir-opt %{ %mlir-opt %t.ours | filecheck %s %}
// RUN: %if mlir-opt %{ %mlir-opt %s > %t.m && accelsim opt %t.m | filecheck %s %}
// RUN: accelsim opt %t.ours > %t.again
// RUN: %if mlir-opt %{ %mlir-opt %t.ours > %t.up && accelsim opt %t.up | %mlir-opt > %t.up2 && diff %t.up %t.up2 %}
// RUN: diff %t.ours %t.again
// (diffs last: lit's built-in diff leaves PYTHONPATH pointing at lit for later commands)
// The arith casts between the element types (MLIR's rules: ext* to a wider type, trunc* to
// a narrower one, int<->float any widths, bitcast at equal widths).

// CHECK-LABEL: func.func @casts
func.func @casts(%i4v: i4, %i8v: i8, %i32v: i32, %bf: bf16, %f: f32, %e4: f8E4M3FN, %e5: f8E5M2, %h: f16, %d: f64) -> (i32, f32) {
  // CHECK: arith.extsi %{{.*}} : i4 to i32
  %0 = arith.extsi %i4v : i4 to i32
  // CHECK: arith.extui %{{.*}} : i8 to i64
  %1 = arith.extui %i8v : i8 to i64
  // CHECK: arith.trunci %{{.*}} : i32 to i4
  %2 = arith.trunci %i32v : i32 to i4
  // CHECK: arith.extf %{{.*}} : bf16 to f32
  %3 = arith.extf %bf : bf16 to f32
  // CHECK: arith.extf %{{.*}} : f8E4M3FN to bf16
  %4 = arith.extf %e4 : f8E4M3FN to bf16
  // CHECK: arith.extf %{{.*}} : f8E5M2 to f16
  %5 = arith.extf %e5 : f8E5M2 to f16
  // CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
  %6 = arith.truncf %f : f32 to f8E4M3FN
  // CHECK: arith.truncf %{{.*}} : f64 to bf16
  %7 = arith.truncf %d : f64 to bf16
  // CHECK: arith.sitofp %{{.*}} : i8 to bf16
  %8 = arith.sitofp %i8v : i8 to bf16
  // CHECK: arith.uitofp %{{.*}} : i4 to f8E5M2
  %9 = arith.uitofp %i4v : i4 to f8E5M2
  // CHECK: arith.fptosi %{{.*}} : bf16 to i8
  %10 = arith.fptosi %bf : bf16 to i8
  // CHECK: arith.fptoui %{{.*}} : f8E4M3FN to i4
  %11 = arith.fptoui %e4 : f8E4M3FN to i4
  // CHECK: arith.bitcast %{{.*}} : bf16 to i16
  %12 = arith.bitcast %bf : bf16 to i16
  // CHECK: arith.bitcast %{{.*}} : f16 to bf16
  %13 = arith.bitcast %h : f16 to bf16
  // CHECK: arith.bitcast %{{.*}} : i8 to f8E5M2
  %14 = arith.bitcast %i8v : i8 to f8E5M2
  // CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
  %15 = arith.bitcast %e4 : f8E4M3FN to i8
  // CHECK: return %{{.*}}, %{{.*}} : i32, f32
  return %0, %3 : i32, f32
}
