// RUN: accelsim opt %s | filecheck %s
// RUN: %if mlir-opt %{ accelsim opt %s | %mlir-opt | filecheck %s %}
// The math dialect's float ops mlir-opt-19 accepts parse and print back in its custom form
// (PolyBench's deriche uses math.powf); mlir-opt-19 reads what we print.

// CHECK-LABEL: func.func @ops
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: math.atan2 %{{.*}}, %{{.*}} : f32
// CHECK: math.copysign %{{.*}}, %{{.*}} : f32
// CHECK: math.tanh %{{.*}} : f32
// CHECK: math.erf %{{.*}} : f32
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: math.log1p %{{.*}} : f64
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: math.cbrt %{{.*}} : f64
func.func @ops(%a: f32, %b: f32, %c: f32, %d: f64) -> f32 {
  %0 = math.powf %a, %b : f32
  %1 = math.fma %0, %b, %c : f32
  %2 = math.atan2 %1, %b : f32
  %3 = math.copysign %2, %c : f32
  %4 = math.tanh %3 : f32
  %5 = math.erf %4 : f32
  %6 = math.rsqrt %5 : f32
  %7 = math.log1p %d : f64
  %8 = math.roundeven %6 : f32
  %9 = math.cbrt %7 : f64
  return %8 : f32
}

// The generic form, as mlir-opt --mlir-print-op-generic writes it.
// CHECK-LABEL: func.func @generic
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
func.func @generic(%a: f32, %b: f32) -> f32 {
  %0 = "math.fma"(%a, %b, %a) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
  %1 = "math.powf"(%0, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  return %1 : f32
}
