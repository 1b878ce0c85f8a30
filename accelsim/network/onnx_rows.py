"""The general ONNX lowering: every op becomes one or more *rows* (`workloads.generic.Row`:
loop extents, an affine index map per operand, a scalar body, a combining op for reductions),
each one generated kernel. Elementwise ops are a scalar body over numpy-broadcast maps (one
table, `UNARY` / `NARY`), reductions a body plus `combine`, data movement copies whose maps
carry the offsets, strides, reflections and permutations; convolutions, pooling and
contractions are window / einsum maps with a multiply-add or max body.

A tensor is a flat buffer, so a row may view an operand under any shape of the same size (a
Gather's output as (outer, indices, inner)). A row that writes part of a tensor another row
wrote before reads that tensor as its output's start; an output nothing wrote starts at zero.
Booleans are 0/1 and integers their values, all in f32 (the importer refuses runtime f64 data).
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from accelsim.network.model import Kernel, Layer
from accelsim.network.onnx_graph import node_name
from workloads.generic import Expr, Row, register

F32_LOWEST = -3.4028234663852886e38


class Unsupported(Exception):
    """A node this lowering cannot express: the message names the attribute or the case."""


# ---- index expressions -----------------------------------------------------------------------

def E(L: int, coefs: dict[int, int] | None = None, const: int = 0, div: int = 1, mod: int = 0) -> Expr:
    lin = [0] * L
    for loop, c in (coefs or {}).items():
        lin[loop] += c
    return ((1, tuple(lin), int(const), int(div), int(mod)),)


def ident(L: int, loops: Sequence[int], offsets: Sequence[int] | None = None) -> tuple[Expr, ...]:
    return tuple(E(L, {lp: 1}, (offsets or [0] * len(loops))[i]) for i, lp in enumerate(loops))


def bcast(shape: Sequence[int], out: Sequence[int]) -> tuple[Expr, ...]:
    """numpy broadcasting: `shape` aligned right against the loops over `out`."""
    r, k = len(out), len(shape)
    return tuple(E(r) if (s == 1 and out[r - k + j] != 1) else E(r, {r - k + j: 1})
                 for j, s in enumerate(shape))


# ---- scalar bodies ---------------------------------------------------------------------------

class V:
    """A slot of a body under construction; arithmetic on it appends instructions."""

    __slots__ = ("b", "i")

    def __init__(self, b: Body, i: int):
        self.b, self.i = b, i

    def __add__(self, o: Any) -> V: return self.b.op("add", self, o)
    def __radd__(self, o: Any) -> V: return self.b.op("add", o, self)
    def __sub__(self, o: Any) -> V: return self.b.op("sub", self, o)
    def __rsub__(self, o: Any) -> V: return self.b.op("sub", o, self)
    def __mul__(self, o: Any) -> V: return self.b.op("mul", self, o)
    def __rmul__(self, o: Any) -> V: return self.b.op("mul", o, self)
    def __truediv__(self, o: Any) -> V: return self.b.op("div", self, o)
    def __rtruediv__(self, o: Any) -> V: return self.b.op("div", o, self)
    def __neg__(self) -> V: return self.b.op("neg", self)


class Body:
    def __init__(self, n_inputs: int):
        self.n = n_inputs
        self.ins: list[tuple[Any, ...]] = []

    def arg(self, i: int) -> V:
        return V(self, i)

    def _emit(self, *ins: Any) -> V:
        self.ins.append(ins)
        return V(self, self.n + len(self.ins) - 1)

    def ref(self, x: Any) -> int:
        return x.i if isinstance(x, V) else self._emit("const", float(x)).i

    def op(self, name: str, *args: Any) -> V:
        refs = [self.ref(a) for a in args]
        return self._emit(name, *refs)

    def cmp(self, pred: str, a: Any, c: Any) -> V:
        ra, rc = self.ref(a), self.ref(c)
        return self._emit("cmp", pred, ra, rc)

    def select(self, cond: V, a: Any, c: Any) -> V:
        ra, rc = self.ref(a), self.ref(c)
        return self._emit("select", cond.i, ra, rc)

    def max(self, a: Any, c: Any) -> V: return self.op("max", a, c)
    def min(self, a: Any, c: Any) -> V: return self.op("min", a, c)
    def exp(self, a: Any) -> V: return self.op("exp", a)
    def log(self, a: Any) -> V: return self.op("log", a)
    def sqrt(self, a: Any) -> V: return self.op("sqrt", a)
    def abs(self, a: Any) -> V: return self.op("abs", a)
    def trunc(self, a: Any) -> V: return self.op("trunc", a)

    def bool(self, cond: V) -> V:
        return self.select(cond, 1.0, 0.0)

    def truth(self, x: V) -> V:
        return self.cmp("une", x, 0.0)

    def sigmoid(self, x: V) -> V:
        return 1.0 / (1.0 + self.exp(-x))

    def tanh(self, x: V) -> V:
        t = self.exp(-2.0 * self.abs(x))
        r = (1.0 - t) / (1.0 + t)
        return self.select(self.cmp("olt", x, 0.0), -r, r)

    def erf(self, x: V) -> V:
        """Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7)."""
        a = self.abs(x)
        t = 1.0 / (1.0 + 0.3275911 * a)
        poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                         + t * 1.061405429))))
        r = 1.0 - poly * self.exp(-(a * a))
        return self.select(self.cmp("olt", x, 0.0), -r, r)

    def pow_const(self, x: V, e: float) -> V:
        if e == 1.0:
            return x + 0.0
        if e == 0.5:
            return self.sqrt(x)
        if float(e).is_integer() and 0 <= e <= 8:
            r: Any = 1.0
            for _ in range(int(e)):
                r = x * r
            return r if isinstance(r, V) else self.op("add", 1.0, 0.0)
        if float(e).is_integer() and -8 <= e < 0:
            return 1.0 / self.pow_const(x, -e)
        return self.exp(e * self.log(x))

    def finish(self, value: V) -> tuple[tuple[Any, ...], ...]:
        if value.i != self.n + len(self.ins) - 1:
            self._emit("min", value.i, value.i)
        return tuple(self.ins)


# ---- the context a lowering writes into ------------------------------------------------------

class Ctx:
    """Shapes and constants of the prepared graph; new tensors and kernels of one node."""

    def __init__(self, node: Any, shapes: dict[str, tuple[int, ...]], consts: dict[str, np.ndarray],
                 add_constant: Callable[[str, np.ndarray], None], used: Callable[[str], bool] = bool):
        self.node = node
        self.used = used
        self.shapes = shapes
        self.consts = consts
        self.add_constant = add_constant
        self.kernels: list[Kernel] = []
        self.views: list[tuple[str, str]] = []
        self.macs = 0
        self._tmp = 0
        from onnx import helper

        self.attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}

    @property
    def name(self) -> str:
        return node_name(self.node)

    def shape(self, t: str) -> tuple[int, ...]:
        if t in self.consts:
            return tuple(self.consts[t].shape)
        if t not in self.shapes:
            raise Unsupported(f"the shape of tensor {t!r} is not static after shape inference")
        return self.shapes[t]

    def const(self, t: str) -> np.ndarray | None:
        return self.consts.get(t) if t else None

    def need_const(self, t: str, what: str) -> np.ndarray:
        v = self.const(t)
        if v is None:
            raise Unsupported(f"{what} ({t!r}) must be a constant")
        return v

    def inp(self, i: int) -> str:
        ins = self.node.input
        return ins[i] if i < len(ins) else ""

    def out(self, i: int = 0) -> str:
        return self.node.output[i]

    def tmp(self, what: str) -> str:
        self._tmp += 1
        return f"{self.name}.{what}{self._tmp}"

    def constant(self, value: np.ndarray, what: str) -> str:
        name = self.tmp(what)
        self.add_constant(name, np.asarray(value, dtype=np.float32))
        return name

    def row(self, row: Row, reads: Sequence[str], out: str, accumulate: bool = False) -> None:
        """Kernel of `row` reading `reads` (in0, in1, ...) and writing `out`; `accumulate`: the
        output starts with the tensor's current values (another row wrote part of it)."""
        self.shapes.setdefault(out, tuple(row.output[0]))
        row = _normalize(row)
        binds = [(f"in{i}", t) for i, t in enumerate(reads)]
        if accumulate:
            binds.append(("out", out))
        self.kernels.append(Kernel(register(row), tuple(binds), (("out", out),)))

    def attr(self, name: str, default: Any = None) -> Any:
        v = self.attrs.get(name, default)
        return v.decode() if isinstance(v, bytes) else v


