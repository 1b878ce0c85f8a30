"""Shared pieces of the PolyBench/C 4.2.1 translations: parameters, tolerances, patterns."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from compiler.ir import Builder, Value
from workloads.model import ParamValue, Tolerance, accumulation_tolerance, scalar

ALPHA = scalar("alpha", 1.5, "scale of the product (arith.constant)")
BETA = scalar("beta", 1.2, "scale of the previous output (arith.constant)")


def tol(terms: Callable[[Mapping[str, ParamValue]], int],
        factor: float = 1.0) -> Callable[[Mapping[str, ParamValue]], Tolerance]:
    """accumulation_tolerance of the element type for `terms(params)` summed terms, widened by
    `factor` for kernels whose error compounds (solvers, recurrences)."""
    def fn(p: Mapping[str, ParamValue]) -> Tolerance:
        r, a = accumulation_tolerance(p["dtype"], terms(p))  # type: ignore[arg-type]
        return r * factor, a * factor
    return fn


def reduce(b: Builder, lo: object, hi: object, init: Value,
           body: Callable[[Value, Value], Value]) -> Value:
    """A C scalar accumulated in a loop (`w -= A[i][k]*A[k][j]` over k): an affine.for from
    `lo` to `hi` carrying it in iter_args; `body(iv, acc)` gives the next value."""
    with b.loop(lo, hi, iter_args=[init]) as lp:  # type: ignore[arg-type]
        b.yield_([body(lp.iv, lp.region_iter_args[0])])
    return lp.results[0]  # type: ignore[no-any-return]


def spd(n: int, rng: np.random.Generator) -> np.ndarray:
    """A symmetric positive-definite N x N matrix (PolyBench makes A·Aᵀ of a lower-triangular
    matrix; here a random one, M·Mᵀ/N + I, so every pivot is >= 1)."""
    m = rng.uniform(-1.0, 1.0, size=(n, n))
    return m @ m.T / n + np.eye(n)
