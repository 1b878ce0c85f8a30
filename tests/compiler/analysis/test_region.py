"""Regions and footprints against brute-force enumeration of the accessed elements."""

from __future__ import annotations

import islpy as isl
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis import (
    enclosing_loops,
    footprint_bytes,
    isl_name,
    iteration_domain,
    memref_regions,
)
from compiler.ir import INDEX, Builder, memref
from compiler.ir.affine_eval import evaluate_expr
from compiler.ir.ops import AffineForOp, AffineLoadOp


def loops_of(func):  # type: ignore[no-untyped-def]
    return [o for o in func.walk() if isinstance(o, AffineForOp)]


def check_regions(brute, func, ops, symbols):  # type: ignore[no-untyped-def]
    """Exact sets, written sets and bounding boxes vs. the executed accesses, per outer iteration."""
    regions = memref_regions(ops)
    outer = enclosing_loops(ops[0])
    inside = {id(x) for op in ops for x in op.walk()}
    groups: dict[tuple[int, ...], dict[int, tuple[set, set]]] = {}
    for inst in brute.run_control(func, symbols):
        if id(inst.op) not in inside:
            continue
        key = inst.ivs[: len(outer)]
        per = groups.setdefault(key, {})
        allset, wset = per.setdefault(id(inst.memref), (set(), set()))
        allset.add(inst.element)
        if inst.is_write:
            wset.add(inst.element)
    sym_names = {isl_name(a): symbols[a.name_hint] for a in func.args if a.name_hint in symbols}
    by_id = {id(m): r for m, r in regions.items()}
    accessed = {mid for per in groups.values() for mid in per}
    assert accessed <= set(by_id), "every accessed memref has a region"
    for mid in set(by_id) - accessed:  # statically accessed, but not for these symbol values
        assert brute.fix_params(by_id[mid].exact, sym_names).is_empty()
    spans: dict[int, list[int]] = {mid: [0] * by_id[mid].rank for mid in accessed}
    for key, per in groups.items():
        values = dict(sym_names)
        values.update({isl_name(lp.iv): v for lp, v in zip(outer, key, strict=True)})
        for mid, (allset, wset) in per.items():
            reg = by_id[mid]
            assert brute.points(brute.fix_params(reg.exact, values)) == allset
            assert brute.points(brute.fix_params(reg.written_set, values)) == wset
            assert reg.written == bool(wset) or any(bool(p[mid][1]) for p in groups.values() if mid in p)
            env = {id(v): values[isl_name(v)] for v in reg.params}
            for d in range(reg.rank):
                lo = reg.lower[d]
                lo_val = evaluate_expr(lo.expr, [env[id(v)] for v in lo.operands])
                coords = [e[d] for e in allset]
                assert lo_val <= min(coords)
                if reg.extents[d] is not None:
                    assert max(coords) <= lo_val + reg.extents[d] - 1
                spans[mid][d] = max(spans[mid][d], max(coords) - lo_val + 1)
            box = brute.points(brute.fix_params(reg.box, values))
            assert allset <= box
    for mid in accessed:
        reg = by_id[mid]
        for d in range(reg.rank):
            if reg.extents[d] is not None and not symbols:
                # with symbols the extent is the maximum over every symbol value, not these
                assert spans[mid][d] == reg.extents[d], "the extent is the maximum span"
    return regions


def tiled_gemm(M, N, K, T):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("gemm", A=memref((M, K)), B=memref((K, N)), C=memref((M, N))) as (A, B, C):
        for i0 in b.range(0, M, T):
            for j0 in b.range(0, N, T):
                for k0 in b.range(0, K, T):
                    for i in b.range(i0, [i0 + T, M]):
                        for j in b.range(j0, [j0 + T, N]):
                            for k in b.range(k0, [k0 + T, K]):
                                C[i, j] = C[i, j] + A[i, k] * B[k, j]
    return b.module.funcs[0]


def test_tiled_gemm_regions_match_brute_force(brute):  # type: ignore[no-untyped-def]
    f = tiled_gemm(13, 10, 11, 4)
    loops = loops_of(f)
    for depth in (1, 2, 3, 4):
        regions = check_regions(brute, f, [loops[depth]], {})
    regions = memref_regions([loops[3]])
    assert all(r.extents == (4, 4) for r in regions.values())


