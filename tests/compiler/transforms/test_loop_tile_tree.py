"""`affine-loop-tile` on triangular bands and imperfect nests (band trees): differential runs
on the host backend (bit-identical), isl proofs that every statement instance runs exactly
once, the exact legality check refusing what would reverse a dependence, the cache model on
trees, upstream mlir-opt on the output, and the effect on the accelerator pipeline (syrk)."""

from __future__ import annotations

import os
import subprocess

import islpy as isl
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import workloads
from compiler.analysis import footprint_bytes, isl_name, iteration_domain
from compiler.backend import run_host
from compiler.diagnostics import OptionError
from compiler.ir import INDEX, Builder, memref
from compiler.ir.ops import AffineForOp, AffineStoreOp, FuncOp, ModuleOp
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.registry import create_pass
from compiler.transforms.tiling.band_tree import band_tree
from compiler.transforms.tiling.tree_sizes import tree_cache_tile_sizes

HERE = os.path.dirname(os.path.abspath(__file__))
LIT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "lit", "affine-loop-tile")
TREE = " tile-imperfect=true"


def tile(module: ModuleOp, options: str) -> list[str]:
    p = create_pass("affine-loop-tile", options)
    p.run(module)
    verify(module)
    return [r.message for r in p.remarks]


def loops(func: FuncOp) -> list[AffineForOp]:
    return [o for o in func.walk() if isinstance(o, AffineForOp)]


def stores(func: FuncOp) -> list[AffineStoreOp]:
    return [o for o in func.walk() if isinstance(o, AffineStoreOp)]


def enclosing_loop_count(op: AffineStoreOp) -> int:
    return sum(isinstance(a, AffineForOp) for a in op.ancestors())


def check_each_instance_once(original: FuncOp, tiled: FuncOp) -> None:
    """Store k of `original` and store k of `tiled` (the tile pass moves ops, keeping their
    order) run at the same iterations: the tile IVs (the outermost loops the tiled store has
    beyond the original's) take one value per point, and projecting them out gives the
    original iteration domain (isl)."""
    rename = {isl_name(t): isl_name(o) for t, o in zip(tiled.args, original.args, strict=True)}
    orig, mine = stores(original), stores(tiled)
    assert len(orig) == len(mine)
    for s, c in zip(orig, mine, strict=True):
        ref = iteration_domain(s)
        dom = iteration_domain(c)
        for j in range(dom.dim(isl.dim_type.param)):
            dom = dom.set_dim_name(isl.dim_type.param, j, rename[dom.get_dim_name(isl.dim_type.param, j)])
        n_tile = enclosing_loop_count(c) - enclosing_loop_count(s)
        owner = isl.Map.from_domain(dom).move_dims(isl.dim_type.out, 0, isl.dim_type.in_, 0, n_tile)
        # { [intra ivs, inner ivs] -> [tile ivs] }
        assert owner.is_single_valued(), f"a point of {s.loc} belongs to two tiles"
        proj = owner.domain()
        for k in range(proj.dim(isl.dim_type.set)):
            proj = proj.set_dim_name(isl.dim_type.set, k, ref.get_dim_name(isl.dim_type.set, k))
        proj = proj.align_params(ref.get_space())
        ref = ref.align_params(proj.get_space())
        assert proj.is_equal(ref), f"tiling changed the domain of the store at {s.loc}"


def same_results(ref: ModuleOp, mine: ModuleOp, inputs: dict[str, np.ndarray], func: str | None = None
                 ) -> None:
    a = run_host(ref, inputs, func)
    b = run_host(mine, inputs, func)
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=True), f"{k} differs"


# ---- syrk: the triangular, imperfect nest of the issue ---------------------------------------

