"""Access relations and iteration domains against closed forms and executed accesses."""

from __future__ import annotations

import islpy as isl
import pytest

from compiler.analysis import (
    AnalysisError,
    access_relation,
    isl_name,
    iteration_domain,
    memref_regions,
)
from compiler.ir import INDEX, Builder, memref
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineForOp, AffineStoreOp


def _relation_pairs(brute, rel: isl.Map, fixed: dict[str, int]) -> set[tuple[int, ...]]:  # type: ignore[no-untyped-def]
    return brute.points(brute.fix_params(rel.wrap(), fixed))


def test_load_store_relations_equal_executed_accesses(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((40, 40)), N=INDEX) as (A, N):
        for i in b.range(0, N, 2):
            for j in b.range(i // 2, [N, i + 4]):
                with b.if_(j >= 3) as guard:
                    A[j % 5, i + j] = 1.0
                with b.else_(guard):
                    A[2 * j, (i + 1) // 3] = 2.0
    f = b.module.funcs[0]
    then_st, else_st = (o for o in f.walk() if isinstance(o, AffineStoreOp))
    for n in (0, 5, 9):
        insts = brute.run_control(f, {"N": n})
        fixed = {isl_name(f.args[1]): n}
        for op in (then_st, else_st):
            want = {(*x.ivs, *x.element) for x in insts if x.op is op}
            assert _relation_pairs(brute, access_relation(op), fixed) == want
            dom = brute.points(brute.fix_params(iteration_domain(op), fixed))
            assert dom == {x.ivs for x in insts if x.op is op}


def test_dma_sides_start_element_and_full_range(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((6, 8)), tag=memref((2,), element=INDEX)) as (A, tag):
        buf = b.alloc(memref((2, 8), space=1), "buf")
        for i in b.range(0, 6, 2):
            b.dma_start(A, [i, 0], buf, [0, 0], tag, [i % 2], 16)
            b.dma_wait(tag, [i % 2], 16)
    f = b.module.funcs[0]
    dma = next(o for o in f.walk() if isinstance(o, AffineDmaStartOp))
    wait = next(o for o in f.walk() if isinstance(o, AffineDmaWaitOp))
    start = _relation_pairs(brute, access_relation(dma, "src", full_range=False), {})
    assert start == {(0, 0, 0), (2, 2, 0), (4, 4, 0)}
    full = _relation_pairs(brute, access_relation(dma, "src"), {})
    assert full == {(i, i + r, c) for i in (0, 2, 4) for r in range(2) for c in range(8)}
    dst = _relation_pairs(brute, access_relation(dma, "dst"), {})
    assert dst == {(i, r, c) for i in (0, 2, 4) for r in range(2) for c in range(8)}
    assert _relation_pairs(brute, access_relation(wait), {}) == {(0, 0), (2, 0), (4, 0)}
    with pytest.raises(ValueError, match="side must be src, dst or tag"):
        access_relation(dma, "")


def test_depth_ops_projects_the_other_outer_loops(brute):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", A=memref((8, 8))) as (A,):
        for i in b.range(8):
            for j in b.range(8):
                for k in b.range(3):
                    A[i, (j + k) % 8] = 0.0
    f = b.module.funcs[0]
    i, j, k = (o for o in f.walk() if isinstance(o, AffineForOp))
    full = memref_regions([k])  # parameters i, j
    (reg,) = full.values()
    assert reg.params == (i.iv, j.iv) and reg.extents == (1, 8)
    only_i = memref_regions([k], depth_ops=[i])  # j projected out
    (reg_i,) = only_i.values()
    assert reg_i.params == (i.iv,) and reg_i.extents == (1, 8)
    got = brute.points(brute.fix_params(reg_i.exact, {isl_name(i.iv): 3}))
    assert got == {(3, c) for c in range(8)}
    with pytest.raises(ValueError, match="does not enclose"):
        memref_regions([i], depth_ops=[k])


def test_semi_affine_index_is_refused_with_location():
    b = Builder()
    with b.func("f", A=memref((8,)), N=INDEX) as (A, _N):
        for i in b.range(4):
            A[i] = 1.0
    f = b.module.funcs[0]
    st_op = next(o for o in f.walk() if isinstance(o, AffineStoreOp))
    from compiler.ir.affine_expr import Dim, Sym
    from compiler.ir.affine_map import AffineMap
    st_op.set_access(f.args[0], AffineMap(1, 1, (Dim(0) * Sym(0),)), [st_op.indices[0], f.args[1]])
    with pytest.raises(AnalysisError, match="semi-affine"):
        access_relation(st_op)
