"""Host backend GEMM 256^3 per element type (issue 29): what the bf16/fp8 emulation costs.

Run: PYTHONPATH=. python bench/bench_element_types_host.py (min of 7 calls after a warm-up).
"""

from __future__ import annotations

import time

import numpy as np

from compiler.backend.cache import compile_module
from compiler.ir import BF16, F8E4M3FN, F32, I8, I32, Builder, ElementType, ModuleOp, memref

M = N = K = 256


def build(et: ElementType, acc: ElementType) -> ModuleOp:
    b = Builder()
    with b.func("g", A=memref((M, K), et), B=memref((K, N), et), C=memref((M, N), acc)) as (A, B, C):
        for i in b.range(M):
            for j in b.range(N):
                for k in b.range(K):
                    a, x = A[i, k], B[k, j]
                    if et != acc:
                        a, x = b.cast(a, acc), b.cast(x, acc)
                    C[i, j] = C[i, j] + a * x
    return b.module


def main() -> None:
    for et, acc in [(F32, F32), (BF16, F32), (BF16, BF16), (F8E4M3FN, F32), (I8, I32)]:
        cm = compile_module(build(et, acc))
        rng = np.random.default_rng(0)
        A = rng.integers(-4, 4, (M, K)).astype(et.numpy_dtype)
        B = rng.integers(-4, 4, (K, N)).astype(et.numpy_dtype)
        C = np.zeros((M, N), acc.numpy_dtype)
        cm.call("g", {"A": A, "B": B, "C": C.copy()})
        times = []
        for _ in range(7):
            c = C.copy()
            t = time.perf_counter()
            cm.call("g", {"A": A, "B": B, "C": c})
            times.append(time.perf_counter() - t)
        dt = min(times)
        print(f"| {et} x {et} -> {acc} | {dt * 1e3:.1f} | {2 * M * N * K / dt / 1e9:.1f} |")


if __name__ == "__main__":
    main()