def test_syrk_is_tiled_as_a_tree_by_the_cache_model():
    w = workloads.get("syrk")
    m = w.module()
    assert tile(m, "cache-size=64") == []
    f = m.funcs[0]
    tile_loops = [lp for lp in loops(f) if lp.step > 1]
    # i and k are tiled (j's tile spans its whole range: it stays an intra-tile loop)
    assert [lp.step for lp in tile_loops] == [16, 50]
    k_tile = tile_loops[1]
    assert k_tile.parent_op is tile_loops[0]  # the k tiles run inside each i tile
    # the update runs in (i, k, j) intra-tile loops under the k tile loop, j < i + 1 exact
    update = [s for s in stores(f) if s.parent_op is not None and k_tile.is_ancestor_of(s)]
    assert len(update) == 1
    intra = [a for a in update[0].ancestors() if isinstance(a, AffineForOp)][:3]
    assert [str(lp.upper_map) for lp in intra] == ["(d0) -> (d0 + 1)", "(d0) -> (d0 + 50)",
                                                   "(d0) -> (d0 + 16)"]
    inputs = w.random_inputs(0)
    same_results(w.module(), m, inputs, w.func_name)
    check_each_instance_once(w.module().funcs[0], f)
    # every intra-tile nest fits the cache size, on its largest tile (the triangle's base)
    for nest in [lp for lp in loops(f) if isinstance(lp.parent_op, AffineForOp)
                 and lp.parent_op.step > 1 and lp.step == 1]:
        fp = footprint_bytes(nest)
        assert fp is not None and fp <= 64 * 1024


def test_explicit_sizes_follow_mlir_opt_unless_asked():
    """With tile-sizes, `auto` tiles the perfect band at the root only (as upstream does);
    tile-imperfect=true tiles the tree with one size per depth."""
    w = workloads.get("syrk:N=20,M=12")
    perfect = w.module()
    assert tile(perfect, "tile-sizes=4,5,3") == []
    assert [lp.step for lp in loops(perfect.funcs[0]) if lp.step > 1] == [4]
    tree = w.module()
    assert tile(tree, "tile-sizes=4,5,3" + TREE) == []
    # depth 0: i (4); depth 1: the scale's j and k (5); depth 2: the update's j (3)
    assert [lp.step for lp in loops(tree.funcs[0]) if lp.step > 1] == [4, 5, 5, 3]
    inputs = w.random_inputs(1)
    same_results(w.module(), tree, inputs, w.func_name)
    same_results(perfect, tree, inputs, w.func_name)
    check_each_instance_once(w.module().funcs[0], tree.funcs[0])
    off = w.module()
    assert tile(off, "cache-size=64 tile-imperfect=false") == []
    assert len([lp for lp in loops(off.funcs[0]) if lp.step > 1]) == 1  # the i band only


def test_option_is_validated():
    with pytest.raises(OptionError, match="tile-imperfect must be one of auto, true, false"):
        create_pass("affine-loop-tile", "tile-imperfect=yes")
    assert create_pass("affine-loop-tile", "").options.imperfect
    assert not create_pass("affine-loop-tile", "tile-sizes=4").options.imperfect
    assert create_pass("affine-loop-tile", "tile-size=4 tile-imperfect=true").options.imperfect


# ---- every workload: random sizes, tree tiling on, bit-identical --------------------------

SIZES = {
    "2mm": "NI=7,NJ=9,NK=5,NL=6", "atax": "M=7,N=9", "batched_gemm": "batch=3,M=7,N=5,K=9",
    "bicg": "M=9,N=7", "conv2d": "C=3,H=7,W=6,K=5", "depthwise_conv2d": "C=3,H=7,W=5",
    "gemm": "M=9,N=7,K=10", "jacobi-2d": "N=11,T=7", "mvt": "N=9", "row_sum": "M=7,N=9",
    "row_sum_iter": "M=7,N=9", "saxpy": "N=61", "softmax": "M=5,N=7", "syrk": "N=9,M=7",
    "vector_add": "N=61",
    "relu": "N=61",
    "sigmoid": "N=61",
    "silu": "N=61",
    "gelu": "N=61",
    "vector_mul": "N=61",
    "maxpool2d": "C=3,H=9,W=7,R=3,S=2,stride=2",
    "avgpool2d": "C=3,H=9,W=7,R=3,S=2,stride=1",
    "layernorm": "M=5,N=7",
    "rmsnorm": "M=5,N=7",
    "pad2d": "C=3,H=7,W=5,top=2,left=0,bottom=1,right=3",
    "permute": "d0=3,d1=5,d2=7,d3=2,p0=3,p1=0,p2=2,p3=1",
    "im2col": "C=3,H=9,W=7,R=3,S=2,stride=2,dilation=1",
}


