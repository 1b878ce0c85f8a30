"""Affine control flow and index arithmetic, natively, against Python's own arithmetic."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.backend import run_host
from compiler.ir import F32, F64, INDEX, AffineApplyOp, AffineExpr, AffineMap, Builder, Const, Dim, memref
from compiler.ir.affine_eval import evaluate_expr

LO, HI = -37, 41  # loop range crossing zero: negative dividends are the interesting part


def _index_table(exprs: list, python_value) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate index expressions of the IV over [LO, HI) natively; returns (native, python)."""
    n = HI - LO
    b = Builder()
    with b.func("k", out=memref((n, len(exprs)), INDEX)) as (out,):
        for i in b.range(LO, HI):
            for c, make in enumerate(exprs):
                out[i - LO, c] = b.apply(make(i))
    got = run_host(b.module, {"out": np.zeros((n, len(exprs)), np.int64)})["out"]
    want = np.array([[python_value(x, c) for c in range(len(exprs))] for x in range(LO, HI)])
    return got, want


def test_floordiv_ceildiv_mod_on_negative_values_match_python():
    exprs = [
        lambda i: i // 3, lambda i: i // 7, lambda i: (2 * i - 5) // 4,
        lambda i: i.ceildiv(3), lambda i: (3 * i + 1).ceildiv(5),
        lambda i: i % 3, lambda i: i % 8, lambda i: (i - 11) % 6,
        lambda i: (i // 2) % 5 + (i % 4) * 3,
    ]
    py = [
        lambda x: x // 3, lambda x: x // 7, lambda x: (2 * x - 5) // 4,
        lambda x: -((-x) // 3), lambda x: -((-(3 * x + 1)) // 5),
        lambda x: x % 3, lambda x: x % 8, lambda x: (x - 11) % 6,
        lambda x: (x // 2) % 5 + (x % 4) * 3,
    ]
    got, want = _index_table(exprs, lambda x, c: py[c](x))
    np.testing.assert_array_equal(got, want)
    assert (got[:, 5:8] >= 0).all()  # mod by a positive divisor is never negative


_leaf = st.one_of(st.just(Dim(0)), st.just(Dim(1)), st.integers(-9, 9).map(Const))


def _combine(children):
    ops = st.sampled_from(["add", "mul", "floordiv", "ceildiv", "mod"])

    def build(t):
        kind, a, b, k = t
        if kind == "add":
            return a + b
        if kind == "mul":
            return a * k
        return {"floordiv": a.floordiv, "ceildiv": a.ceildiv, "mod": a.__mod__}[kind](abs(k) + 1)
    return st.tuples(ops, children, children, st.integers(-5, 5)).map(build)


@settings(max_examples=25)
@given(st.recursive(_leaf, _combine, max_leaves=8))
def test_random_affine_expressions_match_the_ir_evaluator(expr: AffineExpr):
    n0, n1 = 9, 7
    m = AffineMap(2, 0, (expr,))
    b = Builder()
    with b.func("k", out=memref((n0, n1), INDEX)) as (out,):
        for i in b.range(-4, n0 - 4):
            for j in b.range(-3, n1 - 3):
                v = b.insert(AffineApplyOp(m, [i, j])).result
                out[i + 4, j + 3] = v
    got = run_host(b.module, {"out": np.zeros((n0, n1), np.int64)})["out"]
    want = np.array([[evaluate_expr(expr, [x, y]) for y in range(-3, n1 - 3)] for x in range(-4, n0 - 4)])
    np.testing.assert_array_equal(got, want)


def _visit_count(lo, hi, step, shape) -> np.ndarray:
    """Count visits of each (i, j) of a nest whose inner loop has max/min bounds."""
    b = Builder()
    with b.func("k", out=memref(shape, F32)) as (out,):
        for i in b.range(0, shape[0]):
            for j in b.range(lo(i), hi(i), step):
                out[i, j] = out[i, j] + 1.0
    return run_host(b.module, {"out": np.zeros(shape, np.float32)})["out"]


def test_max_lower_and_min_upper_bounds_with_steps():
    shape = (12, 20)
    got = _visit_count(lambda i: [i, 3, 2 * i - 6], lambda i: [i + 9, 17, 30 - 2 * i], 3, shape)
    want = np.zeros(shape, np.float32)
    for i in range(shape[0]):
        for j in range(max(i, 3, 2 * i - 6), min(i + 9, 17, 30 - 2 * i), 3):
            want[i, j] += 1
    np.testing.assert_array_equal(got, want)
    assert want.sum() > 10 and (want.sum(axis=1) == 0).any()  # includes empty rows


def test_zero_trip_loops_run_nothing_and_yield_their_inits():
    b = Builder()
    with b.func("k", out=memref((4,), F32)) as (out,):
        for _i in b.range(5, 5):
            out[0] = 1.0
        for _i in b.range(7, 3):
            out[1] = 1.0
        init = b.constant(2.5, F32)
        with b.loop(9, 2, 1, iter_args=[init]) as loop:
            b.yield_([b.add(loop.region_iter_args[0], 1.0)])
        out[2] = loop.results[0]
        for _i in b.range(0, 1):  # one trip, for contrast
            out[3] = 4.0
    got = run_host(b.module, {"out": np.zeros(4, np.float32)})["out"]
    np.testing.assert_array_equal(got, [0.0, 0.0, 2.5, 4.0])


def test_iter_args_reduction_is_bit_identical_to_sequential_float32():
    n = 1000
    b = Builder()
    with b.func("k", x=memref((n,), F32), out=memref((2,), F32)) as (x, out):
        zero = b.constant(0.0, F32)
        with b.loop(0, n, 1, iter_args=[zero, zero]) as loop:
            s, sq = loop.region_iter_args
            v = x[loop.iv]
            b.yield_([s + v, sq + v * v])
        out[0] = loop.results[0]
        out[1] = loop.results[1]
    x = np.random.default_rng(1).uniform(-1, 1, n).astype(np.float32)
    got = run_host(b.module, {"x": x, "out": np.zeros(2, np.float32)})["out"]
    s = sq = np.float32(0)
    for v in x:  # sequential order: what the IR says, without reassociation
        s = np.float32(s + v)
        sq = np.float32(sq + np.float32(v * v))
    assert got[0] == s and got[1] == sq


def test_nested_iter_args_and_non_unit_steps():
    b = Builder()
    with b.func("k", out=memref((1,), F64)) as (out,):
        zero = b.constant(0.0, F64)
        with b.loop(-10, 17, 3, iter_args=[zero]) as outer:
            with b.loop(outer.iv, [outer.iv + 7, 12], 2, iter_args=[outer.region_iter_args[0]]) as inner:
                one = b.constant(1.0, F64)
                b.yield_([inner.region_iter_args[0] + one])
            b.yield_([inner.results[0]])
        out[0] = outer.results[0]
    got = run_host(b.module, {"out": np.zeros(1)})["out"]
    want = sum(len(range(i, min(i + 7, 12), 2)) for i in range(-10, 17, 3))
    assert got[0] == want


def test_if_else_with_results_and_equalities():
    n = 12
    b = Builder()
    with b.func("k", x=memref((n,), F32), out=memref((n,), F32), flags=memref((n,), F32)) as (x, out, flags):
        for i in b.range(n):
            with b.if_(i >= 3, i < 8, results=[F32]) as ifop:
                b.yield_([x[i] * 2.0])
            with b.else_(ifop):
                b.yield_([x[i] - 1.0])
            out[i] = ifop.results[0]
            with b.if_((i % 4).eq(1)):  # no else, no results
                flags[i] = 1.0
            with b.if_(i >= 10) as only:
                flags[i] = 5.0
            with b.else_(only):
                flags[i] = flags[i] + 0.5
    x = np.arange(n, dtype=np.float32)
    got = run_host(b.module, {"x": x, "out": np.zeros(n, np.float32), "flags": np.zeros(n, np.float32)})
    want = np.where((np.arange(n) >= 3) & (np.arange(n) < 8), x * 2, x - 1)
    np.testing.assert_array_equal(got["out"], want)
    wflags = np.where(np.arange(n) % 4 == 1, 1.0, 0.0) + 0.5
    wflags[10:] = 5.0
    np.testing.assert_array_equal(got["flags"], wflags)


def test_affine_min_max_apply_with_symbols():
    from compiler.ir import AffineMaxOp, AffineMinOp, Sym

    b = Builder()
    with b.func("k", n=INDEX, out=memref((30, 3), INDEX)) as (n, out):
        for i in b.range(0, 30):
            mn = b.insert(AffineMinOp(AffineMap(1, 1, (Dim(0) * 2 - 7, Sym(0), Const(20) - Dim(0))),
                                      [i, n])).result
            mx = b.insert(AffineMaxOp(AffineMap(1, 1, (Dim(0) - 15, Sym(0).floordiv(2) - Dim(0))),
                                      [i, n])).result
            out[i, 0] = mn
            out[i, 1] = mx
            out[i, 2] = b.apply(i * 3 + n - 3)
    want = np.array([[min(2 * x - 7, 11, 20 - x), max(x - 15, 11 // 2 - x), x * 3 + 11 - 3]
                     for x in range(30)])
    got = run_host(b.module, {"n": 11, "out": np.zeros((30, 3), np.int64)})["out"]
    np.testing.assert_array_equal(got, want)
