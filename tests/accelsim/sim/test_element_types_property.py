"""Property: random mixed-precision elementwise and reduction programs (built with the
Builder, any of the element types, casts between them) give the same arrays on the host
backend, in the simulator (kernels interpreted with numpy + ml_dtypes, and run natively) and
in a numpy/ml_dtypes reference written here: bit-identical for integer results, within two
ulps of the result type for float ones (host and simulator are bit-identical either way)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelsim.sim.simulate import simulate
from compiler.backend import run_host
from compiler.ir import Builder, memref
from compiler.ir.types import ELEMENT_TYPES, ElementType
from compiler.text import parse_module, print_module

TYPES = ["i4", "i8", "i16", "i32", "i64", "f8E4M3FN", "f8E5M2", "bf16", "f16", "f32", "f64"]
INT_OPS = ["addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui",
           "shrsi", "shrui", "shli", "divui", "remui", "sel_slt", "sel_ult", "sel_eq"]
FLOAT_OPS = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf", "sqrt", "exp", "sel_olt",
             "sel_une", "sel_uge"]
# libm's expf (host) and numpy's (simulator) may differ in the last bit: only `exp` is not
# correctly rounded (IEEE: + - * / sqrt are), so only programs with it compare within an ulp
INEXACT = {"exp"}
N, K = 12, 5


@dataclass(frozen=True)
class Program:
    inputs: tuple[str, ...]               # element type of each input memref
    steps: tuple[tuple, ...]              # ("in", k) | ("cast", a, T, unsigned) | ("op", name, a, b)
    out: str                              # element type of the output
    reduce: bool                          # Out[i] = Out[i] + value over k (else Out[i] = value)


@st.composite
def programs(draw: st.DrawFn) -> Program:
    inputs = tuple(draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3)))
    types: list[str] = []
    steps: list[tuple] = []
    for k, t in enumerate(inputs):
        steps.append(("in", k))
        types.append(t)
    for _ in range(draw(st.integers(1, 5))):
        a = draw(st.integers(0, len(steps) - 1))
        if draw(st.booleans()):
            to = draw(st.sampled_from(TYPES))
            if _castable(types[a], to):
                steps.append(("cast", a, to, draw(st.booleans())))
                types.append(to)
            continue
        b = draw(st.integers(0, len(steps) - 1))
        t = types[a]
        if types[b] != t:  # bring b to a's type first
            if not _castable(types[b], t):
                continue
            steps.append(("cast", b, t, draw(st.booleans())))
            types.append(t)
            b = len(steps) - 1
        op = draw(st.sampled_from(FLOAT_OPS if ELEMENT_TYPES[t].is_float else INT_OPS))
        steps.append(("op", op, a, b))
        types.append(t)
    reduce = draw(st.booleans())
    last = types[-1]
    # a reduction accumulates in a type at least as wide (int8 -> i32, bf16 -> f32, ...)
    out = draw(st.sampled_from([t for t in TYPES if _castable(last, t) or t == last]))
    if reduce and ELEMENT_TYPES[out].is_float != ELEMENT_TYPES[last].is_float:
        out = last
    return Program(inputs, tuple(steps), out, reduce)


def _castable(s: str, t: str) -> bool:
    a, b = ELEMENT_TYPES[s], ELEMENT_TYPES[t]
    return s != t and not (a.is_float and b.is_float and a.bitwidth == b.bitwidth)


def build(p: Program) -> str:
    bld = Builder()
    shape = (N, K) if p.reduce else (N,)
    args = {f"X{k}": memref(shape, ELEMENT_TYPES[t]) for k, t in enumerate(p.inputs)}
    with bld.func("prog", Out=memref((N,), ELEMENT_TYPES[p.out]), **args) as (out, *xs):
        def body(idx: tuple) -> object:
            vals: list = []
            for s in p.steps:
                if s[0] == "in":
                    vals.append(xs[s[1]][idx])
                elif s[0] == "cast":
                    vals.append(bld.cast(vals[s[1]], ELEMENT_TYPES[s[2]], unsigned=s[3]))
                else:
                    vals.append(_OPS[s[1]](bld, vals[s[2]], vals[s[3]]))
            return bld.cast(vals[-1], ELEMENT_TYPES[p.out])
        for i in bld.range(N):
            if p.reduce:
                for k in bld.range(K):
                    out[i] = out[i] + body((i, k))
            else:
                out[i] = body((i,))
    return print_module(bld.module)


def _select(pred: str):  # type: ignore[no-untyped-def]
    """select(cmp pred a, b; a, b)."""
    return lambda bld, a, b: bld.select(bld.cmp(pred, a, b), a, b)


_OPS = {
    "divui": lambda bld, a, b: bld.divu(a, bld.or_(b, 1)),  # the divisor made odd: never 0
    "remui": lambda bld, a, b: bld.remu(a, bld.or_(b, 1)),
    **{f"sel_{p}": _select(p) for p in ("slt", "ult", "eq", "olt", "une", "uge")},
    "addi": Builder.add, "subi": Builder.sub, "muli": Builder.mul, "andi": Builder.and_,
    "ori": Builder.or_, "xori": Builder.xor, "maxsi": Builder.max, "minsi": Builder.min,
    "maxui": Builder.maxu, "minui": Builder.minu, "shrsi": Builder.shrs, "shrui": Builder.shru,
    "shli": Builder.shl, "addf": Builder.add, "subf": Builder.sub, "mulf": Builder.mul,
    "maximumf": Builder.max, "minimumf": Builder.min, "divf": Builder.div,
    "sqrt": lambda bld, a, b: bld.sqrt(a), "exp": lambda bld, a, b: bld.exp(a),
}


# ---- the numpy / ml_dtypes reference ---------------------------------------------------

def _wrap(x: np.ndarray, w: int) -> np.ndarray:
    """int64 values wrapped to `w` bits, read signed (int64 arithmetic wraps at 64 by itself)."""
    if w == 64:
        return x.astype(np.int64)
    m = (1 << w) - 1
    u = x.astype(np.int64) & m
    return np.where(u >> (w - 1) != 0, u - (1 << w), u)


def _u(x: np.ndarray, w: int) -> np.ndarray:
    """The unsigned reading of `w`-bit values, as uint64."""
    if w == 64:
        return x.astype(np.int64).view(np.uint64)
    return (x.astype(np.int64) & ((1 << w) - 1)).astype(np.uint64)


def ref_cast(x: np.ndarray, s: ElementType, t: ElementType, unsigned: bool) -> np.ndarray:
    if s.is_float and t.is_float:
        return x.astype(np.float64).astype(t.numpy_dtype)
    if s.is_float:  # saturating, toward zero, NaN -> 0
        f = np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=np.inf, neginf=-np.inf)
        w = t.bitwidth
        lo, hi = (0, 2.0**w - 1) if unsigned else (-(2.0 ** (w - 1)), 2.0 ** (w - 1) - 1)
        f = np.clip(np.trunc(f), lo, hi)
        v = f.astype(np.uint64).astype(np.int64) if unsigned and w == 64 else f.astype(np.int64)
        return _wrap(v, w).astype(t.numpy_dtype) if w < 64 else v
    v = x.astype(np.int64)
    if t.is_float:
        d = _u(v, s.bitwidth).astype(np.float64) if unsigned else v.astype(np.float64)
        return d.astype(t.numpy_dtype)
    if t.bitwidth > s.bitwidth and unsigned:
        v = _u(v, s.bitwidth).astype(np.int64)
    return _wrap(v, t.bitwidth).astype(t.numpy_dtype)


def ref_op(op: str, a: np.ndarray, b: np.ndarray, t: ElementType) -> np.ndarray:
    if op.startswith("sel_"):
        pred = op[4:]
        if t.is_float:
            x, y = a.astype(np.float64), b.astype(np.float64)
            unordered = np.isnan(x) | np.isnan(y)
            c = {"olt": x < y, "une": (x != y) | unordered, "uge": (x >= y) | unordered}[pred]
        else:
            w = t.bitwidth
            x, y = (_u(a, w), _u(b, w)) if pred[0] == "u" else (a.astype(np.int64), b.astype(np.int64))
            c = {"slt": x < y, "ult": x < y, "eq": x == y}[pred]
        return np.where(c, a, b).astype(t.numpy_dtype)
    if op in ("divui", "remui"):
        w = t.bitwidth
        ux, uy = _u(a, w), _u(b, w) | np.uint64(1)
        r = ux // uy if op == "divui" else ux % uy
        return _wrap(r.astype(np.int64) if w < 64 else r.view(np.int64), w).astype(t.numpy_dtype)
    if t.is_float:
        wide = np.float64 if t.bitwidth == 64 else np.float32
        x, y = a.astype(wide), b.astype(wide)
        r = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
             "sqrt": lambda p, q: np.sqrt(p), "exp": lambda p, q: np.exp(p),
             "maximumf": np.maximum, "minimumf": np.minimum}[op](x, y)
        return r.astype(t.numpy_dtype)
    w = t.bitwidth
    x, y = a.astype(np.int64), b.astype(np.int64)
    ux, uy = _u(x, w), _u(y, w)
    n = np.minimum(uy, np.uint64(w)).astype(np.int64)  # shift amounts >= w: 0 / the sign
    big = uy >= np.uint64(w)
    with np.errstate(over="ignore"):
        r = {
            "addi": lambda: x + y, "subi": lambda: x - y, "muli": lambda: x * y,
            "andi": lambda: x & y, "ori": lambda: x | y, "xori": lambda: x ^ y,
            "maxsi": lambda: np.maximum(x, y), "minsi": lambda: np.minimum(x, y),
            "maxui": lambda: np.where(ux >= uy, x, y), "minui": lambda: np.where(ux <= uy, x, y),
            "shrsi": lambda: x >> np.minimum(n, w - 1),
            "shrui": lambda: np.where(big, 0, (ux >> np.minimum(n, 63).astype(np.uint64)).astype(np.int64)),
            "shli": lambda: np.where(big, 0, x << np.minimum(n, 63)),
        }[op]()
    return _wrap(r, w).astype(t.numpy_dtype)


def reference(p: Program, inputs: list[np.ndarray], out0: np.ndarray) -> np.ndarray:
    types = [ELEMENT_TYPES[t] for t in p.inputs]
    vals: list[np.ndarray] = list(inputs)
    for s in p.steps[len(p.inputs):]:
        if s[0] == "cast":
            to = ELEMENT_TYPES[s[2]]
            vals.append(ref_cast(vals[s[1]], types[s[1]], to, s[3]))
            types.append(to)
        else:
            t = types[s[2]]
            vals.append(ref_op(s[1], vals[s[2]], vals[s[3]], t))
            types.append(t)
    ot = ELEMENT_TYPES[p.out]
    v = vals[-1] if types[-1] == ot else ref_cast(vals[-1], types[-1], ot, False)
    if not p.reduce:
        return v
    acc = out0.copy()
    for k in range(K):  # in program order: k innermost, one rounding per step
        acc = ref_op("addf" if ot.is_float else "addi", acc, v[:, k], ot)
    return acc


def _random(rng: np.random.Generator, t: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    if t.is_float:
        x = rng.uniform(-4, 4, shape) * rng.choice([1.0, 1e-3, 50.0], shape)
        return x.astype(t.numpy_dtype)
    lo = -(1 << (t.bitwidth - 1))
    return rng.integers(lo, -lo, shape).astype(t.numpy_dtype)


def _ulps_apart(a: np.ndarray, b: np.ndarray, t: ElementType) -> np.ndarray:
    x, y = a.astype(np.float64), b.astype(np.float64)
    fmt = t.facts.float_format
    assert fmt is not None
    e = np.floor(np.log2(np.maximum(np.maximum(abs(x), abs(y)), 2.0 ** fmt.emin)))
    ulp = 2.0 ** (e - (fmt.precision - 1))
    with np.errstate(invalid="ignore"):
        d = abs(x - y) / ulp
    same = (x == y) | (np.isnan(x) & np.isnan(y))
    return np.where(same, 0.0, np.nan_to_num(d, nan=np.inf))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 2**32 - 1))
def test_random_mixed_precision_programs_agree(p: Program, seed: int) -> None:
    text = build(p)
    rng = np.random.default_rng(seed)
    shape = (N, K) if p.reduce else (N,)
    ins = [_random(rng, ELEMENT_TYPES[t], shape) for t in p.inputs]
    ot = ELEMENT_TYPES[p.out]
    out0 = _random(rng, ot, (N,)) if p.reduce else np.zeros(N, ot.numpy_dtype)
    feeds = {f"X{k}": a for k, a in enumerate(ins)} | {"Out": out0}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        host = run_host(parse_module(text), feeds)["Out"]
        interp = simulate(parse_module(text), "default", inputs=feeds,
                          interpret_kernels=True).outputs["Out"]
        native = simulate(parse_module(text), "default", inputs=feeds).outputs["Out"]
        want = reference(p, ins, out0)
    bits = np.dtype(f"uint{max(8, ot.bitwidth)}") if ot.is_float else None
    inexact = any(s[0] == "op" and s[1] in INEXACT for s in p.steps)
    for got, who in ((interp, "sim (interpreted)"), (native, "sim (native)")):
        if bits is not None and inexact:
            far = _ulps_apart(got, host, ot)
            assert (far <= 1).all(), f"{who} vs host: {far.max()} ulps\n{text}\n{got}\n{host}"
            continue
        if bits is not None:
            same = (got.view(bits) == host.view(bits)) | (np.isnan(got.astype(np.float64))
                                                          & np.isnan(host.astype(np.float64)))
        else:
            same = got == host
        assert same.all(), f"{who} vs host differ\n{text}\n{got}\n{host}"
    if ot.is_float:
        far = _ulps_apart(host, want, ot)
        assert (far <= 2).all(), f"host vs reference: {far.max()} ulps\n{text}\n{host}\n{want}"
    else:
        assert host.astype(np.int64).tolist() == want.astype(np.int64).tolist(), f"{text}\n{host}\n{want}"


def test_reference_knows_the_rounding_rules() -> None:
    """The reference itself: bf16 add rounds once (ties to even), fptosi saturates."""
    bf = ELEMENT_TYPES["bf16"]
    a = np.array([1.0], ml_dtypes.bfloat16)
    b = np.array([2.0**-8], ml_dtypes.bfloat16)
    assert float(ref_op("addf", a, b, bf)[0]) == 1.0
    i8 = ELEMENT_TYPES["i8"]
    got = ref_cast(np.array([300.0, -1e9, np.nan], np.float32), ELEMENT_TYPES["f32"], i8, False)
    assert got.tolist() == [127, -128, 0]