def test_every_workload_has_sizes():
    assert set(SIZES) == set(workloads.names())


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(SIZES)), st.lists(st.integers(1, 7), min_size=1, max_size=7),
       st.integers(0, 9))
def test_workloads_tiled_as_trees_are_bit_identical(name, sizes, seed):  # type: ignore[no-untyped-def]
    w = workloads.get(f"{name}:{SIZES[name]}")
    m = w.module()
    remarks = tile(m, "tile-sizes=" + ",".join(map(str, sizes)) + TREE)
    for r in remarks:  # a refused tiling names the dependence that forbids it
        assert "dependence on %" in r, r
    same_results(w.module(), m, w.random_inputs(seed), w.func_name)


@pytest.mark.parametrize("name", ["syrk", "atax", "bicg", "2mm", "softmax", "jacobi-2d"])
def test_cache_model_trees_are_bit_identical(name):  # type: ignore[no-untyped-def]
    w = workloads.get(f"{name}:{SIZES[name]}")
    for kib in (1, 4, 64):
        m = w.module()
        assert tile(m, f"cache-size={kib}") == [] or name == "jacobi-2d"
        same_results(w.module(), m, w.random_inputs(kib), w.func_name)
        check_each_instance_once(w.module().funcs[0], m.funcs[0])


# ---- random triangular and imperfect nests ----------------------------------------------------

def _random_nest(data) -> ModuleOp:  # type: ignore[no-untyped-def]
    """Up to 3 levels; bounds constant, symbolic, or affine in outer IVs (lower: max(c, iv - c),
    iv + c; upper: iv + c, min(iv + c, c')); statements before/after/between loops, some
    reading and writing the same arrays at other iterations (dependences)."""
    b = Builder()
    depth = data.draw(st.integers(1, 3))
    with b.func("nest", A=memref((64,)), C=memref((24, 24, 24)), N=INDEX) as (A, C, N):
        ivs: list = []

        def lower():  # type: ignore[no-untyped-def]
            c = data.draw(st.integers(0, 3))
            kinds = ["const"] + (["iv", "max"] if ivs else [])
            kind = data.draw(st.sampled_from(kinds))
            if kind == "const":
                return c
            iv = data.draw(st.sampled_from(ivs))
            return iv + c if kind == "iv" else [c, iv - c]

        def upper():  # type: ignore[no-untyped-def]
            c = data.draw(st.integers(1, 6))
            kinds = ["const", "sym"] + (["iv", "min"] if ivs else [])
            kind = data.draw(st.sampled_from(kinds))
            if kind == "const":
                return c + 4
            if kind == "sym":
                return [N, 11]
            iv = data.draw(st.sampled_from(ivs))
            return iv + c if kind == "iv" else [iv + c, 9]

        def statement() -> None:
            e = 0
            for v in ivs:
                e = v * data.draw(st.integers(1, 3)) + e
            at = (*ivs, 0, 0)[:3]
            if data.draw(st.booleans()):
                C[at] = C[at] * 0.5 + A[e % 64]
            else:  # a flow/anti dependence through A at another iteration
                A[(e + data.draw(st.integers(0, 5))) % 64] = A[e % 64] + C[at]

        def nest(level: int) -> None:
            if level == depth:
                statement()
                return
            if level > 0 and data.draw(st.booleans()):
                statement()
            for _ in range(data.draw(st.integers(1, 2)) if level < depth - 1 else 1):
                for iv in b.range(lower(), upper(), data.draw(st.integers(1, 2))):
                    ivs.append(iv)
                    nest(level + 1)
                    ivs.pop()
            if level > 0 and data.draw(st.booleans()):
                statement()

        nest(0)
    return b.module


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_nests_tile_exactly_once_and_bit_identical(data):  # type: ignore[no-untyped-def]
    m = _random_nest(data)
    text = print_module(m)
    for root in m.funcs[0].body.ops:
        tree = band_tree(root, imperfect=True) if isinstance(root, AffineForOp) else None
        if tree is not None:
            event(f"imperfect={tree.is_imperfect} triangular={not tree.is_rectangular}")
    sizes = data.draw(st.lists(st.integers(1, 5), min_size=3, max_size=3))
    opts = ("tile-sizes=" + ",".join(map(str, sizes)) if data.draw(st.booleans())
            else f"cache-size={data.draw(st.sampled_from([1, 2, 8]))}")
    remarks = tile(m, opts + TREE)
    event("refused" if remarks else "tiled")
    for r in remarks:
        assert "dependence on %" in r, r
    ref = parse_module(text)
    check_each_instance_once(ref.funcs[0], m.funcs[0])
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    for n_val in (data.draw(st.integers(0, 12)), 11):
        inputs = {"A": rng.standard_normal(64).astype(np.float32),
                  "C": rng.standard_normal((24, 24, 24)).astype(np.float32), "N": n_val}
        same_results(ref, m, inputs)