def test_gemm_partial_tile_region_is_32x32_and_clipped():
    f = tiled_gemm(50, 40, 48, 32)
    loops = loops_of(f)
    regions = memref_regions([loops[3]])
    A, _B, C = f.args
    ra = regions[A]
    i0, _j0, k0 = (lp.iv for lp in loops[:3])
    assert ra.extents == (32, 32)
    assert ra.lower[0].operands == (i0,) and str(ra.lower[0].expr) == "d0"
    assert ra.lower[1].operands == (k0,) and str(ra.lower[1].expr) == "d0"
    assert ra.read and not ra.written
    assert ra.clipped == (True, True)  # i0 = 32: rows 32..63 but A has 50
    assert ra.size_bytes() == 32 * 32 * 4
    rc = regions[C]
    assert rc.read and rc.written and rc.clipped == (True, True)
    # the clipped box is exactly the accessed set here (the accesses fill the tile)
    assert rc.clipped_box.is_equal(rc.exact)
    assert footprint_bytes(loops[3]) == 3 * 32 * 32 * 4
    ubs = ra.upper_bounds(0)  # min(i0 + 32, 50): where a copy of the tile must stop
    assert [str(u.expr) for u in ubs] == ["d0 + 32", "50"] and ubs[0].operands == (i0,)


def test_footprint_per_memory_space():
    b = Builder()
    with b.func("f", A=memref((16, 16)), B=memref((8, 16), space=1)) as (A, B):
        for i in b.range(8):
            for j in b.range(16):
                B[i, j] = A[2 * i, j]
    f = b.module.funcs[0]
    (lp, inner) = loops_of(f)
    # A: rows 0, 2, .., 14 -> box 15 x 16; B: 8 x 16 (one byte width: f32)
    assert footprint_bytes(lp, 0) == 15 * 16 * 4
    assert footprint_bytes(lp, 1) == 8 * 16 * 4
    assert footprint_bytes(lp) == (15 + 8) * 16 * 4
    assert footprint_bytes(inner) == 2 * 16 * 4
    assert footprint_bytes(lp, 2) == 0


