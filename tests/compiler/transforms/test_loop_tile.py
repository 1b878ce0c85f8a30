"""`affine-loop-tile`: differential runs on the host backend, isl coverage proofs, and
structural + executed comparison with upstream mlir-opt."""

from __future__ import annotations

import glob
import os
import subprocess

import islpy as isl
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from compiler.analysis import footprint_bytes, isl_name, iteration_domain
from compiler.backend import compile_module, random_inputs, run_host
from compiler.diagnostics import OptionError
from compiler.ir import Builder, FunctionType, memref
from compiler.ir.ops import AffineForOp, AffineIfOp, AffineStoreOp, FuncOp, ModuleOp
from compiler.ir.verifier import verify
from compiler.text import parse_file, parse_module, print_module
from compiler.transforms.affine_loop_tile import AffineLoopTilePass, Options
from compiler.transforms.registry import create_pass, parse_pass_flag
from compiler.transforms.tiling.bands import perfect_band
from compiler.transforms.tiling.tile_sizes import cache_tile_sizes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MLIR_FILES = sorted(glob.glob(os.path.join(ROOT, "workloads", "mlir", "*.mlir")))


def tile(module: ModuleOp, options: str) -> AffineLoopTilePass:
    p = create_pass("affine-loop-tile", options)
    p.run(module)
    verify(module)  # the tiled IR is well formed (dims/symbols, terminators, types)
    return p  # type: ignore[return-value]


def run_same(spec: str, options: str, seed: int = 0) -> AffineLoopTilePass:
    """Tiled and untiled programs give bit-identical arrays on the host backend."""
    w = workloads.get(spec)
    inputs = w.random_inputs(seed)
    ref = run_host(w.module(), inputs, w.func_name)
    m = w.module()
    p = tile(m, options)
    out = run_host(m, inputs, w.func_name)
    for k in ref:
        assert np.array_equal(ref[k], out[k], equal_nan=True), f"{spec} [{options}]: {k} differs"
    return p


# ---- isl: the tiled domain covers the original exactly once (STYLE.md #6) ----------------

def stores(func: FuncOp) -> list[AffineStoreOp]:
    return [o for o in func.walk() if isinstance(o, AffineStoreOp)]


def _intra_projection(dom: isl.Set, n_tile: int) -> tuple[isl.Set, bool]:
    """Project the tile IVs away; also say whether each point has a single tile owner."""
    owner = isl.Map.from_domain(dom).move_dims(isl.dim_type.out, 0, isl.dim_type.in_, 0, n_tile)
    # { [intra ivs] -> [tile ivs] }
    return owner.domain(), owner.is_single_valued()


def check_exactly_once(original: FuncOp, tiled: FuncOp, n_tile_per_store: list[int]) -> None:
    """Each statement of `original` maps onto its copies in `tiled` exactly once."""
    orig = stores(original)
    copies: dict[int, list[AffineStoreOp]] = {}
    for s in stores(tiled):
        copies.setdefault(s.loc.line * 10000 + s.loc.col, []).append(s)
    for s, n_tile in zip(orig, n_tile_per_store, strict=True):
        ref = iteration_domain(s)
        mine = copies[s.loc.line * 10000 + s.loc.col]
        covered = None
        for c in mine:
            proj, unique = _intra_projection(iteration_domain(c), n_tile)
            assert unique, "an iteration belongs to two tiles"
            proj = _rename(proj, ref)
            assert covered is None or covered.intersect(proj).is_empty(), \
                "full and partial tiles overlap"
            covered = proj if covered is None else covered.union(proj)
        assert covered is not None and covered.is_equal(ref), f"tiling changed the domain of {s}"


def _rename(s: isl.Set, like: isl.Set) -> isl.Set:
    """Give `s` the dim names of `like` (same positions), so the spaces compare equal."""
    for k in range(s.dim(isl.dim_type.set)):
        s = s.set_dim_name(isl.dim_type.set, k, like.get_dim_name(isl.dim_type.set, k))
    return s.align_params(like.get_space())


