"""Linalg-on-memref functions the linalg tests share: one named op or generic each, the way
mlir-opt-19 prints them (`CASES[name]` is a whole module's text)."""

from __future__ import annotations

_WIN = "{{dilations = dense<{d}> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}}"


def _func(args: str, body: str, maps: str = "") -> str:
    return f"{maps}func.func @main({args}) {{\n{body}\n  return\n}}\n"


def _win(d: str, s: str) -> str:
    return _WIN.format(d=d, s=s)


CASES: dict[str, str] = {
    "matmul": _func(
        "%A: memref<12x20xf32>, %B: memref<20x9xf32>, %C: memref<12x9xf32>",
        "  linalg.matmul ins(%A, %B : memref<12x20xf32>, memref<20x9xf32>) outs(%C : memref<12x9xf32>)"),
    "matmul_i32": _func(
        "%A: memref<5x7xi32>, %B: memref<7x3xi32>, %C: memref<5x3xi32>",
        "  linalg.matmul ins(%A, %B : memref<5x7xi32>, memref<7x3xi32>) outs(%C : memref<5x3xi32>)"),
    "matmul_f64": _func(
        "%A: memref<6x8xf64>, %B: memref<8x4xf64>, %C: memref<6x4xf64>",
        "  linalg.matmul ins(%A, %B : memref<6x8xf64>, memref<8x4xf64>) outs(%C : memref<6x4xf64>)"),
    "batch_matmul": _func(
        "%A: memref<3x6x5xf32>, %B: memref<3x5x4xf32>, %C: memref<3x6x4xf32>",
        "  linalg.batch_matmul ins(%A, %B : memref<3x6x5xf32>, memref<3x5x4xf32>) "
        "outs(%C : memref<3x6x4xf32>)"),
    "matvec": _func(
        "%A: memref<9x13xf32>, %x: memref<13xf32>, %y: memref<9xf32>",
        "  linalg.matvec ins(%A, %x : memref<9x13xf32>, memref<13xf32>) outs(%y : memref<9xf32>)"),
    "conv_nhwc_hwcf": _func(
        "%I: memref<2x10x9x3xf32>, %K: memref<3x2x3x5xf32>, %O: memref<2x8x8x5xf32>",
        f"  linalg.conv_2d_nhwc_hwcf {_win('1', '1')} ins(%I, %K : memref<2x10x9x3xf32>, "
        "memref<3x2x3x5xf32>) outs(%O : memref<2x8x8x5xf32>)"),
    "conv_nhwc_hwcf_strided": _func(
        "%I: memref<1x11x12x2xf32>, %K: memref<3x3x2x4xf32>, %O: memref<1x3x4x4xf32>",
        f"  linalg.conv_2d_nhwc_hwcf {_win('[2, 1]', '[3, 2]')} ins(%I, %K : memref<1x11x12x2xf32>, "
        "memref<3x3x2x4xf32>) outs(%O : memref<1x3x4x4xf32>)"),
    "conv_nchw_fchw": _func(
        "%I: memref<1x3x13x13xf32>, %K: memref<4x3x3x3xf32>, %O: memref<1x4x5x5xf32>",
        f"  linalg.conv_2d_nchw_fchw {_win('2', '2')} ins(%I, %K : memref<1x3x13x13xf32>, "
        "memref<4x3x3x3xf32>) outs(%O : memref<1x4x5x5xf32>)"),
    "conv_nchw_fchw_plain": _func(
        "%I: memref<2x2x6x7xf32>, %K: memref<3x2x2x2xf32>, %O: memref<2x3x5x6xf32>",
        "  linalg.conv_2d_nchw_fchw ins(%I, %K : memref<2x2x6x7xf32>, memref<3x2x2x2xf32>) "
        "outs(%O : memref<2x3x5x6xf32>)"),
    "depthwise": _func(
        "%I: memref<1x9x9x4xf32>, %K: memref<3x3x4xf32>, %O: memref<1x4x4x4xf32>",
        f"  linalg.depthwise_conv_2d_nhwc_hwc {_win('1', '2')} ins(%I, %K : memref<1x9x9x4xf32>, "
        "memref<3x3x4xf32>) outs(%O : memref<1x4x4x4xf32>)"),
    **{f"pool_{layout}_{kind}": _func(
        f"%I: {i_t}, %W: memref<2x3xf32>, %O: {o_t}",
        f"  linalg.pooling_{layout}_{kind} {_win('[1, 2]', '2')} ins(%I, %W : {i_t}, memref<2x3xf32>) "
        f"outs(%O : {o_t})")
       for layout, i_t, o_t in (("nhwc", "memref<1x9x12x3xf32>", "memref<1x4x4x3xf32>"),
                                ("nchw", "memref<1x3x9x12xf32>", "memref<1x3x4x4xf32>"))
       for kind in ("sum", "max", "min") if (layout, kind) != ("nchw", "min")},
    "pool_nhwc_max_i32": _func(
        "%I: memref<1x6x6x2xi32>, %W: memref<2x2xi32>, %O: memref<1x3x3x2xi32>",
        f"  linalg.pooling_nhwc_max {_win('1', '2')} ins(%I, %W : memref<1x6x6x2xi32>, memref<2x2xi32>) "
        "outs(%O : memref<1x3x3x2xi32>)"),
    "fill": _func(
        "%O: memref<7x5x3xf32>",
        "  %cst = arith.constant 2.500000e+00 : f32\n"
        "  linalg.fill ins(%cst : f32) outs(%O : memref<7x5x3xf32>)"),
    "copy": _func(
        "%I: memref<4x6xf32>, %O: memref<4x6xf32>",
        "  linalg.copy ins(%I : memref<4x6xf32>) outs(%O : memref<4x6xf32>)"),
    "generic_bias_relu": _func(
        "%X: memref<6x10xf32>, %b: memref<10xf32>, %Y: memref<6x10xf32>",
        "  %cst = arith.constant 0.000000e+00 : f32\n"
        "  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = [\"parallel\", "
        "\"parallel\"]} ins(%X, %b : memref<6x10xf32>, memref<10xf32>) outs(%Y : memref<6x10xf32>) {\n"
        "  ^bb0(%in: f32, %in_0: f32, %out: f32):\n"
        "    %0 = arith.addf %in, %in_0 : f32\n"
        "    %1 = arith.maximumf %0, %cst : f32\n"
        "    linalg.yield %1 : f32\n"
        "  }",
        "#map = affine_map<(d0, d1) -> (d0, d1)>\n#map1 = affine_map<(d0, d1) -> (d1)>\n"),
    "generic_row_sum_exp": _func(
        "%X: memref<5x8xf32>, %S: memref<5xf32>",
        "  linalg.generic {indexing_maps = [#map, #map1], iterator_types = [\"parallel\", "
        "\"reduction\"]} ins(%X : memref<5x8xf32>) outs(%S : memref<5xf32>) {\n"
        "  ^bb0(%in: f32, %out: f32):\n"
        "    %0 = math.exp %in : f32\n"
        "    %1 = arith.addf %out, %0 : f32\n"
        "    linalg.yield %1 : f32\n"
        "  }",
        "#map = affine_map<(d0, d1) -> (d0, d1)>\n#map1 = affine_map<(d0, d1) -> (d0)>\n"),
    "generic_transpose_shift": _func(
        "%X: memref<7x4xf32>, %Y: memref<4x6xf32>",
        "  linalg.generic {indexing_maps = [#map, #map1], iterator_types = [\"parallel\", "
        "\"parallel\"]} ins(%X : memref<7x4xf32>) outs(%Y : memref<4x6xf32>) {\n"
        "  ^bb0(%in: f32, %out: f32):\n"
        "    linalg.yield %in : f32\n"
        "  }",
        "#map = affine_map<(d0, d1) -> (d1 + 1, d0)>\n#map1 = affine_map<(d0, d1) -> (d0, d1)>\n"),
    "generic_index_scalar_two_outputs": _func(
        "%X: memref<3x5xf32>, %Y: memref<3x5xf32>, %Z: memref<3x5xf32>",
        "  %cst = arith.constant 1.500000e+00 : f32\n"
        "  linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = [\"parallel\", "
        "\"parallel\"]} ins(%X, %cst : memref<3x5xf32>, f32) outs(%Y, %Z : memref<3x5xf32>, "
        "memref<3x5xf32>) {\n"
        "  ^bb0(%in: f32, %s: f32, %out: f32, %out_1: f32):\n"
        "    %i = linalg.index 0 : index\n"
        "    %j = linalg.index 1 : index\n"
        "    %k = arith.addi %i, %j : index\n"
        "    %ki = arith.index_cast %k : index to i32\n"
        "    %kf = arith.sitofp %ki : i32 to f32\n"
        "    %0 = arith.mulf %in, %s : f32\n"
        "    %1 = arith.addf %0, %kf : f32\n"
        "    %2 = arith.subf %out_1, %in : f32\n"
        "    linalg.yield %1, %2 : f32, f32\n"
        "  }",
        "#map = affine_map<(d0, d1) -> (d0, d1)>\n#map1 = affine_map<(d0, d1) -> ()>\n"),
}
