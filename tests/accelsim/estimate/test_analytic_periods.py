"""Loop memo keys read outer values modulo a period: the periods are checked by brute force,
and estimates that rely on them (and on kernel figures shared across configs) against the
event simulator."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.estimate.analytic import _operand_periods, clear_caches, estimate
from compiler.ir.affine_eval import evaluate_expr
from compiler.ir.affine_expr import Const, Dim, Sym
from compiler.ir.affine_map import AffineMap
from compiler.transforms.registry import PassManager

_leaf = st.one_of(st.just(Dim(0)), st.just(Dim(1)), st.just(Sym(0)),
                  st.integers(-5, 5).map(Const))


def _extend(children):
    c = st.integers(1, 7).map(Const)
    return st.one_of(
        st.tuples(children, children).map(lambda p: p[0] + p[1]),
        st.tuples(children, st.integers(-3, 3)).map(lambda p: p[0] * p[1]),
        st.tuples(children, c).map(lambda p: p[0].floordiv(p[1])),
        st.tuples(children, c).map(lambda p: p[0].ceildiv(p[1])),
        st.tuples(children, c).map(lambda p: p[0] % p[1]),
    )


_expr = st.recursive(_leaf, _extend, max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(_expr, min_size=1, max_size=2), st.sampled_from([0, 2, 3, 4]))
def test_moving_an_operand_by_its_period_changes_no_result(exprs, need):
    """For every operand given a period P > 0: results at x and x + P agree (modulo `need`
    when it is not 0), whatever the other operands are; an operand no result reads gets no
    entry at all, and one that some result reads always gets one."""
    amap = AffineMap(2, 1, tuple(exprs))
    per = _operand_periods(amap, need)
    read = {a.pos if isinstance(a, Dim) else 2 + a.pos
            for e in exprs for a in e.atoms() if isinstance(a, Dim | Sym)}
    assert set(per) == read
    for pos, p in per.items():
        if not p:
            continue
        for x in range(-13, 14, 3):
            for y in range(-7, 8, 5):
                v = [x, y, 3 - y]
                w = list(v)
                w[pos] += p
                for e in exprs:
                    a = evaluate_expr(e, v[:2], v[2:])
                    b = evaluate_expr(e, w[:2], w[2:])
                    assert (a - b) % need == 0 if need else a == b, (e, pos, p, v)


def test_tile_index_read_through_a_mod_pattern_gets_a_small_period():
    i, j = Dim(0), Dim(1)
    tag = AffineMap(2, 0, ((i.floordiv(9) + j.floordiv(10)) % 2,))
    assert _operand_periods(tag, 0) == {0: 18, 1: 20}
    assert _operand_periods(AffineMap(1, 0, (i - 9,)), 18) == {0: 18}
    assert _operand_periods(AffineMap(1, 0, (i - 9,)), 0) == {0: 0}


@pytest.mark.parametrize("spec", ["2mm", "gemm", "conv2d", "batched_gemm"])
def test_sweep_points_equal_the_event_run(spec):
    """A program compiled for `edge`, estimated cold on `edge` and then on the other presets
    (reusing compiled walk and kernel figures, as a sweep does): every estimate equals the
    event run on that config."""
    mod = workloads.get(spec).module()
    PassManager.from_flags(accelerator_pipeline(load_config("edge")).flags()).run(mod)
    clear_caches()
    for preset in ("edge", "default", "server"):
        an = estimate(mod.clone(), preset)
        assert an.cycles == simulate(mod.clone(), preset, functional=False).cycles, preset