def gemm_module(M: int, N: int, K: int) -> ModuleOp:
    b = Builder()
    with b.func("gemm", A=memref((M, K)), B=memref((K, N)), C=memref((M, N))) as (A, B, C):
        for i in b.range(M):
            for j in b.range(N):
                for k in b.range(K):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    return b.module


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 13), st.integers(1, 13), st.integers(1, 13),
       st.lists(st.integers(1, 9), min_size=3, max_size=3), st.booleans())
def test_tiled_domain_covers_original_exactly_once(M, N, K, sizes, separate):  # type: ignore[no-untyped-def]
    m = gemm_module(M, N, K)
    t = gemm_module(M, N, K)
    opts = "tile-sizes=" + ",".join(map(str, sizes)) + (" separate" if separate else "")
    p = tile(t, opts)
    assert not p.remarks
    check_exactly_once(m.funcs[0], t.funcs[0], [3])
    loops = [o for o in t.funcs[0].walk() if isinstance(o, AffineForOp)]
    assert [lp.step for lp in loops[:3]] == sizes
    assert any(isinstance(o, AffineIfOp) for o in t.funcs[0].walk()) == separate


def test_min_bounds_only_where_sizes_do_not_divide():
    m = gemm_module(64, 50, 7)
    tile(m, "tile-sizes=16,16,8")
    text = print_module(m)
    assert "min" in text
    loops = [o for o in m.funcs[0].walk() if isinstance(o, AffineForOp)]
    intra = loops[3:]
    assert intra[0].upper_map.num_results == 1  # 64 % 16 == 0
    assert intra[1].upper_map.num_results == 2  # 50 % 16 != 0: min(d0 + 16, 50)
    assert intra[2].upper_map.num_results == 1  # trip 7 < 8: d0 + 7
    assert str(intra[2].upper_map) == "(d0) -> (d0 + 7)"
    # locations: every new loop carries the location of the loop it came from
    orig = [o for o in gemm_module(64, 50, 7).funcs[0].walk() if isinstance(o, AffineForOp)]
    assert [lp.loc.line for lp in loops] == [lp.loc.line for lp in orig] * 2


# ---- differential: every workload, divisible and non-divisible sizes -----------------------

SIZES = {
    "2mm": ("NI=8,NJ=8,NK=8,NL=8", "NI=7,NJ=9,NK=5,NL=6"),
    "atax": ("M=8,N=8", "M=7,N=9"),
    "batched_gemm": ("batch=2,M=8,N=8,K=8", "batch=3,M=7,N=5,K=9"),
    "bicg": ("M=8,N=8", "M=9,N=7"),
    "conv2d": ("C=4,H=6,W=6,K=4", "C=3,H=7,W=6,K=5"),
    "depthwise_conv2d": ("C=4,H=6,W=6", "C=3,H=7,W=5"),
    "gemm": ("M=8,N=8,K=8", "M=9,N=7,K=10"),
    "jacobi-2d": ("N=10,T=2", "N=11,T=3"),
    "mvt": ("N=8", "N=9"),
    "row_sum": ("M=8,N=8", "M=7,N=9"),
    "row_sum_iter": ("M=8,N=8", "M=7,N=9"),
    "saxpy": ("N=64", "N=61"),
    "softmax": ("M=8,N=8", "M=5,N=7"),
    "syrk": ("N=8,M=8", "N=9,M=7"),
    "vector_add": ("N=64", "N=61"),
    "relu": ("N=64", "N=61"),
    "sigmoid": ("N=64", "N=61"),
    "silu": ("N=64", "N=61"),
    "gelu": ("N=64", "N=61"),
    "vector_mul": ("N=64", "N=61"),
    "maxpool2d": ("C=4,H=8,W=8,R=2,S=2,stride=2", "C=3,H=9,W=7,R=3,S=2,stride=2"),
    "avgpool2d": ("C=4,H=8,W=8,R=2,S=2,stride=2", "C=3,H=9,W=7,R=3,S=2,stride=1"),
    "layernorm": ("M=8,N=8", "M=5,N=7"),
    "rmsnorm": ("M=8,N=8", "M=5,N=7"),
    "pad2d": ("C=4,H=6,W=6", "C=3,H=7,W=5,top=2,left=0,bottom=1,right=3"),
    "permute": ("d0=2,d1=4,d2=4,d3=2", "d0=3,d1=5,d2=7,d3=2,p0=3,p1=0,p2=2,p3=1"),
    "im2col": ("C=2,H=6,W=6", "C=3,H=9,W=7,R=3,S=2,stride=2,dilation=1"),
}