def _normalize(row: Row) -> Row:
    """Rank-0 operands as shape (1,); no loops as one loop of 1."""
    loops = row.loops
    if not loops:
        loops = (1,)

        def widen(e: Expr) -> Expr:
            return tuple((c, (*lin, 0), k, d, m) for c, lin, k, d, m in e)
    else:
        def widen(e: Expr) -> Expr:
            return e
    L = len(loops)

    def operand(shape: tuple[int, ...], maps: tuple[Expr, ...]) -> tuple[tuple[int, ...], tuple[Expr, ...]]:
        if not shape:
            return (1,), (E(L),)
        return tuple(shape), tuple(widen(e) for e in maps)

    return Row(loops, tuple(operand(s, m) for s, m in row.inputs), operand(*row.output), row.body,
               row.combine, row.init)


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


# ---- data movement -----------------------------------------------------------------------------

Run = tuple[int, int, int, int]  # out_start, length, in_start, in_step


def copy_runs(ctx: Ctx, src: str, src_shape: tuple[int, ...], dst: str, dst_shape: tuple[int, ...],
              runs: Sequence[Sequence[Run]], accumulate: bool = False) -> None:
    """dst[o] = src[i] over the cartesian product of per-axis runs (one row per product)."""
    L = len(src_shape)
    first = True
    for combo in itertools.product(*runs):
        if any(r[1] <= 0 for r in combo):
            continue
        loops = tuple(r[1] for r in combo)
        in_map = tuple(E(L, {i: r[3]}, r[2]) for i, r in enumerate(combo))
        out_map = tuple(E(L, {i: 1}, r[0]) for i, r in enumerate(combo))
        ctx.row(Row(loops, ((src_shape, in_map),), (dst_shape, out_map), ()), [src], dst,
                accumulate=accumulate or not first)
        first = False


