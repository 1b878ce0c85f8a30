"""PolyBench/C 4.2.1 datamining: correlation, covariance (SMALL: M=80 columns, N=100 rows).

Loop nests and statement order follow PolyBench's `kernel_*` functions; `float_n` is N as a
constant, and correlation's `stddev <= eps ? 1 : stddev` is an `arith.cmpf` + `select`.
"""

from __future__ import annotations

import math

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import Workload, dtype_param, size
from workloads.polybench.common import tol


def build_correlation(M: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("correlation", data=memref((N, M), dtype), corr=memref((M, M), dtype),
                mean=memref((M,), dtype), stddev=memref((M,), dtype)) as (data, corr, mean, stddev):
        zero, one = b.constant(0.0, dtype), b.constant(1.0, dtype)
        float_n, eps = b.constant(float(N), dtype), b.constant(0.1, dtype)
        for j in b.range(M):
            mean[j] = zero
            for i in b.range(N):
                mean[j] = mean[j] + data[i, j]
            mean[j] = mean[j] / float_n
        for j in b.range(M):
            stddev[j] = zero
            for i in b.range(N):
                stddev[j] = stddev[j] + (data[i, j] - mean[j]) * (data[i, j] - mean[j])
            stddev[j] = stddev[j] / float_n
            stddev[j] = b.sqrt(stddev[j])
            s = stddev[j]
            stddev[j] = b.select(b.cmp("ole", s, eps), one, s)
        for i in b.range(N):
            for j in b.range(M):
                data[i, j] = data[i, j] - mean[j]
                data[i, j] = data[i, j] / (b.sqrt(float_n) * stddev[j])
        for i in b.range(M - 1):
            corr[i, i] = one
            for j in b.range(i + 1, M):
                corr[i, j] = zero
                for k in b.range(N):
                    corr[i, j] = corr[i, j] + data[k, i] * data[k, j]
                corr[j, i] = corr[i, j]
        corr[M - 1, M - 1] = one
    return b.module


def reference_correlation(data: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    n = data.shape[0]
    mean = data.mean(axis=0)
    std = data.std(axis=0)
    std = np.where(std <= 0.1, 1.0, std)
    normed = (data - mean) / (math.sqrt(n) * std)
    corr = normed.T @ normed
    np.fill_diagonal(corr, 1.0)
    return {"data": normed, "corr": corr, "mean": mean, "stddev": std}


def build_covariance(M: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("covariance", data=memref((N, M), dtype), cov=memref((M, M), dtype),
                mean=memref((M,), dtype)) as (data, cov, mean):
        zero, one = b.constant(0.0, dtype), b.constant(1.0, dtype)
        float_n = b.constant(float(N), dtype)
        for j in b.range(M):
            mean[j] = zero
            for i in b.range(N):
                mean[j] = mean[j] + data[i, j]
            mean[j] = mean[j] / float_n
        for i in b.range(N):
            for j in b.range(M):
                data[i, j] = data[i, j] - mean[j]
        for i in b.range(M):
            for j in b.range(i, M):
                cov[i, j] = zero
                for k in b.range(N):
                    cov[i, j] = cov[i, j] + data[k, i] * data[k, j]
                cov[i, j] = cov[i, j] / (float_n - one)
                cov[j, i] = cov[i, j]
    return b.module


def reference_covariance(data: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    mean = data.mean(axis=0)
    return {"data": data - mean, "cov": np.cov(data, rowvar=False, ddof=1), "mean": mean}


def _check(p: dict) -> str | None:  # type: ignore[type-arg]
    return None if p["N"] >= 2 else "N must be >= 2 (the covariance divides by N - 1)"


WORKLOADS = (
    Workload(
        name="correlation", func_name="correlation", suite="polybench",
        summary="Pearson correlation of M columns over N rows",
        params=(size("M", 80, "columns of data, corr is M x M"), size("N", 100, "rows of data"),
                dtype_param()),
        build=build_correlation, reference=reference_correlation,
        outputs=("data", "corr", "mean", "stddev"),
        tolerance=tol(lambda p: p["N"], 4.0),  # type: ignore[arg-type,return-value]
        tolerance_reason="means, deviations and N-term dot products; rounding grows ~sqrt(N) ulps",
    ),
    Workload(
        name="covariance", func_name="covariance", suite="polybench",
        summary="sample covariance of M columns over N rows",
        params=(size("M", 80, "columns of data, cov is M x M"), size("N", 100, "rows of data", lo=2),
                dtype_param()),
        build=build_covariance, reference=reference_covariance, outputs=("data", "cov", "mean"),
        check=_check,
        tolerance=tol(lambda p: p["N"], 4.0),  # type: ignore[arg-type,return-value]
        tolerance_reason="means and N-term dot products; rounding grows ~sqrt(N) ulps",
    ),
)