def test_every_workload_has_sizes():
    assert set(SIZES) == set(workloads.names())


@pytest.mark.parametrize("name", sorted(SIZES))
def test_workload_tiled_is_bit_identical(name):  # type: ignore[no-untyped-def]
    divisible, ragged = SIZES[name]
    for size in (divisible, ragged):
        p = run_same(f"{name}:{size}", "tile-sizes=4,4,4,4")
        assert not p.remarks, [str(r) for r in p.remarks]
    if name in SEPARATE:
        run_same(f"{name}:{ragged}", "tile-sizes=3,2,5 separate")


SEPARATE = ("gemm", "jacobi-2d", "2mm", "softmax", "row_sum", "saxpy")


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["gemm:M=9,N=7,K=10", "jacobi-2d:N=11,T=2", "conv2d:C=3,H=6,W=7,K=5",
                        "2mm:NI=7,NJ=9,NK=5,NL=6"]),
       st.lists(st.integers(1, 8), min_size=1, max_size=7), st.booleans())
def test_random_tile_sizes_bit_identical(spec, sizes, separate):  # type: ignore[no-untyped-def]
    opts = "tile-sizes=" + ",".join(map(str, sizes)) + (" separate" if separate else "")
    p = run_same(spec, opts)
    for r in p.remarks:  # a refused band must name the dependence that forbids it
        assert "dependence on %" in r.message


# ---- legality ----------------------------------------------------------------------------

def skewed() -> ModuleOp:
    b = Builder()
    with b.func("skew", A=memref((12, 12))) as (A,):
        for i in b.range(1, 12):
            for j in b.range(0, 11):
                A[i, j] = A[i - 1, j + 1] + A[i, j]
    return b.module


def test_illegal_tiling_is_refused_with_remark_and_ir_unchanged():
    m = skewed()
    before = print_module(m)
    p = tile(m, "tile-sizes=4,4")
    assert print_module(m) == before
    assert len(p.remarks) == 1
    r = p.remarks[0]
    assert "flow dependence on %A" in r.message and "distance (1, -1)" in r.message
    assert r.loc == m.funcs[0].body.ops[0].loc


def test_tiling_that_keeps_order_is_accepted_despite_negative_component():
    # j tile spans the whole j range: no dependence can be reversed.
    m = skewed()
    p = tile(m, "tile-sizes=4,11")
    assert not p.remarks
    ref = skewed()
    inputs = random_inputs(ref.funcs[0], 3)
    a = run_host(ref, inputs)
    b = run_host(m, inputs)
    assert np.array_equal(a["A"], b["A"])


# ---- automatic sizes from the cache size ---------------------------------------------------

def test_cache_model_sizes_fit_and_prefer_long_rows():
    m = gemm_module(64, 64, 64)
    band = perfect_band(m.funcs[0].body.ops[0])  # type: ignore[arg-type]
    sizes = cache_tile_sizes(band, 16 * 1024)
    assert sizes[2] == 64  # a whole contiguous row of the innermost loop
    p = tile(m, "cache-size=16")
    assert not p.remarks
    loops = [o for o in m.funcs[0].walk() if isinstance(o, AffineForOp)]
    assert [lp.step for lp in loops[:3]] == sizes
    fp = footprint_bytes(loops[3])
    assert fp is not None and fp <= 16 * 1024
    # sizes are only rounded down to a divisor of the trip count when that keeps at least
    # half the largest fitting size: twice the outermost size must not fit
    grown = list(sizes)
    grown[0] *= 2
    m2 = gemm_module(64, 64, 64)
    tile(m2, "tile-sizes=" + ",".join(map(str, grown)))
    loops2 = [o for o in m2.funcs[0].walk() if isinstance(o, AffineForOp)]
    assert footprint_bytes(loops2[3]) > 16 * 1024  # type: ignore[operator]


def test_cache_model_everything_fits_one_tile():
    m = gemm_module(8, 8, 8)
    band = perfect_band(m.funcs[0].body.ops[0])  # type: ignore[arg-type]
    assert cache_tile_sizes(band, 512 * 1024) == [8, 8, 8]


