"""The affine evaluator: compiled maps and sets, folded source with ranges, and intervals all
agree with the tree-walk evaluation (itself checked against Python's floor semantics)."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.ir import AffineMap, Binary, Const, Dim, IntegerSet, Sym
from compiler.ir.affine_eval import (
    binary_range,
    compile_map,
    compile_set,
    evaluate_expr,
    evaluate_map,
    expr_source,
    fold_source,
    interval_of,
    map_intervals,
    set_contains,
)

d0, d1, s0 = Dim(0), Dim(1), Sym(0)

_leaf = st.one_of(st.integers(-9, 9).map(Const), st.sampled_from([d0, d1, s0]))


def _combine(children):  # type: ignore[no-untyped-def]
    return st.one_of(
        st.tuples(children, children).map(lambda p: p[0] + p[1]),
        st.tuples(children, st.integers(-4, 4)).map(lambda p: p[0] * p[1]),
        st.tuples(children, st.sampled_from([s0, d1])).map(lambda p: p[0] * p[1]),  # semi-affine
        st.tuples(children, st.integers(1, 6)).map(lambda p: p[0].floordiv(p[1])),
        st.tuples(children, st.integers(1, 6)).map(lambda p: p[0].ceildiv(p[1])),
        st.tuples(children, st.integers(1, 6)).map(lambda p: p[0] % p[1]),
    )


exprs = st.recursive(_leaf, _combine, max_leaves=7)
POINTS = list(itertools.product(range(-5, 6, 2), range(-3, 4, 3), (-2, 0, 7)))


def test_evaluate_has_mlir_semantics():
    assert evaluate_expr(d0.floordiv(4), [-7]) == -2
    assert evaluate_expr(d0.ceildiv(4), [-7]) == -1
    assert evaluate_expr(d0 % 4, [-7]) == 1
    assert evaluate_map(AffineMap(2, 1, (d0 + s0, d1 * 3)), [1, 2], [10]) == (11, 6)
    s = IntegerSet(1, 1, (s0 - d0 - 1, d0 - 2), (False, True))
    assert set_contains(s, [2], [5]) and not set_contains(s, [2], [2])
    assert not set_contains(s, [3], [5])


@settings(max_examples=150, deadline=None)
@given(st.lists(exprs, min_size=1, max_size=3))
def test_compiled_map_equals_tree_walk(results):
    m = AffineMap(2, 1, tuple(results))
    fn = compile_map(m)
    for x, y, s in POINTS:
        assert fn([x, y, s]) == evaluate_map(m, [x, y], [s])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(exprs, st.booleans()), min_size=0, max_size=3))
def test_compiled_set_equals_tree_walk(cons):
    s = IntegerSet(2, 1, tuple(c for c, _ in cons), tuple(eq for _, eq in cons))
    fn = compile_set(s)
    for x, y, z in POINTS:
        assert fn([x, y, z]) == set_contains(s, [x, y], [z])


@settings(max_examples=200, deadline=None)
@given(exprs, st.integers(-6, 6), st.integers(0, 5), st.integers(-4, 4))
def test_folded_source_and_its_range_hold_at_every_point(e, lo, width, c):
    """d0 has the range [lo, lo + width], d1 is unknown, s0 is the constant c."""
    ops = [("a", lo, lo + width), ("b", None, None), (str(c), c, c)]
    src, rlo, rhi = fold_source(e, ops, 2)
    fn = eval(f"lambda a, b: {src}")
    for a in range(lo, lo + width + 1):
        for b in (-3, 0, 4):
            want = evaluate_expr(e, [a, b], [c])
            assert fn(a, b) == want, (e, src)
            if rlo is not None:
                assert rhi is not None and rlo <= want <= rhi, (e, src, rlo, rhi)
    if not e.uses_dim(1):  # over constant operands only, the source is the value's literal
        const_ops = [(str(lo), lo, lo), ("b", None, None), (str(c), c, c)]
        assert fold_source(e, const_ops, 2) == (str(evaluate_expr(e, [lo, 0], [c])),) + (
            evaluate_expr(e, [lo, 0], [c]),) * 2


@settings(max_examples=150, deadline=None)
@given(exprs, st.integers(-6, 6), st.integers(0, 4), st.integers(-3, 3), st.integers(0, 3))
def test_intervals_enclose_every_value(e, lo0, w0, lo1, w1):
    box = [(lo0, lo0 + w0), (lo1, lo1 + w1)]
    sym = [(2, 2)]
    try:
        iv = interval_of(e, box, sym)
    except ValueError:
        return  # a product or division no interval rule covers
    m = AffineMap(2, 1, (e,))
    assert map_intervals(m, [*box, *sym]) in ([iv], [interval_of(e, box, sym)])
    for a in range(box[0][0], box[0][1] + 1):
        for b in range(box[1][0], box[1][1] + 1):
            assert iv[0] <= evaluate_expr(e, [a, b], [2]) <= iv[1]


def test_expr_source_spelling():
    assert expr_source(d0 + s0 * 2, 1) == "(v[0] + (v[1] * 2))"
    assert expr_source(d0.ceildiv(4), 1) == "(-((-v[0]) // 4))"
    assert expr_source(Const(3), 0) == "3"


def test_mod_range_is_tight_within_one_period():
    assert binary_range("mod", (5, 6), (4, 4)) == (1, 2)
    assert binary_range("mod", (3, 6), (4, 4)) == (0, 3)
    assert binary_range("mod", None, (4, 4)) == (0, 3)
    assert binary_range("floordiv", (0, 9), (0, 0)) is None
    assert binary_range("add", None, (1, 1)) is None


def test_division_by_a_non_positive_constant_is_left_to_run_time():
    e = Binary("floordiv", d0, Const(-2))  # not pure affine: kept as written by the simplifier
    assert fold_source(e, [("a", 3, 3)], 1) == ("(a // -2)", None, None)
    with pytest.raises(ValueError, match="divisor is not a positive constant"):
        interval_of(e, [(0, 3)], [])
