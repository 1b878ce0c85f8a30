"""Bounds checks against a Python interpreter of the same random loop nests (seeded).

Each case is a random nest (1-3 loops: constant, IV-dependent, symbolic and min/max bounds,
steps 1-3, imperfect bodies, affine.if guards) of statements `B[f(ivs)] = A[g(ivs)] + 1`
with random affine indices (negative coefficients, floordiv/mod, the symbol). Python runs
the nest and lists every access outside its memref. Then, for each checking mode (isl proofs
+ hoisting, hoisting alone, per-access checks alone):
- no access outside: the checked run succeeds with the unchecked run's bits (and Python's);
- some access outside: the run raises OutOfBoundsError at one of those accesses, with an
  index that access really reaches; per-access checks name exactly the first one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
import pytest

from compiler.backend import CACHE, OutOfBoundsError
from compiler.backend.lower import LoweringOptions
from compiler.diagnostics import Location
from compiler.ir import F32, INDEX, Builder, memref
from compiler.ir.builder import IndexExpr

MODES = {
    "proofs": LoweringOptions(bounds_check=True),
    "hoisted": LoweringOptions(bounds_check=True, prove_bounds=False),
    "per-access": LoweringOptions(bounds_check=True, prove_bounds=False, hoist_checks=False),
}


@dataclass
class Affine:
    """sum(coeffs[k] * iv_k) + sym * n + const, then optionally `// div` or `% mod`."""

    coeffs: list[int]
    sym: int
    const: int
    div: int = 0
    mod: int = 0

    def ir(self, ivs: list, n):  # type: ignore[no-untyped-def]
        e = self.const
        for c, iv in zip(self.coeffs, ivs):
            if c:
                e = iv * c + e
        if self.sym:
            e = n * self.sym + e
        if self.div:
            e = e // self.div
        if self.mod:
            e = e % self.mod
        return e

    def py(self, ivs: list[int], n: int) -> int:
        e = self.const + sum(c * v for c, v in zip(self.coeffs, ivs)) + self.sym * n
        if self.div:
            e //= self.div
        if self.mod:
            e %= self.mod
        return e


@dataclass
class Stmt:
    line: int
    load: list[Affine]
    store: list[Affine]
    guard: Affine | None = None  # runs where guard >= 0


@dataclass
class Loop:
    lower: list[Affine]  # max of
    upper: list[Affine]  # min of
    step: int
    body: list = field(default_factory=list)  # Stmt | Loop


@dataclass
class Case:
    a_shape: tuple[int, ...]
    b_shape: tuple[int, ...]
    n: int
    body: list


def _affine(rng: random.Random, depth: int, small: bool = False) -> Affine:
    coeffs = [rng.choice([0, 0, 1, 1, 1, -1, 2]) for _ in range(depth)]
    e = Affine(coeffs, rng.choice([0, 0, 0, 0, 1, -1]), rng.randint(-2, 3) if small else rng.randint(-1, 3))
    roll = rng.random()
    if roll < 0.12:
        e.div = rng.randint(2, 3)
    elif roll < 0.2:
        e.mod = rng.randint(2, 5)
    return e


def _bound(rng: random.Random, depth: int) -> Affine:
    coeffs = [rng.choice([0, 0, 0, 1]) for _ in range(depth)]
    return Affine(coeffs, rng.choice([0, 0, 1]), rng.randint(-1, 5))


def _body(rng: random.Random, depth: int, max_depth: int, lines: list[int], rank_a: int,
          rank_b: int) -> list:
    out: list = []
    for _ in range(rng.randint(1, 2)):
        if depth < max_depth and rng.random() < 0.6:
            lower = [_bound(rng, depth) for _ in range(rng.choice([1, 1, 2]))]
            upper = [_bound(rng, depth) for _ in range(rng.choice([1, 1, 2]))]
            for u in upper:
                u.const += rng.randint(1, 4)
            loop = Loop(lower, upper, rng.choice([1, 1, 1, 2, 3]))
            loop.body = _body(rng, depth + 1, max_depth, lines, rank_a, rank_b)
            out.append(loop)
        else:
            lines[0] += 1
            guard = _affine(rng, depth, small=True) if rng.random() < 0.2 else None
            out.append(Stmt(lines[0], [_affine(rng, depth) for _ in range(rank_a)],
                            [_affine(rng, depth) for _ in range(rank_b)], guard))
    return out


def make_case(seed: int) -> Case:
    rng = random.Random(seed)
    rank_a, rank_b = rng.randint(1, 2), rng.randint(1, 2)
    a_shape = tuple(rng.randint(3, 12) for _ in range(rank_a))
    b_shape = tuple(rng.randint(3, 12) for _ in range(rank_b))
    return Case(a_shape, b_shape, rng.randint(0, 4), _body(rng, 0, rng.randint(1, 3), [0], rank_a, rank_b))


def build(case: Case):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("k", A=memref(case.a_shape, F32), B=memref(case.b_shape, F32), n=INDEX) as (a, bb, n):
        def emit(nodes: list, ivs: list) -> None:
            for node in nodes:
                if isinstance(node, Loop):
                    lo = [x.ir(ivs, n) for x in node.lower]
                    hi = [x.ir(ivs, n) for x in node.upper]
                    for iv in b.range(lo if len(lo) > 1 else lo[0], hi if len(hi) > 1 else hi[0], node.step):
                        emit(node.body, [*ivs, iv])
                    continue
                with b.located(Location("fuzz", node.line, 1)):
                    if node.guard is None:
                        statement(node, ivs)
                    else:
                        with b.if_(IndexExpr.of(node.guard.ir(ivs, n)) >= 0):
                            statement(node, ivs)

        def statement(node: Stmt, ivs: list) -> None:
            value = a[tuple(x.ir(ivs, n) for x in node.load)] + 1.0
            bb[tuple(x.ir(ivs, n) for x in node.store)] = value
        emit(case.body, [])
    return b.module


def interpret(case: Case, a: np.ndarray, bb: np.ndarray):  # type: ignore[no-untyped-def]
    """Run the nest in Python; returns (B after the run or None, accesses outside in order as
    (line, op, dim, index)). Out-of-bounds accesses are recorded and skipped."""
    bad: list[tuple[int, str, int, int]] = []

    def outside(idx: list[int], shape: tuple[int, ...]) -> int | None:
        return next((d for d, (i, s) in enumerate(zip(idx, shape)) if not 0 <= i < s), None)

    def run(nodes: list, ivs: list[int]) -> None:
        for node in nodes:
            if isinstance(node, Loop):
                lo = max(x.py(ivs, case.n) for x in node.lower)
                hi = min(x.py(ivs, case.n) for x in node.upper)
                for v in range(lo, hi, node.step):
                    run(node.body, [*ivs, v])
                continue
            if node.guard is not None and node.guard.py(ivs, case.n) < 0:
                continue
            li = [x.py(ivs, case.n) for x in node.load]
            si = [x.py(ivs, case.n) for x in node.store]
            ok = True
            for name, idx, shape in (("load", li, case.a_shape), ("store", si, case.b_shape)):
                d = outside(idx, shape)
                if d is not None:
                    bad.extend((node.line, name, k, idx[k]) for k in range(len(idx))
                               if not 0 <= idx[k] < shape[k])
                    ok = False  # (the store is recorded too: a hoisted check may see it first)
            if ok:
                bb[tuple(si)] = np.float32(a[tuple(li)] + np.float32(1.0))
    run(case.body, [])
    return bb, bad


def first_bad(case: Case) -> tuple[int, str, int, int] | None:
    """The first access outside in execution order: (line, op, first bad dimension, index)."""
    out: list = []

    def run(nodes: list, ivs: list[int]) -> bool:
        for node in nodes:
            if isinstance(node, Loop):
                lo = max(x.py(ivs, case.n) for x in node.lower)
                hi = min(x.py(ivs, case.n) for x in node.upper)
                for v in range(lo, hi, node.step):
                    if run(node.body, [*ivs, v]):
                        return True
                continue
            if node.guard is not None and node.guard.py(ivs, case.n) < 0:
                continue
            for name, idx, shape in (("load", [x.py(ivs, case.n) for x in node.load], case.a_shape),
                                     ("store", [x.py(ivs, case.n) for x in node.store], case.b_shape)):
                for k, (i, s) in enumerate(zip(idx, shape)):
                    if not 0 <= i < s:
                        out.append((node.line, name, k, i))
                        return True
        return False
    run(case.body, [])
    return out[0] if out else None


def _reported(exc: OutOfBoundsError) -> tuple[int, str, int, int]:
    msg = str(exc)
    op = "load" if "affine.load" in msg else "store"
    index = int(msg.split(": index ")[1].split(" ")[0])
    dim = int(msg.split(" of dimension ")[1].split(" ")[0])
    return exc.loc.line, op, dim, index


def check_case(seed: int) -> None:
    case = make_case(seed)
    module = build(case)
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, case.a_shape).astype(np.float32)
    b0 = rng.uniform(-1, 1, case.b_shape).astype(np.float32)
    want, bad = interpret(case, a, b0.copy())
    plain = None
    if not bad:
        plain = b0.copy()
        CACHE.get(module, LoweringOptions()).call("k", [a.copy(), plain, case.n])
        np.testing.assert_array_equal(plain, want, err_msg=f"seed {seed}: unchecked vs Python")
    first = first_bad(case)
    for mode, options in MODES.items():
        got = b0.copy()
        compiled = CACHE.get(module, options)
        if not bad:
            compiled.call("k", [a.copy(), got, case.n])
            assert plain is not None
            np.testing.assert_array_equal(got, plain, err_msg=f"seed {seed} {mode}: checked vs unchecked")
            continue
        with pytest.raises(OutOfBoundsError) as err:
            compiled.call("k", [a.copy(), got, case.n])
        reported = _reported(err.value)
        assert reported in bad, f"seed {seed} {mode}: {err.value} is not an access Python saw outside"
        if mode == "per-access":
            assert reported == first, f"seed {seed}: {err.value}, expected the first: {first}"


@pytest.mark.parametrize("start", range(0, 80, 20))
def test_random_nests_checked_exactly(start: int) -> None:
    for seed in range(start, start + 20):
        check_case(seed)


@pytest.mark.slow
@pytest.mark.parametrize("start", range(1000, 5000, 200))
def test_random_nests_checked_exactly_many(start: int) -> None:
    for seed in range(start, start + 200):
        check_case(seed)