# ---- options -----------------------------------------------------------------------------

def test_options_parse_like_mlir_opt():
    p = parse_pass_flag('--affine-loop-tile="tile-sizes=32,16 separate"')
    assert p.options == Options(tile_sizes=(32, 16), separate=True)
    assert create_pass("affine-loop-tile", "tile-size=8").options.tile_size == 8
    assert create_pass("affine-loop-tile", "").options.cache_size == 512
    with pytest.raises(OptionError, match="tile-sizes must be positive"):
        create_pass("affine-loop-tile", "tile-sizes=4,0")
    with pytest.raises(OptionError, match="unknown option 'tile-szes'"):
        create_pass("affine-loop-tile", "tile-szes=4")


def test_missing_tile_sizes_default_to_4_like_mlir():
    m = gemm_module(16, 16, 16)
    tile(m, "tile-sizes=8")
    loops = [o for o in m.funcs[0].walk() if isinstance(o, AffineForOp)]
    assert [lp.step for lp in loops[:3]] == [8, 4, 4]


# ---- upstream mlir-opt: same loop structure, same results ------------------------------

def _loop_tree(func: FuncOp) -> list:
    """affine.for/affine.if nesting with maps, steps and operands named by position."""
    names: dict[int, str] = {id(a): f"arg{k}" for k, a in enumerate(func.args)}
    counter = [0]

    def walk(block) -> list:  # type: ignore[no-untyped-def]
        out = []
        for op in block.ops:
            if isinstance(op, AffineForOp):
                lo = [names.get(id(v), "?") for v in op.lower_operands]
                hi = [names.get(id(v), "?") for v in op.upper_operands]
                names[id(op.iv)] = f"iv{counter[0]}"
                counter[0] += 1
                out.append(("for", str(op.lower_map), lo, str(op.upper_map), hi, op.step,
                            walk(op.body)))
            elif isinstance(op, AffineIfOp):
                out.append(("if", walk(op.then_block), walk(op.else_block)))
        return out

    return walk(func.body)


def _execute(module: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.array(a, copy=True) for a in inputs]
    compile_module(module).call(None, arrays)
    return arrays


@pytest.mark.parametrize("path", MLIR_FILES, ids=lambda p: os.path.basename(p))
@pytest.mark.parametrize("options", ["tile-sizes=4,5,3", "tile-sizes=8,2 separate"])
def test_matches_upstream_mlir_opt(mlir_opt, path, options):  # type: ignore[no-untyped-def]
    up = subprocess.run([mlir_opt, f"--affine-loop-tile={options}", path], capture_output=True,
                        text=True, check=True)
    theirs = parse_module(up.stdout)
    mine = parse_file(path)
    p = tile(mine, options)
    assert not p.remarks, [str(r) for r in p.remarks]
    f_mine, f_theirs = mine.funcs[0], theirs.funcs[0]
    tm, tt = _loop_tree(f_mine), _loop_tree(f_theirs)
    if "separate" in options:  # conditions may be spelled differently: compare the loops
        assert _strip_if_sets(tm) == _strip_if_sets(tt)
    else:
        assert tm == tt
    if "separate" not in options or os.path.basename(path).startswith(("gemm", "conv2d", "jacobi")):
        inputs = random_inputs(f_mine, 1)
        arrays = [inputs[n] for n in f_mine.arg_names()]
        for a, b in zip(_execute(mine, arrays), _execute(theirs, arrays), strict=True):
            assert np.array_equal(a, b, equal_nan=True)


def _strip_if_sets(tree: list) -> list:
    return [(n[0], _strip_if_sets(n[1]), _strip_if_sets(n[2])) if n[0] == "if"
            else (*n[:6], _strip_if_sets(n[6])) for n in tree]


# ---- random hyper-rectangular bands: symbolic, max/min bounds, steps ---------------------

