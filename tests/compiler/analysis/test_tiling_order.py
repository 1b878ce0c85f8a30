"""`compiler.analysis.tiling_order`: the tiled (or fused) order against the dependences.

Exactness is checked against brute force (every pair of statement instances enumerated in
Python, ordered by the original program and by the tiled keys), and the question serves
fusion too: mvt's two nests fused with the second interchanged keep every dependence; a
consumer fused with a producer it reads ahead of does not."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis.tiling_order import TiledStatement, TileGrid, tiled_order_violation
from compiler.ir import Builder, memref
from compiler.ir.ops import AffineForOp, ModuleOp


def _mvt(n: int) -> ModuleOp:
    b = Builder()
    with b.func("mvt", x1=memref((n,)), x2=memref((n,)), y1=memref((n,)), y2=memref((n,)),
                A=memref((n, n))) as (x1, x2, y1, y2, A):
        for i in b.range(n):
            for j in b.range(n):
                x1[i] = x1[i] + A[i, j] * y1[j]
        for i in b.range(n):
            for j in b.range(n):
                x2[i] = x2[i] + A[j, i] * y2[j]
    return b.module


def _nests(module: ModuleOp) -> list[AffineForOp]:
    return [op for op in module.funcs[0].body.ops if isinstance(op, AffineForOp)]


def _fused(nests: list[AffineForOp], order2: tuple[int, int], size: int) -> list[TiledStatement]:
    """Both 2-deep nests under shared loops (d0, d1); the second nest's loops mapped to
    (d0, d1) in `order2` ((1, 0): interchanged). Statement 1 first under d1."""
    stmts = []
    for k, root in enumerate(nests):
        inner = root.body.ops[0]
        assert isinstance(inner, AffineForOp)
        loops = [root, inner]
        if k == 1:
            loops = [loops[order2[0]], loops[order2[1]]]
        body = tuple(op for op in inner.body.ops if not op.IS_TERMINATOR)
        stmts.append(TiledStatement(body, tuple(TileGrid(lp, size, True) for lp in loops), (0, k)))
    return stmts


def test_mvt_fused_interchanged_keeps_every_dependence():
    m = _mvt(6)
    nests = _nests(m)
    for size in (1, 2, 4):
        assert tiled_order_violation(nests, _fused(nests, (1, 0), size)) is None
        assert tiled_order_violation(nests, _fused(nests, (0, 1), size)) is None


def test_a_consumer_reading_ahead_cannot_be_fused():
    b = Builder()
    with b.func("pc", A=memref((9,)), B=memref((9,)), C=memref((8,))) as (A, B, C):
        for i in b.range(8):
            B[i] = A[i] * 2.0
        for i in b.range(8):
            C[i] = B[i + 1] + 1.0
    nests = _nests(b.module)
    stmts = [TiledStatement(tuple(op for op in r.body.ops if not op.IS_TERMINATOR),
                            (TileGrid(r, 1, True),), (k,)) for k, r in enumerate(nests)]
    dep = tiled_order_violation(nests, stmts)
    assert dep is not None and dep.kind == "flow" and dep.memref.name_hint == "B"
    # in tiles of 8 (the whole range) the producer runs first: legal
    whole = [TiledStatement(s.ops, (TileGrid(s.path[0].loop, 8, True),), s.positions) for s in stmts]
    assert tiled_order_violation(nests, whole) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(1, 5),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9)), min_size=4, max_size=4),
       st.lists(st.booleans(), min_size=2, max_size=2))
def test_agrees_with_brute_force(n, size, maps, same_array):  # type: ignore[no-untyped-def]
    """S1(i): P[a i + b] = Q[c i + d]; S2(j): R[e j + f] = T[g j + h] (R, T among P, Q), both
    loops fused under one loop tiled by `size`, S1 first in each tile."""
    (a, b), (c, d), (e, f), (g, h) = maps
    b_ = Builder()
    with b_.func("f", P=memref((64,)), Q=memref((64,))) as (P, Q):
        R, T = (P, Q) if same_array[0] else (Q, P)
        if same_array[1]:
            T = R
        for i in b_.range(n):
            P[i * a + b] = Q[i * c + d] + 1.0
        for j in b_.range(n):
            R[j * e + f] = T[j * g + h] * 2.0
    nests = _nests(b_.module)
    stmts = [TiledStatement(tuple(op for op in r.body.ops if not op.IS_TERMINATOR),
                            (TileGrid(r, size, True),), (k,)) for k, r in enumerate(nests)]
    got = tiled_order_violation(nests, stmts)
    # brute force: instances (stmt, iv) in program order, their accesses and keys
    names = ("P", "Q")
    r_name, t_name = (names if same_array[0] else names[::-1])
    if same_array[1]:
        t_name = r_name
    inst = [(0, i, {("P", a * i + b)}, {("Q", c * i + d)}) for i in range(n)]
    inst += [(1, j, {(r_name, e * j + f)}, {(t_name, g * j + h)}) for j in range(n)]

    def key(s: int, iv: int) -> tuple[int, int, int]:
        return (iv // size, s, iv)

    broken = False
    for (x, y) in itertools.combinations(inst, 2):  # x before y in the original program
        conflict = (x[2] & (y[2] | y[3])) or (y[2] & x[3])
        if conflict and key(y[0], y[1]) < key(x[0], x[1]):
            broken = True
    assert (got is not None) == broken