# ---- legality: the tiled order against the dependences -----------------------------------------

def _producer_consumer() -> ModuleOp:
    """S1(i) reads B[i-1], which S2(i-1) writes: in a tile of i, every S1 would run before
    every S2, so S1(i) would read B[i-1] before S2(i-1) writes it."""
    b = Builder()
    with b.func("pc", A=memref((16, 8)), B=memref((16, 8))) as (A, B):
        for i in b.range(1, 16):
            for j in b.range(8):
                A[i, j] = B[i - 1, j] * 2.0
            for j in b.range(8):
                B[i, j] = A[i, j] + 1.0
    return b.module


def test_tree_that_reverses_a_dependence_is_refused_and_falls_back():
    m = _producer_consumer()
    remarks = tile(m, "tile-sizes=4,4" + TREE)
    assert len(remarks) == 1
    assert "imperfect nest of 3 loops not tiled" in remarks[0]
    assert "flow dependence on %B" in remarks[0] and "perfect band at the root instead" in remarks[0]
    # the fallback tiled the perfect band (the i loop) only
    assert [lp.step for lp in loops(m.funcs[0]) if lp.step > 1] == [4]
    inputs = {"A": np.arange(128, dtype=np.float32).reshape(16, 8),
              "B": np.arange(128, dtype=np.float32).reshape(16, 8) * 0.5}
    same_results(_producer_consumer(), m, inputs)
    # size 1 on i keeps the order: accepted
    ok = _producer_consumer()
    assert tile(ok, "tile-sizes=1,4" + TREE) == []
    same_results(_producer_consumer(), ok, inputs)


def test_refused_tree_would_have_been_wrong():
    """Forcing the tree tiling the check refused changes the results (the check is not
    vacuous)."""
    from compiler.transforms.tiling.tile_tree import tile_tree

    m = _producer_consumer()
    root = m.funcs[0].body.ops[0]
    assert isinstance(root, AffineForOp)
    tree = band_tree(root, imperfect=True)
    assert tree is not None
    tile_tree(tree, {n: 4 for n in tree.nodes()})
    inputs = {"A": np.zeros((16, 8), np.float32),
              "B": np.arange(128, dtype=np.float32).reshape(16, 8)}
    a = run_host(_producer_consumer(), inputs)
    b = run_host(m, inputs)
    assert not np.array_equal(a["A"], b["A"])


def test_triangular_band_is_tiled_where_upstream_is_not(mlir_opt):  # type: ignore[no-untyped-def]
    with open(os.path.join(LIT, "tree-triangular.mlir"), encoding="utf-8") as fh:
        text = fh.read()
    up = subprocess.run([mlir_opt, "--affine-loop-tile=tile-sizes=4,4,4", "-"], input=text,
                        capture_output=True, text=True, check=True)
    assert sum(" step 4" in ln for ln in up.stdout.splitlines()) == 0  # upstream leaves it
    m = parse_module(text)
    assert tile(m, "tile-sizes=4,4,4") == []
    assert len([lp for lp in loops(m.funcs[0]) if lp.step == 4]) == 3
    ref = parse_module(text)
    rng = np.random.default_rng(0)
    inputs = {"C": rng.standard_normal((16, 16)).astype(np.float32),
              "A": rng.standard_normal((16, 8)).astype(np.float32)}
    same_results(ref, m, inputs)
    check_each_instance_once(ref.funcs[0], m.funcs[0])