def _random_band(data) -> ModuleOp:  # type: ignore[no-untyped-def]
    b = Builder()
    depth = data.draw(st.integers(1, 3))
    from compiler.ir import INDEX

    with b.func("band", A=memref((64,)), C=memref((24, 24, 24)), N=INDEX, M=INDEX) as (A, C, N, M):
        ivs: list = []

        def bound(kind: str):  # type: ignore[no-untyped-def]
            c = data.draw(st.integers(0, 4))
            return {"const": c, "sym": N, "symdiv": M // 2 + c,
                    "max": [c, M - 3], "min": [N, c + 6]}[kind]

        def nest(level: int) -> None:
            if level == depth:
                e = 0
                for v in ivs:
                    e = v * data.draw(st.integers(1, 3)) + e
                at = (*ivs, 0, 0)[:3]
                C[at] = C[at] * 0.5 + A[e % 64]
                return
            lo = bound(data.draw(st.sampled_from(["const", "symdiv", "max"])))
            hi = bound(data.draw(st.sampled_from(["const", "sym", "min"])))
            for iv in b.range(lo, hi, data.draw(st.integers(1, 3))):
                ivs.append(iv)
                nest(level + 1)

        nest(0)
    return b.module


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_random_bands_tile_exactly_once(data):  # type: ignore[no-untyped-def]
    m = _random_band(data)
    loops = [o for o in m.funcs[0].walk() if isinstance(o, AffineForOp)]
    n = len(loops)
    sizes = data.draw(st.lists(st.integers(1, 7), min_size=n, max_size=n))
    separate = data.draw(st.booleans())
    before = print_module(m)
    ref = parse_module(before)
    p = tile(m, "tile-sizes=" + ",".join(map(str, sizes)) + (" separate" if separate else ""))
    assert not p.remarks
    # isl: each original iteration runs in exactly one tile (store statement of each copy)
    check_exactly_once_by_order(ref.funcs[0], m.funcs[0], n)


def check_exactly_once_by_order(original: FuncOp, tiled: FuncOp, n: int) -> None:
    """Like check_exactly_once, matching the k-th store of the original with every tiled copy
    of it (copies of one statement appear in order in the then/else branches)."""
    orig = stores(original)
    mine = stores(tiled)
    per = len(mine) // len(orig)
    # the two functions have their own argument Values: name the symbols by position
    rename = {isl_name(t): isl_name(o) for t, o in zip(tiled.args, original.args, strict=True)}
    for k, s in enumerate(orig):
        ref = iteration_domain(s)
        covered = None
        for c in mine[k::len(orig)] if per > 1 else [mine[k]]:
            dom = iteration_domain(c)
            for j in range(dom.dim(isl.dim_type.param)):
                dom = dom.set_dim_name(isl.dim_type.param, j, rename[dom.get_dim_name(isl.dim_type.param, j)])
            proj, unique = _intra_projection(dom, n)
            assert unique, "an iteration belongs to two tiles"
            proj = _rename(proj, ref)
            assert covered is None or covered.intersect(proj).is_empty()
            covered = proj if covered is None else covered.union(proj)
        assert covered is not None and covered.is_equal(ref)


@settings(max_examples=5, deadline=None)
@given(st.data())
def test_random_bands_run_bit_identical(data):  # type: ignore[no-untyped-def]
    m = _random_band(data)
    text = print_module(m)
    loops = [o for o in m.funcs[0].walk() if isinstance(o, AffineForOp)]
    sizes = data.draw(st.lists(st.integers(1, 5), min_size=len(loops), max_size=len(loops)))
    p = tile(m, "tile-sizes=" + ",".join(map(str, sizes)) + " separate")
    assert not p.remarks  # no dependence between iterations: always tileable
    copies = 3 if all(lp.step == 1 for lp in loops) else 2  # separate needs unit steps
    assert sum(isinstance(o, AffineForOp) for o in m.funcs[0].walk()) == copies * len(loops)
    ref = parse_module(text)
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    for n_val, m_val in ((data.draw(st.integers(0, 12)), data.draw(st.integers(0, 12))), (9, 11)):
        inputs = {"A": rng.standard_normal(64).astype(np.float32),
                  "C": rng.standard_normal((24, 24, 24)).astype(np.float32), "N": n_val, "M": m_val}
        a = run_host(ref, inputs)
        b = run_host(m, inputs)
        assert np.array_equal(a["A"], b["A"]) and np.array_equal(a["C"], b["C"]), p.remarks


