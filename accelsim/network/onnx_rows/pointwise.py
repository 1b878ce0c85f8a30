"""Elementwise ops (one table: `UNARY`, `NARY`), casts, reductions, softmax and the normalizations."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from accelsim.network.onnx_rows.core import F32_LOWEST, Body, Ctx, E, Unsupported, V, bcast, ident
from workloads.generic import Row

# ---- elementwise -------------------------------------------------------------------------------

def _elementwise(ctx: Ctx, reads: Sequence[str], out: str, out_shape: tuple[int, ...],
                 fn: Callable[..., V], shapes: Sequence[tuple[int, ...]] | None = None) -> None:
    b = Body(len(reads))
    body = b.finish(fn(b, *[b.arg(i) for i in range(len(reads))]))
    shapes = shapes or [ctx.shape(t) for t in reads]
    inputs = tuple((s, bcast(s, out_shape)) for s in shapes)
    ctx.row(Row(out_shape, inputs, (out_shape, ident(len(out_shape), range(len(out_shape)))), body),
            reads, out)


def _clip_bounds(ctx: Ctx) -> tuple[float, float]:
    lo, hi = ctx.attr("min", -math.inf), ctx.attr("max", math.inf)
    if ctx.inp(1):
        lo = float(ctx.need_const(ctx.inp(1), "Clip's min").reshape(-1)[0])
    if ctx.inp(2):
        hi = float(ctx.need_const(ctx.inp(2), "Clip's max").reshape(-1)[0])
    return max(float(lo), F32_LOWEST), min(float(hi), -F32_LOWEST)


def _unary(ctx: Ctx) -> Callable[[Body, V], V]:
    op, a = ctx.node.op_type, ctx.attr
    if op == "Clip":
        lo, hi = _clip_bounds(ctx)
        return lambda b, x: b.max(b.min(x, hi), lo)
    table: dict[str, Callable[[Body, V], V]] = {
        "Relu": lambda b, x: b.max(x, 0.0),
        "Neg": lambda b, x: -x,
        "Abs": lambda b, x: b.abs(x),
        "Exp": lambda b, x: b.exp(x),
        "Log": lambda b, x: b.log(x),
        "Sqrt": lambda b, x: b.sqrt(x),
        "Reciprocal": lambda b, x: 1.0 / x,
        "Sigmoid": lambda b, x: b.sigmoid(x),
        "Tanh": lambda b, x: b.tanh(x),
        "Erf": lambda b, x: b.erf(x),
        "HardSigmoid": lambda b, x: b.max(b.min(float(a("alpha", 0.2)) * x + float(a("beta", 0.5)), 1.0),
                                          0.0),
        "HardSwish": lambda b, x: x * b.max(b.min(x * (1.0 / 6.0) + 0.5, 1.0), 0.0),
        "LeakyRelu": lambda b, x: b.select(b.cmp("olt", x, 0.0), float(a("alpha", 0.01)) * x, x),
        "Elu": lambda b, x: b.select(b.cmp("olt", x, 0.0), float(a("alpha", 1.0)) * (b.exp(x) - 1.0), x),
        "Selu": lambda b, x: float(a("gamma", 1.05070102214813232421875)) * b.select(
            b.cmp("ole", x, 0.0), float(a("alpha", 1.67326319217681884765625)) * (b.exp(x) - 1.0), x),
        "Celu": lambda b, x: b.max(x, 0.0) + b.min(0.0, float(a("alpha", 1.0))
                                                   * (b.exp(x / float(a("alpha", 1.0))) - 1.0)),
        "Softplus": lambda b, x: b.max(x, 0.0) + b.log(1.0 + b.exp(-b.abs(x))),
        "Softsign": lambda b, x: x / (1.0 + b.abs(x)),
        "Sign": lambda b, x: b.select(b.cmp("ogt", x, 0.0), 1.0, b.select(b.cmp("olt", x, 0.0), -1.0, 0.0)),
        "Shrink": lambda b, x: b.select(b.cmp("olt", x, -float(a("lambd", 0.5))), x + float(a("bias", 0.0)),
                                        b.select(b.cmp("ogt", x, float(a("lambd", 0.5))),
                                                 x - float(a("bias", 0.0)), 0.0)),
        "Not": lambda b, x: 1.0 - x,
        "ThresholdedRelu": lambda b, x: b.select(b.cmp("ogt", x, float(a("alpha", 1.0))), x, 0.0),
        "Gelu": _gelu(a("approximate", "none")),
    }
    return table[op]


def _gelu(approx: str) -> Callable[[Body, V], V]:
    if approx == "tanh":
        return lambda b, x: 0.5 * x * (1.0 + b.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return lambda b, x: 0.5 * x * (1.0 + b.erf(x * 0.7071067811865476))


UNARY = ("Relu", "Neg", "Abs", "Exp", "Log", "Sqrt", "Reciprocal", "Sigmoid", "Tanh", "Erf",
         "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Celu", "Softplus", "Softsign",
         "Sign", "Shrink", "Not", "ThresholdedRelu", "Gelu", "Clip")


def lower_unary(ctx: Ctx) -> None:
    if ctx.node.op_type == "Gelu" and ctx.attr("approximate", "none") not in ("none", "tanh"):
        raise Unsupported(f"approximate={ctx.attr('approximate')!r}")
    fn = _unary(ctx)
    _elementwise(ctx, [ctx.inp(0)], ctx.out(), ctx.shape(ctx.out()), fn)


def _pow(ctx: Ctx) -> Callable[..., V]:
    e = ctx.const(ctx.inp(1))
    if e is not None and e.size == 1:
        value = float(e.reshape(()))
        return lambda b, x, y: b.pow_const(x, value)
    return lambda b, x, y: b.exp(y * b.log(x))


NARY: dict[str, Callable[[Ctx], Callable[..., V]]] = {
    "Add": lambda c: lambda b, x, y: x + y,
    "Sub": lambda c: lambda b, x, y: x - y,
    "Mul": lambda c: lambda b, x, y: x * y,
    "Div": lambda c: lambda b, x, y: x / y,
    "Pow": _pow,
    "PRelu": lambda c: lambda b, x, s: b.select(b.cmp("olt", x, 0.0), s * x, x),
    "Equal": lambda c: lambda b, x, y: b.bool(b.cmp("oeq", x, y)),
    "Less": lambda c: lambda b, x, y: b.bool(b.cmp("olt", x, y)),
    "LessOrEqual": lambda c: lambda b, x, y: b.bool(b.cmp("ole", x, y)),
    "Greater": lambda c: lambda b, x, y: b.bool(b.cmp("ogt", x, y)),
    "GreaterOrEqual": lambda c: lambda b, x, y: b.bool(b.cmp("oge", x, y)),
    "And": lambda c: lambda b, x, y: x * y,
    "Or": lambda c: lambda b, x, y: b.max(x, y),
    "Xor": lambda c: lambda b, x, y: b.bool(b.cmp("une", x, y)),
    "Where": lambda c: lambda b, c_, x, y: b.select(b.truth(c_), x, y),
    "Max": lambda c: lambda b, *xs: _fold(b.max, xs),
    "Min": lambda c: lambda b, *xs: _fold(b.min, xs),
    "Sum": lambda c: lambda b, *xs: _fold(lambda p, q: p + q, xs),
    "Mean": lambda c: lambda b, *xs: _fold(lambda p, q: p + q, xs) * (1.0 / len(xs)),
}


def _fold(fn: Callable[[Any, Any], V], xs: Sequence[V]) -> V:
    acc = xs[0]
    for x in xs[1:]:
        acc = fn(acc, x)
    return acc if len(xs) > 1 else acc + 0.0


def lower_nary(ctx: Ctx) -> None:
    reads = [t for t in ctx.node.input if t]
    out = ctx.shape(ctx.out())
    shapes = [ctx.shape(t) for t in reads]
    if ctx.node.op_type == "PRelu" and not _broadcasts(shapes[1], out) and len(shapes[1]) == 1 \
            and len(out) > 1 and shapes[1][0] == out[1]:
        # before opset 7 a 1-D slope is per channel (axis 1), which numpy's rules do not give
        shapes[1] = (out[1],) + (1,) * (len(out) - 2)
    for t, s in zip(reads, shapes, strict=True):
        if not _broadcasts(s, out):
            raise Unsupported(f"operand {t!r} of shape {s} does not broadcast to {out}")
    _elementwise(ctx, reads, ctx.out(), out, NARY[ctx.node.op_type](ctx), shapes)


def _broadcasts(shape: Sequence[int], out: Sequence[int]) -> bool:
    return len(shape) <= len(out) and all(s in (1, o) for s, o in zip(shape[::-1], out[::-1], strict=False))


def lower_cast(ctx: Ctx) -> None:
    from onnx import TensorProto

    to = int(ctx.attr("to"))
    if to in (TensorProto.FLOAT,):
        ctx.views.append((ctx.out(), ctx.inp(0)))
    elif to == TensorProto.BOOL:
        _elementwise(ctx, [ctx.inp(0)], ctx.out(), ctx.shape(ctx.out()), lambda b, x: b.bool(b.truth(x)))
    elif to in (TensorProto.INT8, TensorProto.INT16, TensorProto.INT32, TensorProto.INT64,
                TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT32):
        _elementwise(ctx, [ctx.inp(0)], ctx.out(), ctx.shape(ctx.out()), lambda b, x: b.trunc(x))
    else:
        raise Unsupported(f"to={TensorProto.DataType.Name(to)}: casts to float32, bool and integers "
                          "are supported")


# ---- reductions --------------------------------------------------------------------------------

def _axes(ctx: Ctx, rank: int, input_index: int = 1) -> list[int] | None:
    axes = ctx.attr("axes")
    if axes is None and ctx.inp(input_index):
        axes = [int(v) for v in ctx.need_const(ctx.inp(input_index), "axes").reshape(-1)]
    if axes is None:
        return None
    return sorted({int(x) % rank for x in axes})


def reduce_row(ctx: Ctx, src: str, shape: tuple[int, ...], axes: Sequence[int], out: str,
               combine: str, init: float, fn: Callable[[Body, V], V] | None = None) -> tuple[int, ...]:
    """out[keepdims shape] = combine over `axes` of fn(src); returns the keepdims shape."""
    L = len(shape)
    kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
    out_map = tuple(E(L) if i in axes else E(L, {i: 1}) for i in range(L))
    b = Body(1)
    body = b.finish(fn(b, b.arg(0))) if fn else b.finish(b.arg(0) + 0.0)
    ctx.row(Row(shape, ((shape, ident(L, range(L))),), (kept, out_map), body, combine, init), [src], out)
    return kept


def lower_reduce(ctx: Ctx) -> None:
    op = ctx.node.op_type
    x = ctx.inp(0)
    shape = ctx.shape(x)
    axes = _axes(ctx, len(shape))
    if not axes:
        if ctx.attr("noop_with_empty_axes", 0):
            ctx.views.append((ctx.out(), x))
            return
        axes = list(range(len(shape)))
    count = math.prod(shape[i] for i in axes)
    y = ctx.out()
    if op in ("ReduceSum", "ReduceMean", "ReduceL1", "ReduceL2", "ReduceSumSquare"):
        fn = {"ReduceL1": lambda b, v: b.abs(v), "ReduceL2": lambda b, v: v * v,
              "ReduceSumSquare": lambda b, v: v * v}.get(op)
        if op in ("ReduceMean", "ReduceL2"):
            t = ctx.tmp("sum")
            kept = reduce_row(ctx, x, shape, axes, t, "add", 0.0, fn)
            post = (lambda b, v: v * (1.0 / count)) if op == "ReduceMean" else (lambda b, v: b.sqrt(v))
            _elementwise(ctx, [t], y, kept, post)
        else:
            reduce_row(ctx, x, shape, axes, y, "add", 0.0, fn)
    elif op in ("ReduceMax", "ReduceMin"):
        reduce_row(ctx, x, shape, axes, y, "max" if op == "ReduceMax" else "min",
                   F32_LOWEST if op == "ReduceMax" else -F32_LOWEST)
    elif op == "ReduceProd":
        reduce_row(ctx, x, shape, axes, y, "mul", 1.0)
    elif op in ("ReduceLogSumExp", "ReduceLogSum"):
        if op == "ReduceLogSum":
            t = ctx.tmp("sum")
            kept = reduce_row(ctx, x, shape, axes, t, "add", 0.0)
            _elementwise(ctx, [t], y, kept, lambda b, v: b.log(v))
        else:
            m, s = ctx.tmp("max"), ctx.tmp("sumexp")
            kept = reduce_row(ctx, x, shape, axes, m, "max", F32_LOWEST)
            _shifted_sum(ctx, x, shape, m, kept, axes, s, lambda b, v, mx: b.exp(v - mx))
            _elementwise(ctx, [s, m], y, kept, lambda b, v, mx: b.log(v) + mx)
    else:
        raise Unsupported(op)


def _shifted_sum(ctx: Ctx, x: str, shape: tuple[int, ...], m: str, kept: tuple[int, ...],
                 axes: Sequence[int], out: str, fn: Callable[[Body, V, V], V]) -> None:
    """out[kept] = Σ_axes fn(x, m[kept]) (m broadcast back over the axes)."""
    L = len(shape)
    kmap = tuple(E(L) if i in axes else E(L, {i: 1}) for i in range(L))
    b = Body(2)
    body = b.finish(fn(b, b.arg(0), b.arg(1)))
    ctx.row(Row(shape, ((shape, ident(L, range(L))), (kept, kmap)), (kept, kmap), body, "add", 0.0),
            [x, m], out)


def lower_softmax(ctx: Ctx, opset: int) -> None:
    x, y = ctx.inp(0), ctx.out()
    shape = ctx.shape(x)
    axis = int(ctx.attr("axis", -1 if opset >= 13 else 1)) % max(1, len(shape))
    axes = [axis] if opset >= 13 else list(range(axis, len(shape)))
    m, s = ctx.tmp("max"), ctx.tmp("sum")
    kept = reduce_row(ctx, x, shape, axes, m, "max", F32_LOWEST)
    _shifted_sum(ctx, x, shape, m, kept, axes, s, lambda b, v, mx: b.exp(v - mx))
    if ctx.node.op_type == "LogSoftmax":
        fn: Callable[..., V] = lambda b, v, mx, sm: v - mx - b.log(sm)
    else:
        fn = lambda b, v, mx, sm: b.exp(v - mx) / sm
    _elementwise(ctx, [x, m, s], y, shape, fn, [shape, kept, kept])


# ---- normalizations ----------------------------------------------------------------------------

def _normalize_over(ctx: Ctx, x: str, shape: tuple[int, ...], axes: Sequence[int], eps: float,
                    scale: str | None, bias: str | None, sb_shape: tuple[int, ...] | None, y: str) -> None:
    """y = (x - mean) / sqrt(var + eps) · scale + bias over `axes` (biased variance)."""
    count = math.prod(shape[i] for i in axes)
    s, mean, var = ctx.tmp("sum"), ctx.tmp("mean"), ctx.tmp("var")
    kept = reduce_row(ctx, x, shape, axes, s, "add", 0.0)
    _elementwise(ctx, [s], mean, kept, lambda b, v: v * (1.0 / count))
    _shifted_sum(ctx, x, shape, mean, kept, axes, var, lambda b, v, mu: (v - mu) * (v - mu))
    reads, shapes = [x, mean, var], [shape, kept, kept]
    if scale:
        reads.append(scale)
        shapes.append(sb_shape)  # type: ignore[arg-type]
    if bias:
        reads.append(bias)
        shapes.append(sb_shape)  # type: ignore[arg-type]

    def fn(b: Body, v: V, mu: V, var_: V, *rest: V) -> V:
        r = (v - mu) / b.sqrt(var_ * (1.0 / count) + eps)
        if scale:
            r = r * rest[0]
        if bias:
            r = r + rest[-1]
        return r

    _elementwise(ctx, reads, y, shape, fn, shapes)


def lower_instancenorm(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    C = shape[1]
    sb = (C,) + (1,) * (len(shape) - 2)
    _normalize_over(ctx, x, shape, list(range(2, len(shape))), float(ctx.attr("epsilon", 1e-5)),
                    ctx.inp(1), ctx.inp(2), sb, ctx.out())


def lower_layernorm(ctx: Ctx) -> None:
    if any(ctx.used(o) for o in ctx.node.output[1:]):
        raise Unsupported("the Mean and InvStdDev outputs of the general lowering")
    x = ctx.inp(0)
    shape = ctx.shape(x)
    axis = int(ctx.attr("axis", -1)) % len(shape)
    _normalize_over(ctx, x, shape, list(range(axis, len(shape))), float(ctx.attr("epsilon", 1e-5)),
                    ctx.inp(1), ctx.inp(2) or None, shape[axis:], ctx.out())


def lower_batchnorm(ctx: Ctx) -> None:
    if ctx.attr("training_mode", 0) or any(ctx.used(o) for o in ctx.node.output[1:]):
        raise Unsupported("training_mode (running statistics as outputs)")
    x = ctx.inp(0)
    shape = ctx.shape(x)
    gamma, beta, mean, var = (ctx.need_const(ctx.inp(i), n).astype(np.float64)
                              for i, n in zip(range(1, 5), ("scale", "bias", "mean", "var")))
    s = gamma / np.sqrt(var + float(ctx.attr("epsilon", 1e-5)))
    t = beta - mean * s
    view = (shape[1],) + (1,) * (len(shape) - 2) if len(shape) > 1 else (shape[0],)
    sn, tn = ctx.constant(s.reshape(view), "scale"), ctx.constant(t.reshape(view), "shift")
    _elementwise(ctx, [x, sn, tn], ctx.out(), shape, lambda b, v, a, c: v * a + c)


def lower_lrn(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    size = int(ctx.attr("size"))
    alpha, beta = float(ctx.attr("alpha", 1e-4)), float(ctx.attr("beta", 0.75))
    bias = float(ctx.attr("bias", 1.0))
    before = (size - 1) // 2
    C = shape[1]
    padded = (shape[0], C + size - 1, *shape[2:])
    L = len(shape)
    sq = ctx.tmp("square")
    b = Body(1)
    body = b.finish(b.arg(0) * b.arg(0))
    ctx.row(Row(shape, ((shape, ident(L, range(L))),),
                (padded, ident(L, range(L), [0, before] + [0] * (L - 2))), body), [x], sq)
    total = ctx.tmp("window")
    loops = (*shape, size)
    Lw = len(loops)
    in_map = tuple(E(Lw, {1: 1, L: 1}) if i == 1 else E(Lw, {i: 1}) for i in range(L))
    b = Body(1)
    ctx.row(Row(loops, ((padded, in_map),), (shape, ident(Lw, range(L))), b.finish(b.arg(0) + 0.0),
                "add", 0.0), [sq], total)
    _elementwise(ctx, [x, total], ctx.out(), shape,
                 lambda b, v, s: v / b.pow_const(bias + (alpha / size) * s, beta))