# ---- upstream mlir-opt reads our output; same results as its tiling -----------------------------

@pytest.mark.parametrize("name", ["syrk", "atax", "bicg", "2mm", "softmax"])
def test_upstream_accepts_the_tiled_tree_and_agrees(mlir_opt, name):  # type: ignore[no-untyped-def]
    w = workloads.get(f"{name}:{SIZES[name]}")
    m = w.module()
    tile(m, "tile-sizes=3,4,2" + TREE)
    out = print_module(m)
    # upstream parses and verifies our output, and prints it back to the same loops
    up = subprocess.run([mlir_opt, "-"], input=out, capture_output=True, text=True, check=True)
    again = parse_module(up.stdout)
    assert [(str(a.lower_map), str(a.upper_map), a.step) for a in loops(again.funcs[0])] == \
        [(str(a.lower_map), str(a.upper_map), a.step) for a in loops(m.funcs[0])]
    # upstream's own tiling (the perfect band at the root) computes the same arrays
    theirs = subprocess.run([mlir_opt, "--affine-loop-tile=tile-sizes=3,4,2", "-"],
                            input=print_module(w.module()), capture_output=True, text=True,
                            check=True)
    inputs = w.random_inputs(2)
    up_mod = parse_module(theirs.stdout)
    mine = run_host(m, inputs, w.func_name)
    # upstream renames the arguments: pass them by position
    names = m.funcs[0].arg_names()
    theirs_out = run_host(up_mod, dict(zip(up_mod.funcs[0].arg_names(),
                                           (inputs[n] for n in names), strict=True)), w.func_name)
    for mine_name, their_name in zip(names, up_mod.funcs[0].arg_names(), strict=True):
        if mine_name in mine:
            assert np.array_equal(mine[mine_name], theirs_out[their_name], equal_nan=True)


# (the FileCheck tests of band trees are tests/lit/affine-loop-tile/tree-*.mlir)


# ---- the cache model on trees --------------------------------------------------------------

def test_tree_cache_sizes_grow_innermost_first_and_fit():
    w = workloads.get("syrk")
    root = w.module().funcs[0].body.ops[2]
    assert isinstance(root, AffineForOp)
    tree = band_tree(root, imperfect=True)
    assert tree is not None
    nodes = list(tree.nodes())  # i, the scale's j, k, the update's j
    sizes = tree_cache_tile_sizes(tree, 64 * 1024)
    assert [sizes[n] for n in nodes] == [16, 240, 50, 240]
    big = tree_cache_tile_sizes(tree, 1024 * 1024)
    assert [big[n] for n in nodes] == [240, 240, 200, 240]  # everything fits one tile


# ---- the accelerator pipeline (cache-model path): syrk near its honest roofline ---------------

def test_syrk_on_default_is_within_1_5x_of_the_honest_roofline():
    from accelsim.compile.accelerator import accelerator_pipeline
    from accelsim.config import load_config
    from accelsim.report import Report, input_traffic
    from accelsim.sim.simulate import simulate
    from compiler.transforms.registry import PassManager

    cfg = load_config("default")
    w = workloads.get("syrk")
    module = w.module()
    need = input_traffic(module, w.func_name, cfg)
    flags = accelerator_pipeline(cfg, module, w.func_name).flags()
    assert "--affine-loop-tile=cache-size=64" in flags  # the tile search does not apply
    PassManager.from_flags(flags).run(module)
    rep = Report.from_result(simulate(module, cfg, func=w.func_name, functional=False), need)
    assert rep.roofline_ratio is not None and rep.roofline_ratio < 1.5  # was 60.3 (untiled)