def test_band_with_opaque_call_is_refused():
    b = Builder()
    with b.func("f", A=memref((8, 8))) as (A,):
        for _i in b.range(8):
            for _j in b.range(8):
                b.call("ext", [A])
    ext = FuncOp("ext", FunctionType((memref((8, 8)),), ()), private=True, declaration=True)
    b.module.body.insert(0, ext)
    before = print_module(b.module)
    p = tile(b.module, "tile-sizes=2,2")
    assert print_module(b.module) == before
    assert len(p.remarks) == 1 and "func.call" in p.remarks[0].message



# ---- upstream where it is wrong (the FileCheck tests are in tests/lit/affine-loop-tile/) ----------

LIT = os.path.join(ROOT, "tests", "lit", "affine-loop-tile")


def test_upstream_tiles_the_illegal_skew_and_the_results_change(mlir_opt):  # type: ignore[no-untyped-def]
    """We refuse to tile illegal-skew.mlir (its lit test); mlir-opt-19 tiles it and is wrong."""
    path = os.path.join(LIT, "illegal-skew.mlir")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    up = subprocess.run([mlir_opt, "--affine-loop-tile=tile-sizes=4,4", path], capture_output=True,
                        text=True, check=True)
    orig, theirs = parse_module(text, path), parse_module(up.stdout)
    assert any(isinstance(o, AffineForOp) and o.step == 4 for o in theirs.walk())
    func = orig.funcs[0]
    inputs = random_inputs(func, 5)
    arrays = [inputs[n] for n in func.arg_names()]
    got = _execute(theirs, arrays)
    want = _execute(orig, arrays)
    assert any(not np.array_equal(a, b) for a, b in zip(got, want, strict=True))


def test_cache_model_unknown_footprint_falls_back_to_default_size():
    from compiler.ir import F32, INDEX

    b = Builder()
    with b.func("f", A=memref((None,)), S=memref((None,)), N=INDEX) as (A, S, N):
        for i in b.range(N):
            zero = b.constant(0.0, F32)
            with b.loop(0, N, iter_args=[zero]) as red:  # iter_args end the band at i
                b.yield_([red.region_iter_args[0] + A[red.iv]])
            S[i] = red.results[0]
    band = perfect_band(b.module.funcs[0].body.ops[0])  # type: ignore[arg-type]
    assert len(band) == 1
    # every i reads all of A[0 .. N-1]: no constant footprint, so MLIR's default size 4
    assert cache_tile_sizes(band, 1024) == [4]


def _only(text: str, func: str) -> ModuleOp:
    m = parse_module(text)
    for f in m.funcs:
        if f.sym_name != func:
            f.erase()
    return m


@pytest.mark.parametrize("func,upstream_wrong", [
    ("valid_to_tile", False), ("illegal_loop_with_diag_dependence", False),
    ("diag_dependence_aligned_tiles", False),
    ("flow_dep_distance_1_neg1", True), ("anti_dep", True)])
def test_upstream_validity_cases_ours_exact_upstream_not(mlir_opt, func, upstream_wrong):  # type: ignore[no-untyped-def]
    """tiling-validity.mlir: what we tile (the aligned diagonal case upstream refuses) or leave alone
    computes the original's arrays; mlir-opt-19's tiling of the (1, -1) bands does not."""
    with open(os.path.join(LIT, "tiling-validity.mlir"), encoding="utf-8") as fh:
        text = fh.read()
    orig = _only(text, func)
    mine = _only(text, func)
    tile(mine, "tile-size=32")
    up = subprocess.run([mlir_opt, "--affine-loop-tile=tile-size=32"], input=print_module(orig),
                        capture_output=True, text=True, check=True)
    theirs = parse_module(up.stdout)
    f = orig.funcs[0]
    inputs = random_inputs(f, 3)
    arrays = [inputs[n] for n in f.arg_names()]
    want = _execute(orig, arrays)
    for a, b in zip(_execute(mine, arrays), want, strict=True):
        np.testing.assert_array_equal(a, b)
    differs = any(not np.array_equal(a, b) for a, b in zip(_execute(theirs, arrays), want, strict=True))
    assert differs == upstream_wrong
