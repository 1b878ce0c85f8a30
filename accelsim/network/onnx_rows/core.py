"""The rows' building blocks: index expressions, scalar bodies (`Body`, `V`) and the context a
lowering writes into (`Ctx`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from accelsim.network.model import Kernel
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
    """A scalar body: slots 0..n-1 are the inputs (of `types`, default f32); each op appends
    a slot of the type of its first slot operand (numbers become constants of that type)."""

    def __init__(self, n_inputs: int, types: Sequence[str] | None = None):
        self.n = n_inputs
        self.ins: list[tuple[Any, ...]] = []
        self.types: list[str] = list(types or ["f32"] * n_inputs)

    def arg(self, i: int) -> V:
        return V(self, i)

    def _emit(self, t: str, *ins: Any) -> V:
        self.ins.append(ins)
        self.types.append(t)
        return V(self, self.n + len(self.ins) - 1)

    def const(self, x: float, t: str = "f32") -> V:
        if t == "f32":
            return self._emit(t, "const", float(x))
        return self._emit(t, "const", float(x) if t.startswith(("f", "bf")) else int(x), t)

    def ref(self, x: Any, t: str = "f32") -> int:
        return x.i if isinstance(x, V) else self.const(x, t).i

    def _type(self, *args: Any) -> str:
        return next((self.types[a.i] for a in args if isinstance(a, V)), "f32")

    def op(self, name: str, *args: Any) -> V:
        t = self._type(*args)
        refs = [self.ref(a, t) for a in args]
        return self._emit(t, name, *refs)

    def cmp(self, pred: str, a: Any, c: Any) -> V:
        t = self._type(a, c)
        ra, rc = self.ref(a, t), self.ref(c, t)
        if not t.startswith(("f", "bf")):
            pred = {"olt": "slt", "ole": "sle", "ogt": "sgt", "oge": "sge", "oeq": "eq", "une": "ne"}[pred]
        return self._emit("i1", "cmp", pred, ra, rc)

    def select(self, cond: V, a: Any, c: Any) -> V:
        t = self._type(a, c)
        ra, rc = self.ref(a, t), self.ref(c, t)
        return self._emit(t, "select", cond.i, ra, rc)

    def cast(self, x: V, t: str) -> V:
        """`x` as type `t`; from or to `u8` (uint8 in i8 bits) by the unsigned casts."""
        if self.types[x.i] == t:
            return x
        if "u8" in (self.types[x.i], t):
            return self._emit(t, "cast", x.i, t, "u")
        return self._emit(t, "cast", x.i, t)

    def roundeven(self, x: V) -> V:
        """Round half to even (f32), for |x| < 2^31."""
        f = self.trunc(x)
        fl = self.select(self.cmp("olt", x, f), f - 1.0, f)
        d = x - fl
        even = self.cmp("oeq", fl - 2.0 * self.trunc(fl * 0.5), 0.0)
        tie = self.select(even, fl, fl + 1.0)
        return self.select(self.cmp("ogt", d, 0.5), fl + 1.0, self.select(self.cmp("olt", d, 0.5), fl, tie))

    def quantize(self, x: V, lo: float | None = None, zero: Any = 0.0, to: str = "i8") -> V:
        """x (f32, already divided by the scale) to int8 / uint8 (`to`): round half to even,
        + zero point, saturate to the type (`lo`: a higher lower bound, a fused Relu's)."""
        tlo, thi = (0.0, 255.0) if to == "u8" else (-128.0, 127.0)
        c = self.max(self.min(x, 1e9), -1e9)
        q = self.roundeven(c) + zero
        return self.cast(self.max(self.min(q, thi), tlo if lo is None else max(lo, tlo)), to)

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
            t = self.types[value.i]
            if t.startswith(("f", "bf")):
                self._emit(t, "min", value.i, value.i)
            else:
                self.op("add", value, 0)
        return tuple(self.ins)


# ---- the context a lowering writes into ------------------------------------------------------

class Ctx:
    """Shapes and constants of the prepared graph; new tensors and kernels of one node."""

    def __init__(self, node: Any, shapes: dict[str, tuple[int, ...]], consts: dict[str, np.ndarray],
                 add_constant: Callable[[str, np.ndarray], None], used: Callable[[str], bool] = bool,
                 elem_types: dict[str, int] | None = None):
        self.node = node
        self.used = used
        self.elem_types = elem_types or {}
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

    def elem(self, t: str) -> str:
        """The row element type holding tensor `t`: i8 / i32 for int8 / int32 tensors, else f32."""
        return {2: "u8", 3: "i8", 6: "i32", 10: "f16", 16: "bf16"}.get(self.elem_types.get(t, 1), "f32")

    def row(self, row: Row, reads: Sequence[str], out: str, accumulate: bool = False) -> None:
        """Kernel of `row` reading `reads` (in0, in1, ...) and writing `out`; `accumulate`: the
        output starts with the tensor's current values (another row wrote part of it)."""
        self.shapes.setdefault(out, tuple(row.output[0]))
        if not row.types:
            row = _narrow(row, [self.elem(t) for t in reads], self.elem(out))
        row = _normalize(row)
        binds = [(f"in{i}", t) for i, t in enumerate(reads)]
        if accumulate:
            binds.append(("out", out))
        self.kernels.append(Kernel(register(row), tuple(binds), (("out", out),)))

    def attr(self, name: str, default: Any = None) -> Any:
        v = self.attrs.get(name, default)
        return v.decode() if isinstance(v, bytes) else v


def _narrow(row: Row, ins: Sequence[str], out: str) -> Row:
    """An f32 row over f16/bf16 tensors: each such operand read in its own type and extended
    to f32 (`extf`), the math in f32, the result truncated to the output's type."""
    if all(t == "f32" for t in (*ins, out)):
        return row
    types = (*ins, out)
    if not row.body:
        body: tuple[tuple[Any, ...], ...] = () if ins[0] == out else (("cast", 0, out),)
        return Row(row.loops, row.inputs, row.output, body, row.combine, row.init, types)
    n = len(ins)
    narrow = [i for i, t in enumerate(ins) if t != "f32"]
    k = len(narrow)
    slot = {i: n + j for j, i in enumerate(narrow)}
    casts = [("cast", i, "f32") for i in narrow]

    def r(x: int) -> int:
        return slot.get(x, x) if x < n else x + k

    refs = {"cmp": (2, 3), "select": (1, 2, 3), "const": ()}
    moved = []
    for ins_ in row.body:
        pos = refs.get(ins_[0], tuple(range(1, len(ins_))) if ins_[0] != "cast" else (1,))
        moved.append(tuple(r(v) if i in pos else v for i, v in enumerate(ins_)))
    body = tuple(casts + moved)
    if out != "f32":
        body = (*body, ("cast", n + len(body) - 1, out))
    return Row(row.loops, row.inputs, row.output, body, row.combine, row.init, types)


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
               row.combine, row.init, row.types)