def test_gemm_regions_at_every_depth(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("gemm", A=memref((6, 5)), B=memref((5, 4)), C=memref((6, 4))) as (A, B, C):
        for i in b.range(6):
            for j in b.range(4):
                for k in b.range(5):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    f = b.module.funcs[0]
    loops = loops_of(f)
    for lp in loops:
        check_regions(brute, f, [lp], {})
    top = memref_regions([loops[0]])
    assert [r.extents for r in top.values()] == [(6, 4), (6, 5), (5, 4)]
    assert not any(r.is_clipped for r in top.values())
    assert footprint_bytes(loops[0]) == (24 + 30 + 20) * 4
    inner = memref_regions([loops[2]])
    assert inner[f.args[1]].extents == (5, 1)


def test_jacobi_stencil_region(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    n = 9
    with b.func("jacobi", A=memref((n, n)), B=memref((n, n))) as (A, B):
        for i in b.range(1, n - 1):
            for j in b.range(1, n - 1):
                B[i, j] = A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1]
    f = b.module.funcs[0]
    loops = loops_of(f)
    regs = check_regions(brute, f, [loops[1]], {})
    ra = regs[f.args[0]]
    assert ra.extents == (3, n) and str(ra.lower[0].expr) == "d0 - 1"
    regs = check_regions(brute, f, [loops[0]], {})
    assert regs[f.args[0]].extents == (n, n) and regs[f.args[1]].extents == (n - 2, n - 2)


def test_symbolic_bounds_strides_mod_floordiv_if(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((64,)), C=memref((16, 16)), N=INDEX) as (A, C, N):
        for i in b.range(1, N, 3):
            A[i // 2] = A[i % 4 + 40]
            for j in b.range(i, [N, i + 5]):
                with b.if_(j >= 2 * i - 3):
                    C[j - i, (i + j) // 3] = A[2 * j]
    f = b.module.funcs[0]
    loops = loops_of(f)
    for n in (1, 4, 11, 13):
        check_regions(brute, f, [loops[0]], {"N": n})
        check_regions(brute, f, [loops[1]], {"N": n})
    regs = memref_regions([loops[0]])
    ra = regs[f.args[0]]
    assert ra.extents == (None,) and ra.params == (f.args[2],)


def test_symbolic_extent():
    b = Builder()
    with b.func("f", A=memref((None,)), N=INDEX) as (A, N):
        for i in b.range(N):
            A[i] = A[i] + 1.0
    f = b.module.funcs[0]
    (reg,) = memref_regions(loops_of(f)).values()
    assert reg.extents == (None,) and reg.size_bytes() is None
    ext = reg.symbolic_extents[0]
    assert ext is not None and ext.operands == (f.args[1],) and str(ext.expr) == "d0"
    assert footprint_bytes(loops_of(f)[0]) is None


def test_iteration_domain_with_step_and_if():
    b = Builder()
    with b.func("f", A=memref((100,)), N=INDEX) as (A, N):
        for i in b.range(2, N, 3):
            with b.if_(i >= 7):
                A[i] = 1.0
    f = b.module.funcs[0]
    st_op = next(o for o in f.walk() if o.NAME == "affine.store")
    dom = iteration_domain(st_op)
    (_lp,) = loops_of(f)
    n = isl_name(f.args[1])
    ref = isl.Set(f"[{n}] -> {{ [i] : 7 <= i < {n} and exists (e: i = 2 + 3e) }}")
    assert dom.is_equal(ref)


def test_dma_full_range_region(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((8, 10)), tag=memref((1,), element=INDEX)) as (A, tag):
        fast = b.alloc(memref((4, 6), space=1), "buf")
        for i in b.range(0, 8, 4):
            b.dma_start(A, [i, 2], fast, [0, 0], tag, [0], 24, 10, 6)
            b.dma_wait(tag, [0], 24)
    f = b.module.funcs[0]
    loops = loops_of(f)
    regs = memref_regions(loops_of(f))
    ra = regs[f.args[0]]
    assert ra.extents == (8, 6) and ra.read and not ra.written
    i_vals = {isl_name(loops[0].iv): 4}
    dma = [o for o in loops[0].body.ops if o.NAME == "affine.dma_start"]
    inner = memref_regions(dma)
    got = brute.points(brute.fix_params(inner[f.args[0]].exact, i_vals))
    assert got == {(r, c) for r in range(4, 8) for c in range(2, 8)}
    rb = inner[next(v for v in inner if v.name_hint == "buf")]
    assert rb.written and rb.extents == (4, 6)


def _random_nest(data):  # type: ignore[no-untyped-def]
    b = Builder()
    depth = data.draw(st.integers(1, 3))
    with b.func("r", A=memref((64, 64)), B=memref((64,))) as (A, B):
        ivs: list = []

        def idx():  # type: ignore[no-untyped-def]
            e = 20
            for v in ivs:
                e = v * data.draw(st.integers(-1, 2)) + e
            kind = data.draw(st.sampled_from(["plain", "floordiv", "mod"]))
            if kind == "floordiv":
                return e // data.draw(st.integers(2, 3))
            if kind == "mod":
                return e % data.draw(st.integers(2, 4)) + 10
            return e

        def nest(level: int) -> None:
            if level == depth:
                A[idx(), idx()] = B[idx()] + A[idx(), idx()]
                return
            lo = data.draw(st.integers(0, 3))
            hi = data.draw(st.integers(lo, lo + 5))
            lo_e = lo if not ivs or data.draw(st.booleans()) else ivs[-1] + lo
            hi_e = hi if not ivs or data.draw(st.booleans()) else [hi, ivs[-1] + hi]
            for iv in b.range(lo_e, hi_e, data.draw(st.integers(1, 3))):
                ivs.append(iv)
                nest(level + 1)

        nest(0)
    return b.module.funcs[0]


@settings(max_examples=35)
@given(st.data())
def test_random_nests_regions_match_brute_force(brute, data):  # type: ignore[no-untyped-def]
    f = _random_nest(data)
    loops = loops_of(f)
    k = data.draw(st.integers(0, len(loops) - 1))
    check_regions(brute, f, [loops[k]], {})


def test_load_is_region_of_read_only():
    b = Builder()
    with b.func("f", A=memref((4,)), B=memref((4,))) as (A, B):
        for i in b.range(4):
            B[i] = A[i]
    f = b.module.funcs[0]
    loads = [o for o in f.walk() if isinstance(o, AffineLoadOp)]
    regs = memref_regions(loads)
    assert list(regs) == [f.args[0]]
    assert regs[f.args[0]].written_set.is_empty()