def full(n: int) -> list[Run]:
    return [(0, n, 0, 1)]


def lower_transpose(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    L = len(shape)
    perm = list(ctx.attr("perm", list(range(L - 1, -1, -1))))
    out_shape = tuple(shape[p] for p in perm)
    in_map = [E(L)] * L
    for o, p in enumerate(perm):
        in_map[p] = E(L, {o: 1})
    ctx.row(Row(out_shape, ((shape, tuple(in_map)),), (out_shape, ident(L, range(L))), ()), [x], ctx.out())


def lower_concat(ctx: Ctx) -> None:
    out = ctx.out()
    oshape = ctx.shape(out)
    axis = int(ctx.attr("axis")) % len(oshape)
    off = 0
    first = True
    for t in ctx.node.input:
        if not t:
            continue
        s = ctx.shape(t)
        runs = [full(n) for n in s]
        runs[axis] = [(off, s[axis], 0, 1)]
        copy_runs(ctx, t, s, out, oshape, runs, accumulate=not first)
        first = False
        off += s[axis]


def lower_split(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    axis = int(ctx.attr("axis", 0)) % len(shape)
    off = 0
    for y in ctx.node.output:
        n = ctx.shape(y)[axis] if y else 0
        if y:
            runs = [full(k) for k in shape]
            runs[axis] = [(0, n, off, 1)]
            copy_runs(ctx, x, shape, y, ctx.shape(y), runs)
        off += n


def _slice_params(ctx: Ctx, shape: tuple[int, ...]) -> list[tuple[int, int, int]]:
    if ctx.inp(1):
        starts = ctx.need_const(ctx.inp(1), "starts").reshape(-1)
        ends = ctx.need_const(ctx.inp(2), "ends").reshape(-1)
        axes = ctx.need_const(ctx.inp(3), "axes").reshape(-1) if ctx.inp(3) else range(len(starts))
        steps = ctx.need_const(ctx.inp(4), "steps").reshape(-1) if ctx.inp(4) else [1] * len(starts)
    else:
        starts, ends = ctx.attr("starts"), ctx.attr("ends")
        axes = ctx.attr("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    out = [(0, n, 1) for n in shape]
    for st, en, ax, sp in zip(starts, ends, axes, steps, strict=False):
        ax = int(ax) % len(shape)
        n = shape[ax]
        st, en, sp = int(st), int(en), int(sp)
        en = max(min(en, n), -n - 1) if abs(en) < 2**62 else (n if en > 0 else -n - 1)
        st = max(min(st, n), -n - 1)
        r = range(*slice(st, en, sp).indices(n))
        out[ax] = (r.start, len(r), sp)
    return out


def lower_slice(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    params = _slice_params(ctx, shape)
    oshape = ctx.shape(ctx.out())
    copy_runs(ctx, x, shape, ctx.out(), oshape, [[(0, n, s, st)] for s, n, st in params])


def lower_gather(ctx: Ctx) -> None:
    data, idx = ctx.inp(0), ctx.inp(1)
    ind = ctx.const(idx)
    if ind is None:
        raise Unsupported("indices computed at run time (only constant indices are supported)")
    shape = ctx.shape(data)
    axis = int(ctx.attr("axis", 0)) % len(shape)
    n = shape[axis]
    flat = [int(v) % n for v in ind.reshape(-1)]
    outer, inner = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    src_shape, dst_shape = (outer, n, inner), (outer, len(flat), inner)
    copy_runs(ctx, data, src_shape, ctx.out(), dst_shape, [full(outer), _runs(flat), full(inner)])


def _runs(idx: Sequence[int]) -> list[Run]:
    """Constant indices as arithmetic runs (out_start, length, in_start, step)."""
    runs: list[Run] = []
    i = 0
    while i < len(idx):
        j = i + 1
        step = idx[j] - idx[i] if j < len(idx) else 1
        while j < len(idx) and idx[j] - idx[j - 1] == step:
            j += 1
        runs.append((i, j - i, idx[i], step if j - i > 1 else 1))
        i = j
    return runs


def lower_pad(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    L = len(shape)
    mode = ctx.attr("mode", "constant")
    if ctx.inp(1):
        pads = [int(v) for v in ctx.need_const(ctx.inp(1), "pads").reshape(-1)]
        cv = ctx.const(ctx.inp(2))
        if ctx.inp(2) and cv is None:
            raise Unsupported("a constant_value computed at run time")
        value = float(cv.reshape(-1)[0]) if cv is not None and cv.size else 0.0
        if ctx.inp(3):
            axes = [int(a) % L for a in ctx.need_const(ctx.inp(3), "axes").reshape(-1)]
            full_pads = [0] * (2 * L)
            for k, a in enumerate(axes):
                full_pads[a], full_pads[a + L] = pads[k], pads[k + len(axes)]
            pads = full_pads
    else:
        pads, value = list(ctx.attr("pads")), float(ctx.attr("value", 0.0))
    if any(p < 0 for p in pads):
        raise Unsupported("negative pads (cropping)")
    y = ctx.out()
    oshape = ctx.shape(y)
    if mode == "constant":
        pad_constant(ctx, x, shape, y, pads[:L], value)
        return
    if mode not in ("reflect", "edge"):
        raise Unsupported(f"mode={mode!r}")
    runs = []
    for i, n in enumerate(shape):
        pb, pe = pads[i], pads[i + L]
        if mode == "reflect":
            if pb >= n or pe >= n:
                raise Unsupported("reflect padding wider than the axis")
            runs.append([(0, pb, pb, -1), (pb, n, 0, 1), (pb + n, pe, n - 2, -1)])
        else:
            runs.append([(0, pb, 0, 0), (pb, n, 0, 1), (pb + n, pe, n - 1, 0)])
    copy_runs(ctx, x, shape, y, oshape, runs)


def pad_constant(ctx: Ctx, x: str, shape: tuple[int, ...], y: str, before: Sequence[int],
                 value: float, oshape: tuple[int, ...] | None = None) -> None:
    """y (oshape) filled with `value`, x copied at offset `before`."""
    oshape = oshape or ctx.shape(y)
    L = len(shape)
    if value != 0.0:
        b = Body(0)
        ctx.row(Row(oshape, (), (oshape, ident(L, range(L))), b.finish(b._emit("const", value))), [], y)
    copy_runs(ctx, x, shape, y, oshape, [[(before[i], shape[i], 0, 1)] for i in range(L)],
              accumulate=value != 0.0)


def lower_expand(ctx: Ctx) -> None:
    x = ctx.inp(0)
    _elementwise(ctx, [x], ctx.out(), ctx.shape(ctx.out()), lambda b, v: v + 0.0)


def lower_tile(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    oshape = ctx.shape(ctx.out())
    L = len(shape)
    in_map = tuple(E(L, {i: 1}, 0, 1, n) if n != oshape[i] else E(L, {i: 1}) for i, n in enumerate(shape))
    ctx.row(Row(oshape, ((shape, in_map),), (oshape, ident(L, range(L))), ()), [x], ctx.out())


def lower_depth_space(ctx: Ctx) -> None:
    x = ctx.inp(0)
    N, C, H, W = ctx.shape(x)
    bs = int(ctx.attr("blocksize"))
    if ctx.node.op_type == "DepthToSpace":
        c = C // (bs * bs)
        dcr = ctx.attr("mode", "DCR") == "DCR"
        src = (N, bs, bs, c, H, W) if dcr else (N, c, bs, bs, H, W)
        perm = (0, 3, 4, 1, 5, 2) if dcr else (0, 1, 4, 2, 5, 3)
    else:
        src = (N, C, H // bs, bs, W // bs, bs)
        perm = (0, 3, 5, 1, 2, 4)
    out6 = tuple(src[p] for p in perm)
    in_map = [E(6)] * 6
    for o, p in enumerate(perm):
        in_map[p] = E(6, {o: 1})
    ctx.row(Row(out6, ((src, tuple(in_map)),), (out6, ident(6, range(6))), ()), [x], ctx.out())


def lower_resize(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape, oshape = ctx.shape(x), ctx.shape(ctx.out())
    mode = ctx.attr("mode", "nearest")
    if mode != "nearest":
        raise Unsupported(f"mode={mode!r}: nearest with integer scale factors is supported")
    L = len(shape)
    in_map = []
    for i, (n, m) in enumerate(zip(shape, oshape, strict=True)):
        if m % n:
            raise Unsupported(f"scale {m}/{n} on axis {i}: integer scale factors are supported")
        in_map.append(E(L, {i: 1}, 0, m // n))
    ctx.row(Row(oshape, ((shape, tuple(in_map)),), (oshape, ident(L, range(L))), ()), [x], ctx.out())


# ---- contractions --------------------------------------------------------------------------------

def einsum_row(ctx: Ctx, terms: Sequence[str], out_term: str, reads: Sequence[str],
               shapes: Sequence[tuple[int, ...]], out: str, out_shape: tuple[int, ...]) -> None:
    letters: dict[str, int] = {}
    for term, shape in zip(terms, shapes, strict=True):
        for ch, n in zip(term, shape, strict=True):
            if letters.get(ch, 1) == 1:
                letters[ch] = n
    order = [c for c in out_term] + [c for c in letters if c not in out_term]
    pos = {c: i for i, c in enumerate(order)}
    L = len(order)
    loops = tuple(letters[c] for c in order)
    inputs = tuple((s, tuple(E(L) if n == 1 and letters[c] != 1 else E(L, {pos[c]: 1})
                             for c, n in zip(t, s, strict=True)))
                   for t, s in zip(terms, shapes, strict=True))
    b = Body(len(reads))
    v = b.arg(0)
    for i in range(1, len(reads)):
        v = v * b.arg(i)
    reduce = len(order) > len(out_term)
    row = Row(loops, inputs, (out_shape, ident(L, [pos[c] for c in out_term])), b.finish(v),
              "add" if reduce else None, 0.0)
    ctx.macs += math.prod(loops)
    ctx.row(row, reads, out)


def lower_einsum(ctx: Ctx) -> None:
    eq = ctx.attr("equation").replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    reads = [t for t in ctx.node.input]
    shapes = [ctx.shape(t) for t in reads]
    if "..." in eq:
        free = [c for c in string.ascii_letters if c not in eq]
        nb = max(len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes, strict=True) if "..." in t)
        ell = "".join(free[:nb])
        terms = [t.replace("...", ell[nb - (len(s) - len(t.replace("...", ""))):])
                 for t, s in zip(terms, shapes, strict=True)]
        rhs = rhs.replace("...", ell) if _ else rhs
    if not _:
        counts = {c: sum(t.count(c) for t in terms) for c in set("".join(terms))}
        rhs = "".join(sorted(c for c, k in counts.items() if k == 1))
    if any(len(set(t)) != len(t) for t in terms):
        raise Unsupported(f"equation {eq!r}: a repeated index within one operand (a diagonal)")
    einsum_row(ctx, terms, rhs, reads, shapes, ctx.out(), ctx.shape(ctx.out()))


def lower_matmul(ctx: Ctx) -> None:
    a, b_ = ctx.inp(0), ctx.inp(1)
    sa, sb = ctx.shape(a), ctx.shape(b_)
    letters = "abcdefghij"
    ta = "m" + "k" if len(sa) >= 2 else "k"
    tb = "kn" if len(sb) >= 2 else "k"
    batch = max(len(sa), len(sb)) - 2
    bl = letters[:max(batch, 0)]
    ta = (bl[len(bl) - (len(sa) - 2):] if len(sa) > 2 else "") + (ta if len(sa) >= 2 else "k")
    tb = (bl[len(bl) - (len(sb) - 2):] if len(sb) > 2 else "") + tb
    out = bl + ("m" if len(sa) >= 2 else "") + ("n" if len(sb) >= 2 else "")
    einsum_row(ctx, [ta, tb], out, [a, b_], [sa, sb], ctx.out(), ctx.shape(ctx.out()))


def lower_gemm(ctx: Ctx) -> None:
    a, b_, c = ctx.inp(0), ctx.inp(1), ctx.inp(2)
    ta = "km" if ctx.attr("transA", 0) else "mk"
    tb = "nk" if ctx.attr("transB", 0) else "kn"
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    y = ctx.out()
    oshape = ctx.shape(y)
    if not c and alpha == 1.0:
        einsum_row(ctx, [ta, tb], "mn", [a, b_], [ctx.shape(a), ctx.shape(b_)], y, oshape)
        return
    p = ctx.tmp("product")
    einsum_row(ctx, [ta, tb], "mn", [a, b_], [ctx.shape(a), ctx.shape(b_)], p, oshape)
    if c:
        _elementwise(ctx, [p, c], y, oshape, lambda b, v, w: alpha * v + beta * w)
    else:
        _elementwise(ctx, [p], y, oshape, lambda b, v: alpha * v)


# ---- convolution and pooling ---------------------------------------------------------------------

def _auto_pads(ctx: Ctx, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
               dil: Sequence[int]) -> list[int]:
    k = len(spatial)
    auto = ctx.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        return list(ctx.attr("pads", [0] * (2 * k)))
    if auto == "VALID":
        return [0] * (2 * k)
    pads = [0] * (2 * k)
    for i in range(k):
        out = -(-spatial[i] // strides[i])
        total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - spatial[i])
        small, big = total // 2, total - total // 2
        pads[i], pads[i + k] = (small, big) if auto == "SAME_UPPER" else (big, small)
    return pads


def _window_input(ctx: Ctx, x: str, shape: tuple[int, ...], out_sp: Sequence[int], kernel: Sequence[int],
                  strides: Sequence[int], dil: Sequence[int], pads: Sequence[int],
                  value: float) -> tuple[str, tuple[int, ...]]:
    """x padded so that every window of the output lies inside it."""
    k = len(kernel)
    before = list(pads[:k])
    need = [(out_sp[i] - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 for i in range(k)]
    size = [max(shape[2 + i] + before[i], need[i]) for i in range(k)]
    if before == [0] * k and size == list(shape[2:]):
        return x, shape
    padded = (shape[0], shape[1], *size)
    t = ctx.tmp("padded")
    pad_constant(ctx, x, shape, t, [0, 0, *before], value, padded)
    return t, padded


def lower_conv(ctx: Ctx) -> None:
    x, w, bias = ctx.inp(0), ctx.inp(1), ctx.inp(2)
    shape, ws = ctx.shape(x), ctx.shape(w)
    k = len(shape) - 2
    G = int(ctx.attr("group", 1))
    kernel = list(ws[2:])
    strides = list(ctx.attr("strides", [1] * k))
    dil = list(ctx.attr("dilations", [1] * k))
    pads = _auto_pads(ctx, shape[2:], kernel, strides, dil)
    y = ctx.out()
    oshape = ctx.shape(y)
    xp, pshape = _window_input(ctx, x, shape, oshape[2:], kernel, strides, dil, pads, 0.0)
    N, C, K = shape[0], shape[1], ws[0]
    Cg, Kg = C // G, K // G
    # loops: n, g, kk, out spatial (k), c, kernel spatial (k)
    loops = (N, G, Kg, *oshape[2:], Cg, *kernel)
    L = len(loops)
    oi, ci, ri = 3, 3 + k, 4 + k
    x_map = (E(L, {0: 1}), E(L, {1: Cg, ci: 1}),
             *(E(L, {oi + i: strides[i], ri + i: dil[i]}) for i in range(k)))
    w_map = (E(L, {1: Kg, 2: 1}), E(L, {ci: 1}), *(E(L, {ri + i: 1}) for i in range(k)))
    y_map = (E(L, {0: 1}), E(L, {1: Kg, 2: 1}), *(E(L, {oi + i: 1}) for i in range(k)))
    b = Body(2)
    target = ctx.tmp("acc") if bias else y
    ctx.row(Row(loops, ((pshape, x_map), (ws, w_map)), (oshape, y_map), b.finish(b.arg(0) * b.arg(1)),
                "add", 0.0), [xp, w], target)
    ctx.macs += math.prod(loops)
    if bias:
        _elementwise(ctx, [target, bias], y, oshape, lambda b, v, c: v + c,
                     [oshape, (K,) + (1,) * k])


def lower_conv_transpose(ctx: Ctx) -> None:
    x, w, bias = ctx.inp(0), ctx.inp(1), ctx.inp(2)
    shape, ws = ctx.shape(x), ctx.shape(w)
    k = len(shape) - 2
    G = int(ctx.attr("group", 1))
    kernel = list(ws[2:])
    strides = list(ctx.attr("strides", [1] * k))
    dil = list(ctx.attr("dilations", [1] * k))
    y = ctx.out()
    oshape = ctx.shape(y)
    N, C = shape[0], shape[1]
    Cg, Kg = C // G, ws[1]
    K = Kg * G
    fullsp = [(shape[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 for i in range(k)]
    auto = ctx.attr("auto_pad", "NOTSET")
    outpad = list(ctx.attr("output_padding", [0] * k))
    if ctx.attr("output_shape") is not None or auto in ("SAME_UPPER", "SAME_LOWER"):
        before = []
        for i in range(k):
            total = fullsp[i] + outpad[i] - oshape[2 + i]
            before.append(total // 2 if auto == "SAME_UPPER" else total - total // 2)
    else:
        before = list(ctx.attr("pads", [0] * (2 * k)))[:k]
    fshape = (N, K, *fullsp)
    full_t = ctx.tmp("full")
    loops = (N, G, Cg, *shape[2:], Kg, *kernel)
    L = len(loops)
    ii, kk, ri = 3, 3 + k, 4 + k
    x_map = (E(L, {0: 1}), E(L, {1: Cg, 2: 1}), *(E(L, {ii + i: 1}) for i in range(k)))
    w_map = (E(L, {1: Cg, 2: 1}), E(L, {kk: 1}), *(E(L, {ri + i: 1}) for i in range(k)))
    f_map = (E(L, {0: 1}), E(L, {1: Kg, kk: 1}),
             *(E(L, {ii + i: strides[i], ri + i: dil[i]}) for i in range(k)))
    b = Body(2)
    ctx.row(Row(loops, ((shape, x_map), (ws, w_map)), (fshape, f_map), b.finish(b.arg(0) * b.arg(1)),
                "add", 0.0), [x, w], full_t)
    ctx.macs += math.prod(loops)
    target = ctx.tmp("cropped") if bias else y
    runs = [full(N), full(K)] + [[(0, min(oshape[2 + i], fullsp[i] - before[i]), before[i], 1)]
                                 for i in range(k)]
    copy_runs(ctx, full_t, fshape, target, oshape, runs)
    if bias:
        _elementwise(ctx, [target, bias], y, oshape, lambda b, v, c: v + c, [oshape, (K,) + (1,) * k])


def lower_pool(ctx: Ctx) -> None:
    op = ctx.node.op_type
    x, y = ctx.inp(0), ctx.out()
    if len(ctx.node.output) > 1 and ctx.used(ctx.node.output[1]):
        raise Unsupported("the Indices output")
    shape, oshape = ctx.shape(x), ctx.shape(y)
    k = len(shape) - 2
    if op.startswith("Global"):
        kernel, strides, dil, pads = list(shape[2:]), [1] * k, [1] * k, [0] * (2 * k)
    else:
        kernel = list(ctx.attr("kernel_shape"))
        strides = list(ctx.attr("strides", [1] * k))
        dil = list(ctx.attr("dilations", [1] * k))
        pads = _auto_pads(ctx, shape[2:], kernel, strides, dil)
    is_max = "Max" in op
    if op == "LpPool" or op == "GlobalLpPool":
        raise Unsupported(op)
    xp, pshape = _window_input(ctx, x, shape, oshape[2:], kernel, strides, dil, pads,
                               F32_LOWEST if is_max else 0.0)
    loops = (*oshape, *kernel)
    L = len(loops)
    in_map = (E(L, {0: 1}), E(L, {1: 1}), *(E(L, {2 + i: strides[i], 2 + k + i: dil[i]}) for i in range(k)))
    b = Body(1)
    target = y if is_max else ctx.tmp("sum")
    ctx.row(Row(loops, ((pshape, in_map),), (oshape, ident(L, range(len(oshape)))), b.finish(b.arg(0) + 0.0),
                "max" if is_max else "add", F32_LOWEST if is_max else 0.0), [xp], target)
    if is_max:
        return
    include = bool(ctx.attr("count_include_pad", 0))
    counts = np.ones(oshape[2:], dtype=np.float64)
    for i in range(k):
        lo, hi = (-pads[i], shape[2 + i] + pads[i + k]) if include else (0, shape[2 + i])
        o = np.arange(oshape[2 + i])[:, None] * strides[i] + np.arange(kernel[i])[None, :] * dil[i] - pads[i]
        c = ((o >= lo) & (o < hi)).sum(axis=1).astype(np.float64)
        counts = counts * c.reshape([-1 if j == i else 1 for j in range(k)])
    inv = ctx.constant(1.0 / np.maximum(counts, 1.0), "inverse_count")
    _elementwise(ctx, [target, inv], y, oshape, lambda b, v, c: v * c, [oshape, tuple(oshape[2:])])


# ---- the table ---------------------------------------------------------------------------------

VIEWS = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout")

LOWER: dict[str, tuple[str, Callable[[Ctx], None]]] = {
    **{op: ("vector", lower_unary) for op in UNARY},
    **{op: ("vector", lower_nary) for op in NARY},
    "Cast": ("vector", lower_cast),
    **{op: ("vector", lower_reduce) for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                               "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
                                               "ReduceLogSumExp", "ReduceLogSum")},
    "InstanceNormalization": ("vector", lower_instancenorm),
    "LayerNormalization": ("vector", lower_layernorm),
    "BatchNormalization": ("vector", lower_batchnorm),
    "LRN": ("vector", lower_lrn),
    "Transpose": ("layout", lower_transpose),
    "Concat": ("layout", lower_concat),
    "Split": ("layout", lower_split),
    "Slice": ("layout", lower_slice),
    "Gather": ("layout", lower_gather),
    "Pad": ("layout", lower_pad),
    "Expand": ("layout", lower_expand),
    "Tile": ("layout", lower_tile),
    "DepthToSpace": ("layout", lower_depth_space),
    "SpaceToDepth": ("layout", lower_depth_space),
    "Resize": ("layout", lower_resize),
    "Upsample": ("layout", lower_resize),
    "Einsum": ("matmul", lower_einsum),
    "MatMul": ("matmul", lower_matmul),
    "Gemm": ("matmul", lower_gemm),
    "Conv": ("direct", lower_conv),
    "ConvTranspose": ("direct", lower_conv_transpose),
    **{op: ("vector", lower_pool) for op in ("MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool")},
}


def lower_node(node: Any, shapes: dict[str, tuple[int, ...]], consts: dict[str, np.ndarray],
               add_constant: Callable[[str, np.ndarray], None], where: str, opset: int,
               used: Callable[[str], bool] = bool) -> Layer:
    """The node's layer by the general lowering; raises Unsupported. `used(tensor)`: whether
    anything reads an output (an unused optional output is not computed)."""
    ctx = Ctx(node, shapes, consts, add_constant, used)
    op = node.op_type
    if op in VIEWS:
        if op == "Dropout" and len(node.output) > 1 and used(node.output[1]):
            raise Unsupported("the mask output of Dropout")
        ctx.views.append((node.output[0], node.input[0]))
        return Layer(ctx.name, op, "view", (), where, views=tuple(ctx.views))
    if op in ("Softmax", "LogSoftmax"):
        lower_softmax(ctx, opset)
        kind = "vector"
    elif op in LOWER:
        kind, fn = LOWER[op]
        fn(ctx)
    else:
        raise Unsupported(f"op type {op!r} is not supported")
    if not ctx.kernels:
        return Layer(ctx.name, op, "view", (), where, views=tuple(ctx.views))
    return Layer(ctx.name, op, kind, tuple(ctx.kernels), where, macs=ctx.macs, views=tuple(ctx.views))


def supported_ops() -> list[str]:
    return sorted([*LOWER, *VIEWS, "Softmax", "LogSoftmax", "Constant", "Shape", "Size"])
