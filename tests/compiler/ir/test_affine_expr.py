import itertools

from hypothesis import given
from hypothesis import strategies as st

from compiler.ir import AffineMap, Const, Dim, Sym
from compiler.ir.affine_eval import evaluate_expr

d0, d1, d2 = Dim(0), Dim(1), Dim(2)
s0 = Sym(0)


def test_sums_flatten_and_sort():
    assert d1 + d0 + 3 - 1 == d0 + d1 + 2
    assert d0 * 2 + d0 * 3 == d0 * 5
    assert (d0 - d0) == Const(0)
    assert str(d0 - d1 * 3 - 2) == "d0 - d1 * 3 - 2"


def test_div_mod_by_constants():
    assert (d0 * 4 + 8).floordiv(4) == d0 + 2
    assert (d0 * 4 + 5).floordiv(4) == d0 + 1
    assert (d0 * 4 + d1) % 4 == d1 % 4
    assert (d0 * 8) % 4 == Const(0)
    assert (d0 % 8) % 4 == d0 % 4
    assert d0.floordiv(1) == d0
    assert Const(-7).floordiv(2) == Const(-4)
    assert Const(-7).ceildiv(2) == Const(-3)
    assert Const(-7) % 3 == Const(2)


def test_semi_affine_is_flagged():
    assert not (d0 * d1).is_pure_affine()
    assert not d0.floordiv(s0).is_pure_affine()
    assert (d0 * 3 + s0).is_pure_affine()


def test_map_compose():
    outer = AffineMap(2, 0, (d0 + d1, d0 * 2))
    inner = AffineMap(1, 1, (d0 + 1, s0))
    assert outer.compose(inner) == AffineMap(1, 1, (d0 + s0 + 1, d0 * 2 + 2))


_leaf = st.one_of(st.integers(-20, 20).map(Const), st.integers(0, 2).map(Dim), st.just(s0))


def _combine(children):
    return st.one_of(
        st.tuples(children, children).map(lambda p: p[0] + p[1]),
        st.tuples(children, st.integers(-5, 5)).map(lambda p: p[0] * p[1]),
        st.tuples(children, st.integers(1, 7)).map(lambda p: p[0].floordiv(p[1])),
        st.tuples(children, st.integers(1, 7)).map(lambda p: p[0].ceildiv(p[1])),
        st.tuples(children, st.integers(1, 7)).map(lambda p: p[0] % p[1]),
    )


exprs = st.recursive(_leaf, _combine, max_leaves=8)


@given(exprs, exprs)
def test_simplification_preserves_value(a, b):
    """Canonicalization never changes the value: compare against unsimplified evaluation."""
    for point in itertools.product(range(-3, 4), repeat=3):
        for s in (-2, 5):
            va, vb = evaluate_expr(a, point, (s,)), evaluate_expr(b, point, (s,))
            assert evaluate_expr(a + b, point, (s,)) == va + vb
            assert evaluate_expr(a - b, point, (s,)) == va - vb
            assert evaluate_expr(a * 3, point, (s,)) == va * 3
            assert evaluate_expr(a.floordiv(4), point, (s,)) == va // 4
            assert evaluate_expr(a.ceildiv(4), point, (s,)) == -((-va) // 4)
            assert evaluate_expr(a % 4, point, (s,)) == va % 4
