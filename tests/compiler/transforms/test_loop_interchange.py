"""affine-loop-interchange and rewrite/permute.py: bounds of any loop order derived from the
domain (isl), legality from the dependence analysis, results unchanged; and the copy pass's
`hoist-over-dependent-loops` (a re-read region copied once over a loop it depends on)."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest

from compiler.analysis.domain import iteration_domain
from compiler.backend import random_inputs, run_host
from compiler.ir.ops import AffineDmaStartOp, AffineForOp, AffineLoadOp
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass
from compiler.transforms.affine_loop_interchange import AffineLoopInterchangePass
from compiler.transforms.rewrite.permute import legal_orders, perfect_band, permute_band
from workloads.loop_orders import NESTS, Kernel, Nest, _mac, loop_orders, module_text

SIZES = {"gemm": {"NI": 6, "NJ": 7, "NK": 5}, "syrk": {"N": 7, "M": 5},
         "syr2k": {"N": 6, "M": 4}, "trmm": {"M": 7, "N": 5}, "symm": {"M": 6, "N": 5},
         "2mm": {"NI": 4, "NJ": 5, "NK": 6, "NL": 3}}

# A[i][j] += alpha * A[i-1][j+1] * B[k][j]: the flow dependence (1, -1, any) allows only the
# orders with i outermost
SKEW = Kernel("skew", (("A", "{N}x{N}"), ("B", "{K}x{N}")),
              (Nest(("i", "j", "k"), "1 <= i < {N} and 0 <= j < {N} - 1 and 0 <= k < {K}",
                    _mac("%A[%i, %j]", "%A[%i - 1, %j + 1]", "%B[%k, %j]", "{N}x{N}", "{N}x{N}",
                         "{K}x{N}", "s")),),
              {"N": 6, "K": 3})


def _roots(module):  # type: ignore[no-untyped-def]
    return [op for op in module.funcs[0].body.ops if isinstance(op, AffineForOp)]


def _body_domain(module) -> isl.Set:  # type: ignore[no-untyped-def]
    """The set of (i, j, k) points the innermost body runs, named by loop (order-free)."""
    load = next(op for op in module.walk() if isinstance(op, AffineLoadOp))
    dom = iteration_domain(load)
    names = [dom.get_dim_name(isl.dim_type.set, d) for d in range(dom.dim(isl.dim_type.set))]
    order = sorted(range(len(names)), key=lambda d: names[d])
    perm = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(names[d] for d in order)}] }}")
    return dom.apply(perm)


@pytest.mark.parametrize("name", sorted(NESTS))
def test_every_order_runs_the_same_points_with_the_same_results(name: str) -> None:
    kernel = NESTS[name]
    text = module_text(kernel, kernel.nests[0].loops, SIZES[name])
    ref_mod = parse_module(text)
    inputs = random_inputs(ref_mod.funcs[0], 3)
    ref = run_host(ref_mod, inputs)
    ref_dom = _body_domain(ref_mod)
    orders = legal_orders(perfect_band(_roots(ref_mod)[0]))
    assert len(orders) == 6 and orders[0] == (0, 1, 2)   # reductions only: every order is legal
    for order in orders:
        m = parse_module(text)
        for root in _roots(m):
            permute_band(perfect_band(root), order)
        verify(m)
        assert [lp.iv.name_hint for lp in perfect_band(_roots(m)[0])] == \
            [kernel.nests[0].loops[k] for k in order]
        assert _body_domain(m).is_equal(ref_dom)
        out = run_host(parse_module(print_module(m)), inputs)
        # each element's updates keep their order (the reduction loop still ascends for it)
        assert all(np.array_equal(out[a], ref[a]) for a in ref), (name, order)


def test_triangular_bounds_are_projected() -> None:
    m = parse_module(module_text(NESTS["trmm"], ("i", "j", "k"), {"M": 8, "N": 3}))
    permute_band(perfect_band(_roots(m)[0]), (2, 1, 0))      # k, j, i
    text = print_module(m)
    assert "affine.for %k = 1 to 8" in text                  # k > i >= 0
    assert "affine.for %i = 0 to #map(%k)" in text and "(d0) -> (d0)" in text   # i < k


def test_illegal_orders_are_left_out_by_the_dependence_analysis() -> None:
    canonical = parse_module(module_text(SKEW, ("i", "j", "k")))
    assert legal_orders(perfect_band(_roots(canonical)[0])) == [(0, 1, 2), (0, 2, 1)]
    assert [o for o, _ in loop_orders(SKEW)] == [("i", "j", "k"), ("i", "k", "j")]


def test_pass_refuses_an_illegal_order_with_a_remark() -> None:
    m = parse_module(module_text(SKEW, ("i", "j", "k")))
    before = print_module(m)
    p = AffineLoopInterchangePass("permutation=1,0,2")
    p.run(m)
    assert print_module(m) == before
    assert any("a dependence forbids the order 1,0,2" in r.message for r in p.remarks)
    p = AffineLoopInterchangePass("func=skew nest=0 permutation=0,2,1")
    p.run(m)
    assert [lp.iv.name_hint for lp in perfect_band(_roots(m)[0])] == ["i", "k", "j"]


def test_pass_options_are_checked() -> None:
    from compiler.diagnostics import OptionError

    with pytest.raises(OptionError, match="permutation"):
        AffineLoopInterchangePass("permutation=0,0,1")


# ---- hoist-over-dependent-loops ----------------------------------------------------------------

def _syrk_ijk(n: int, m: int):  # type: ignore[no-untyped-def]
    return parse_module(module_text(NESTS["syrk"], ("i", "j", "k"), {"N": n, "M": m}))


@pytest.mark.parametrize("hoist", [False, True])
def test_reread_region_is_copied_once_over_the_loop_it_depends_on(hoist: bool) -> None:
    # A (24 x 16 f32, 1536 B) is read in full by every i (rows 0..i and row i); C's box
    # (24 x 24, 2304 B) does not fit beside it in 3 KiB, a row of C does
    n, m = 24, 16
    mod = _syrk_ijk(n, m)
    p = AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=3"
                                   + (" hoist-over-dependent-loops" if hoist else ""))
    p.run(mod)
    verify(mod)
    func = mod.funcs[0]
    a_copies = [op for op in func.walk() if isinstance(op, AffineDmaStartOp)
                and op.operands[0] is func.args[1]]
    outer = [op for op in func.body.ops if isinstance(op, AffineDmaStartOp)]
    if hoist:
        assert any(op in outer for op in a_copies)               # before the i loop: once
        assert any("hoisted over the loop" in r.message for r in p.remarks)
    else:
        assert not any(op in outer for op in a_copies)           # inside it: once per i
    ref = _syrk_ijk(n, m)
    inputs = random_inputs(ref.funcs[0], 1)
    want, got = run_host(ref, inputs), run_host(parse_module(print_module(mod)), inputs)
    assert all(np.array_equal(want[k], got[k]) for k in want)


def test_no_hoist_over_a_loop_whose_iterations_touch_disjoint_elements() -> None:
    # C[i, j] rows are disjoint across i: copying their union would only lose the overlap of
    # the per-row copies with compute, never a transfer
    mod = _syrk_ijk(24, 16)
    p = AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=3 hoist-over-dependent-loops")
    p.run(mod)
    assert not any("%C" in r.message and "hoisted" in r.message for r in p.remarks)
