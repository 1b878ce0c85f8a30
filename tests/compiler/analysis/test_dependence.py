"""Dependences and legality answers against brute-force pairs of executed iterations."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis import (
    all_dependences,
    band_violation,
    dependences,
    is_band_permutable,
    is_parallel,
    is_valid_shift,
    isl_name,
    op_accesses,
    tiling_violation,
)
from compiler.analysis.dependence import _Cache, access_dependence, common_loops
from compiler.ir import INDEX, Builder, memref
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp


def loops_of(func):  # type: ignore[no-untyped-def]
    return [o for o in func.walk() if isinstance(o, AffineForOp)]


def brute_pairs(insts):  # type: ignore[no-untyped-def]
    """{(src op id, side, dst op id, side, depth): [(min, max) per common loop]} over ordered pairs."""
    by_elem = defaultdict(list)
    for x in insts:
        by_elem[(id(x.memref), x.element)].append(x)
    out: dict = {}
    for group in by_elem.values():
        for x in group:
            for y in group:
                if x.seq >= y.seq:
                    continue
                c = 0
                while c < min(len(x.loops), len(y.loops)) and x.loops[c] is y.loops[c]:
                    c += 1
                depth = next((k + 1 for k in range(c) if x.ivs[k] != y.ivs[k]), c + 1)
                key = (id(x.op), x.side, id(y.op), y.side, depth)
                deltas = [y.ivs[k] - x.ivs[k] for k in range(c)]
                if key not in out:
                    out[key] = [(d, d) for d in deltas]
                else:
                    out[key] = [(min(a, d), max(b, d)) for (a, b), d in zip(out[key], deltas, strict=True)]
    return out


def check_all_pairs(brute, func, symbols=None):  # type: ignore[no-untyped-def]
    """Every (access, access, depth) answer equals the brute-force one, components included."""
    truth = brute_pairs(brute.run_control(func, symbols or {}))
    fixed = {isl_name(a): symbols[a.name_hint] for a in func.args if a.name_hint in (symbols or {})}
    accs = [a for op in func.walk() for a in op_accesses(op)]
    cache = _Cache()
    for sa in accs:
        for da in accs:
            if sa.memref is not da.memref:
                continue
            n = len(common_loops(sa.op, da.op))
            for depth in range(1, n + 2):
                dep = access_dependence(sa, da, depth, cache)
                key = (id(sa.op), sa.side, id(da.op), da.side, depth)
                if dep is not None and fixed:
                    # the isl answer holds for every symbol value: specialise it to these
                    rel = brute.fix_params(dep.relation, fixed)
                    dep = None if rel.is_empty() else dep
                if key not in truth:
                    assert dep is None, f"spurious {dep}"
                else:
                    assert dep is not None, f"missed dependence at depth {depth}"
                    if not symbols:
                        assert list(dep.components) == truth[key]
    return truth


def test_even_odd_accesses_are_independent(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((64,)), N=INDEX) as (A, N):
        for i in b.range(N):
            A[2 * i + 1] = A[2 * i]
    f = b.module.funcs[0]
    ld = next(o for o in f.walk() if isinstance(o, AffineLoadOp))
    st_op = next(o for o in f.walk() if isinstance(o, AffineStoreOp))
    for depth in (1, 2):
        assert dependences(st_op, ld, depth) is None
        assert dependences(ld, st_op, depth) is None
    assert dependences(st_op, st_op, 1) is None
    assert is_parallel(loops_of(f)[0])
    check_all_pairs(brute, f, {"N": 20})


def test_gemm_reduction_carried_on_k_only(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("gemm", A=memref((4, 3)), B=memref((3, 5)), C=memref((4, 5))) as (A, B, C):
        for i in b.range(4):
            for j in b.range(5):
                for k in b.range(3):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    f = b.module.funcs[0]
    st_op = next(o for o in f.walk() if isinstance(o, AffineStoreOp))
    ld_c = next(o for o in f.walk() if isinstance(o, AffineLoadOp) and o.memref is f.args[2])
    assert dependences(st_op, ld_c, 1) is None
    assert dependences(st_op, ld_c, 2) is None
    flow = dependences(st_op, ld_c, 3)
    assert flow is not None and flow.kind == "flow"
    assert flow.components == ((0, 0), (0, 0), (1, 2))
    assert flow.direction == ("=", "=", "<")
    anti = dependences(ld_c, st_op, 4)
    assert anti is not None and anti.kind == "anti" and anti.distance == (0, 0, 0)
    carried = {d.depth for d in all_dependences(f)}
    assert carried == {3, 4}
    i, j, k = loops_of(f)
    assert is_parallel(i) and is_parallel(j) and not is_parallel(k)
    assert is_band_permutable([i, j, k])
    check_all_pairs(brute, f)


def test_skewed_stencil_is_not_permutable(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("s", A=memref((8, 8))) as (A,):
        for i in b.range(1, 8):
            for j in b.range(0, 7):
                A[i, j] = A[i - 1, j + 1] + A[i, j]
    f = b.module.funcs[0]
    i, j = loops_of(f)
    assert not is_band_permutable([i, j])
    dep = band_violation([i, j])
    assert dep is not None and dep.kind == "flow" and dep.distance == (1, -1)
    assert "flow dependence on %A" in str(dep)
    assert not is_parallel(i) and is_parallel(j)
    assert is_band_permutable([j])  # a single inner loop is always fine
    check_all_pairs(brute, f)


def test_strided_mod_floordiv_and_if(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((64,)), N=INDEX) as (A, N):
        for i in b.range(1, N, 3):
            A[i // 2] = A[i % 4 + 40]
            for j in b.range(i, [N, i + 5]):
                with b.if_(j >= 2 * i - 3):
                    A[(j + i) % 7 + 20] = A[2 * j]
    f = b.module.funcs[0]
    for n in (5, 14):
        check_all_pairs(brute, f, {"N": n})


def _random_two_statement_nest(data):  # type: ignore[no-untyped-def]
    b = Builder()
    depth = data.draw(st.integers(1, 3))
    with b.func("r", A=memref((64, 64))) as (A,):
        ivs: list = []

        def idx():  # type: ignore[no-untyped-def]
            e = 20 + data.draw(st.integers(-2, 2))
            for v in ivs:
                e = v * data.draw(st.integers(-1, 2)) + e
            kind = data.draw(st.sampled_from(["plain", "plain", "floordiv", "mod"]))
            if kind == "floordiv":
                return e // 2
            if kind == "mod":
                return e % 3 + 10
            return e

        def nest(level: int) -> None:
            if level == depth:
                x = A[idx(), idx()]
                A[idx(), idx()] = x
                A[idx(), idx()] = A[idx(), idx()] + x
                return
            lo = data.draw(st.integers(0, 2))
            hi = data.draw(st.integers(lo, lo + 4))
            lo_e = lo if not ivs or data.draw(st.booleans()) else ivs[-1] + lo
            for iv in b.range(lo_e, hi, data.draw(st.integers(1, 2))):
                ivs.append(iv)
                nest(level + 1)

        nest(0)
    return b.module.funcs[0]


@settings(max_examples=30)
@given(st.data())
def test_random_nests_dependences_match_brute_force(brute, data):  # type: ignore[no-untyped-def]
    f = _random_two_statement_nest(data)
    truth = check_all_pairs(brute, f)
    loops = loops_of(f)
    # is_parallel: no pair of instances (one a write) first differs at this loop
    for lp in loops:
        depth = loops.index(lp) + 1
        writes = {id(o) for o in f.walk() if isinstance(o, AffineStoreOp)}
        carried = any(k[4] == depth and (k[0] in writes or k[2] in writes) for k in truth)
        assert is_parallel(lp) == (not carried)
    # band permutability of the whole nest: no write-involving pair with a negative delta
    writes = {id(o) for o in f.walk() if isinstance(o, AffineStoreOp)}
    negative = any((k[0] in writes or k[2] in writes) and any(lo < 0 for lo, _ in comps)
                   for k, comps in truth.items())
    assert is_band_permutable(loops) == (not negative)


# ---- op-wise shifts -------------------------------------------------------------------

def _shift_order_ok(brute, func, loop, shifts):  # type: ignore[no-untyped-def]
    """Execute the schedule in which body op k of iteration t runs at iteration t + shifts[k];
    within one time step the groups run in ascending shift order (as the skew emits them),
    each in program order."""
    insts = brute.run_control(func, {})
    body = loop.body.ops
    depth = next(k for k, lp in enumerate(loops_of(func)) if lp is loop)

    def top(op):  # type: ignore[no-untyped-def]
        while op.parent_block is not loop.body:
            op = op.parent_op
        return next(k for k, o in enumerate(body) if o is op)

    def sched(x):  # type: ignore[no-untyped-def]
        k = top(x.op)
        it = (x.ivs[depth] - loop.constant_lower) // loop.step
        return (*x.ivs[:depth], it + shifts[k], shifts[k], k, x.seq)

    by_elem = defaultdict(list)
    for x in insts:
        by_elem[(id(x.memref), x.element)].append(x)
    for group in by_elem.values():
        for x in group:
            for y in group:
                if x.seq < y.seq and (x.is_write or y.is_write) and sched(x) > sched(y):
                    return False
    return True


def _pipeline(buffers: int):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("p", A=memref((10,)), Out=memref((10,)), buf=memref((2,))) as (A, Out, buf):
        for i in b.range(10):
            buf[i % buffers] = A[i]
            Out[i] = buf[i % buffers]
    return b.module.funcs[0]


def test_double_buffer_shift_is_valid_single_buffer_is_not(brute):  # type: ignore[no-untyped-def]
    f2 = _pipeline(2)
    (lp,) = loops_of(f2)
    n = len(lp.body.ops)  # load A, store buf, load buf, store Out, yield
    assert is_valid_shift(lp, [0, 0, 1, 1, 0][:n])
    assert _shift_order_ok(brute, f2, lp, [0, 0, 1, 1, 0])
    f1 = _pipeline(1)
    (lp1,) = loops_of(f1)
    assert not is_valid_shift(lp1, [0, 0, 1, 1, 0])
    assert not _shift_order_ok(brute, f1, lp1, [0, 0, 1, 1, 0])
    # SSA: a load and the store of its value must move together
    assert not is_valid_shift(lp, [0, 1, 1, 1, 0])


@given(st.data())
def test_random_shifts_match_brute_force(brute, data):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("s", A=memref((40,)), B=memref((40,))) as (A, B):
        for i in b.range(2, 12, data.draw(st.integers(1, 2))):
            for _ in range(data.draw(st.integers(1, 3))):
                src = data.draw(st.sampled_from([A, B]))
                dst = data.draw(st.sampled_from([A, B]))
                dst[i + data.draw(st.integers(-2, 2)) + 10] = src[i + data.draw(st.integers(-2, 2)) + 10]
    f = b.module.funcs[0]
    (lp,) = loops_of(f)
    # loads and stores pair up (SSA), so shift them per statement
    stmts = (len(lp.body.ops) - 1) // 2
    per = [data.draw(st.integers(0, 2)) for _ in range(stmts)]
    shifts = [s for s in per for _ in range(2)] + [0]
    assert is_valid_shift(lp, shifts) == _shift_order_ok(brute, f, lp, shifts)


# ---- exact tiling legality ----------------------------------------------------------------

@settings(max_examples=40)
@given(st.data())
def test_tiling_violation_matches_brute_force_tiled_order(brute, data):  # type: ignore[no-untyped-def]
    b = Builder()
    depth = data.draw(st.integers(1, 3))
    with b.func("t", A=memref((64, 64))) as (A,):
        ivs: list = []

        def idx():  # type: ignore[no-untyped-def]
            e = 20 + data.draw(st.integers(-2, 2))
            for v in ivs:
                e = v * data.draw(st.integers(-1, 1)) + e
            return e

        def nest(level: int) -> None:
            if level == depth:
                A[idx(), idx()] = A[idx(), idx()] + 1.0
                return
            lo = data.draw(st.integers(0, 2))
            for iv in b.range(lo, lo + data.draw(st.integers(1, 5)), data.draw(st.integers(1, 2))):
                ivs.append(iv)
                nest(level + 1)

        nest(0)
    f = b.module.funcs[0]
    loops = loops_of(f)
    sizes = [data.draw(st.integers(1, 4)) for _ in loops]
    broken = tiling_violation(loops, sizes) is not None

    def key(x):  # type: ignore[no-untyped-def]
        tiles = tuple((x.ivs[k] - lp.constant_lower) // (lp.step * sizes[k]) for k, lp in enumerate(loops))
        return tiles + tuple(x.ivs[: len(loops)])

    by_elem = defaultdict(list)
    for x in brute.run_control(f, {}):
        by_elem[x.element].append(x)
    truth = any(x.seq < y.seq and (x.is_write or y.is_write) and x.ivs != y.ivs and key(y) < key(x)
                for g in by_elem.values() for x in g for y in g)
    assert broken == truth
    assert tiling_violation(loops, [1] * len(loops)) is None  # unit tiles keep the order


def _dma_pipeline(nbuf: int):  # type: ignore[no-untyped-def]
    """Per iteration: DMA a row of A into buf[i mod nbuf], wait, then read the buffer."""
    b = Builder()
    with b.func("p", A=memref((8, 16)), Out=memref((8, 16)),
                tag=memref((2,), element=INDEX)) as (A, Out, tag):
        buf = b.alloc(memref((2, 16), space=1), "buf")
        n = b.index(16)
        with b.loop(0, 8) as lp:
            b.dma_start(A, [lp.iv, 0], buf, [lp.iv % nbuf, 0], tag, [lp.iv % nbuf], n)
            b.dma_wait(tag, [lp.iv % nbuf], n)
            for j in b.range(16):
                Out[lp.iv, j] = buf[lp.iv % nbuf, j]
    return b.module.funcs[0], lp


def test_dma_dependences_cover_the_transferred_range():
    f, _lp = _dma_pipeline(2)
    dma = next(o for o in f.walk() if o.NAME == "affine.dma_start")
    ld = next(o for o in f.walk() if isinstance(o, AffineLoadOp))
    flow = dependences(dma, ld, 2)  # same iteration of the loop, DMA first
    assert flow is not None and flow.kind == "flow" and flow.dst_side == "" and flow.src_side == "dst"
    anti = dependences(ld, dma, 1)  # the buffer half is refilled two iterations later
    assert anti is not None and anti.kind == "anti" and anti.components == ((2, 6),)


def test_dma_pipeline_shift_needs_double_buffering():
    _f2, lp2 = _dma_pipeline(2)
    # ops: dma_start, dma_wait, compute loop, yield; shift the wait and the compute by one
    assert len(lp2.body.ops) == 4
    assert is_valid_shift(lp2, [0, 1, 1, 0])
    assert not is_valid_shift(lp2, [1, 0, 0, 0])  # the wait would run before its start
    _f1, lp1 = _dma_pipeline(1)
    assert is_valid_shift(lp1, [0, 0, 0, 0])
    assert not is_valid_shift(lp1, [0, 1, 1, 0])  # refill overwrites the buffer being read
