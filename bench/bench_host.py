"""Host backend vs numba (@njit) vs gcc -O3 -march=native on the same loop nests, and the cost
of the backend's bounds-checked mode.

    .venv/bin/python bench/bench_host.py [--quick] [--kernels gemm,jacobi-2d,...] [--reps N]
                                         [--peers ours,checked,checked-rt,numba,gcc] [--no-dynamic]

Peers: `ours` (compile_module defaults), `checked` (bounds_check=True: the checks isl cannot
prove in bounds stay in the code), `checked-rt` (bounds_check with the proofs off: every
load/store checked at run time, what the proofs save), numba, gcc. `gemm-dyn` (with
`--dynamic`, the default): gemm on `memref<?x?xf32>` with symbolic bounds, where no check can
be proven or folded away: unchecked vs checked (hoisted before the nest) vs per-access checks.

Each kernel is a workload built by `workloads`; the numba and C versions are generated from
the very same IR function (bench/loopnest_emit.py), so every peer runs the same loops in the
same order. Fast-math is off everywhere (numba's default, gcc without -ffast-math, our
default). Time = CPU time of the calling thread (robust on a shared box; wall time shown
too), best and median of N runs on the same arrays, the peers interleaved run by run in
rotating order; compile time = first compile, wall (our cache cleared). Also checks that all
three produce the same outputs from the same inputs.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopnest_emit import emit_c, emit_python

import workloads
from compiler.backend import CACHE
from compiler.backend.lower import LoweringOptions
from compiler.ir import MemRefType

KERNELS = {
    "gemm": "gemm:M=512,N=512,K=512",
    "jacobi-2d": "jacobi-2d:N=2048,T=2",
    "vector_add": "vector_add:N=16777216",
    "conv2d": "conv2d:N=1,C=64,H=58,W=58,K=64,R=3,S=3,stride=1",
}
QUICK = {
    "gemm": "gemm:M=128,N=128,K=128",
    "jacobi-2d": "jacobi-2d:N=512,T=2",
    "vector_add": "vector_add:N=1048576",
    "conv2d": "conv2d:N=1,C=16,H=34,W=34,K=16,R=3,S=3,stride=1",
}
WORK = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".work")


@dataclass
class Peer:
    """A compiled kernel bound to its own copy of the inputs."""

    compile_s: float
    run: Callable[[], object]
    arrays: dict[str, np.ndarray]
    times: list[float] = field(default_factory=list)      # CPU seconds of this thread
    wall: list[float] = field(default_factory=list)

    @property
    def best_s(self) -> float:
        return min(self.times)

    @property
    def median_s(self) -> float:
        return float(np.median(self.times))

    @property
    def best_wall_s(self) -> float:
        return min(self.wall)


def _setup_backend(w, arrays: dict[str, np.ndarray], options: LoweringOptions) -> Peer:  # type: ignore[no-untyped-def]
    CACHE.clear()
    module = w.module()
    t = time.perf_counter()
    compiled = CACHE.get(module, options)
    compile_s = time.perf_counter() - t
    ordered = [arrays[n] for n in w.func().arg_names()]
    return Peer(compile_s, lambda: compiled.call(w.func_name, ordered), arrays)


def setup_ours(w, arrays: dict[str, np.ndarray]) -> Peer:  # type: ignore[no-untyped-def]
    return _setup_backend(w, arrays, LoweringOptions())


def setup_checked(w, arrays: dict[str, np.ndarray]) -> Peer:  # type: ignore[no-untyped-def]
    return _setup_backend(w, arrays, LoweringOptions(bounds_check=True))


def setup_checked_rt(w, arrays: dict[str, np.ndarray]) -> Peer:  # type: ignore[no-untyped-def]
    return _setup_backend(w, arrays, LoweringOptions(bounds_check=True, prove_bounds=False))


def setup_numba(w, arrays: dict[str, np.ndarray]) -> Peer:  # type: ignore[no-untyped-def]
    import numba

    func = w.func()
    namespace: dict[str, object] = {}
    exec(compile(emit_python(func), f"<numba {w.name}>", "exec"), namespace)
    sig = []
    for t in func.function_type.inputs:
        assert isinstance(t, MemRefType)
        sig.append(numba.types.Array(numba.from_dtype(t.element.numpy_dtype), t.rank, "C"))
    t0 = time.perf_counter()
    jitted = numba.njit(numba.void(*sig))(namespace[func.sym_name])
    compile_s = time.perf_counter() - t0
    ordered = [arrays[n] for n in func.arg_names()]
    return Peer(compile_s, lambda: jitted(*ordered), arrays)


def setup_gcc(w, arrays: dict[str, np.ndarray]) -> Peer:  # type: ignore[no-untyped-def]
    func = w.func()
    os.makedirs(WORK, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        src = os.path.join(tmp, "k.c")
        lib = os.path.join(tmp, "k.so")
        with open(src, "w") as fh:
            fh.write(emit_c(func))
        t0 = time.perf_counter()
        subprocess.run(["gcc", "-O3", "-march=native", "-shared", "-fPIC", "-o", lib, src], check=True)
        compile_s = time.perf_counter() - t0
        cfunc = getattr(ctypes.CDLL(lib), func.sym_name)
    cfunc.restype = None
    cfunc.argtypes = [ctypes.c_void_p] * len(func.args)
    ptrs = [arrays[n].ctypes.data for n in func.arg_names()]
    return Peer(compile_s, lambda: cfunc(*ptrs), arrays)


PEERS = {"ours": setup_ours, "checked": setup_checked, "checked-rt": setup_checked_rt,
         "numba": setup_numba, "gcc": setup_gcc}


def compare_outputs(w, peers: dict[str, Callable], seed: int = 1) -> str:  # type: ignore[no-untyped-def,type-arg]
    """Run each peer once on identical inputs and say how their outputs compare."""
    results = {}
    for name, setup in peers.items():
        peer = setup(w, w.random_inputs(seed))
        peer.run()
        results[name] = peer.arrays
    ours = results["ours"]
    notes = []
    for other in (p for p in peers if p != "ours"):
        exact = all(np.array_equal(ours[n], results[other][n]) for n in w.outputs)
        diff = max(float(np.max(np.abs(ours[n].astype(np.float64) - results[other][n]), initial=0.0))
                   for n in w.outputs)
        notes.append(f"{other}: {'bit-identical' if exact else f'max|diff| {diff:.2g}'}")
    return "; ".join(notes)


def measure(w, reps: int, setups: dict[str, Callable]) -> dict[str, Peer]:  # type: ignore[no-untyped-def,type-arg]
    """Interleave the peers run by run, so load changes on a shared machine hit all alike, and
    let them all work on the same arrays, so page placement and 4K aliasing are shared too
    (the machine code of the three is nearly the same for the memory-bound kernels)."""
    arrays = w.random_inputs(0)
    peers = {name: setup(w, arrays) for name, setup in setups.items()}
    interleave(peers, reps)
    return peers


def interleave(peers: dict[str, Peer], reps: int) -> None:
    for peer in peers.values():
        peer.run()  # warm-up: page faults, first-call binding
    order = list(peers.values())
    for rep in range(reps):
        k = rep % len(order)
        for peer in order[k:] + order[:k]:  # rotate: no peer always runs first
            w0, t0 = time.perf_counter(), time.thread_time()
            peer.run()
            peer.times.append(time.thread_time() - t0)
            peer.wall.append(time.perf_counter() - w0)


DYNAMIC_GEMM = """
func.func @gemm(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>,
                %m: index, %n: index, %k: index) {
  affine.for %i = 0 to %m {
    affine.for %j = 0 to %n {
      affine.for %l = 0 to %k {
        %a = affine.load %A[%i, %l] : memref<?x?xf32>
        %b = affine.load %B[%l, %j] : memref<?x?xf32>
        %c = affine.load %C[%i, %j] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<?x?xf32>
      }
    }
  }
  return
}
"""


def measure_dynamic(n: int, reps: int) -> dict[str, Peer]:
    """gemm with `?` shapes and symbolic bounds: isl proves nothing and LLVM folds no check,
    so the checks stay: hoisted before the loop nest (`checked`), or at every access."""
    from compiler.text import parse_module

    module = parse_module(DYNAMIC_GEMM)
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, (n, n)).astype(np.float32) for _ in range(2))
    variants = {"ours": LoweringOptions(), "checked": LoweringOptions(bounds_check=True),
                "per-access": LoweringOptions(bounds_check=True, hoist_checks=False)}
    peers: dict[str, Peer] = {}
    outputs: dict[str, np.ndarray] = {}
    for name, options in variants.items():
        CACHE.clear()
        t = time.perf_counter()
        compiled = CACHE.get(module, options)
        compile_s = time.perf_counter() - t
        c = np.zeros((n, n), np.float32)
        args = [a, b, c, n, n, n]
        peers[name] = Peer(compile_s, lambda compiled=compiled, args=args: compiled.call("gemm", args),
                           {"C": c})
        outputs[name] = c
    interleave(peers, reps)
    for name in variants:  # same inputs, same number of runs: C accumulated the same way
        assert np.array_equal(outputs[name], outputs["ours"]), name
    return peers


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False,
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dynamic", action=argparse.BooleanOptionalAction, default=True,
                    help="also gemm with dynamic shapes: what a check costs that nothing removes")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help=f"subset of {','.join(PEERS)} (ours always runs)")
    args = ap.parse_args()
    table = QUICK if args.quick else KERNELS
    chosen = ["ours"] + [p for p in args.peers.split(",") if p != "ours"]
    unknown = [p for p in chosen if p not in PEERS]
    if unknown:
        ap.error(f"unknown peer(s) {', '.join(unknown)}; peers: {', '.join(PEERS)}")
    import llvmlite

    try:
        import numba
        numba_version = numba.__version__
    except ImportError:  # the `bench` extra is not installed: run without it, and say so
        numba_version = "not installed (peer skipped)"
        chosen = [p for p in chosen if p != "numba"]
    setups = {p: PEERS[p] for p in chosen}
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"# host: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"llvmlite {llvmlite.__version__}, numba {numba_version}, {gcc}, numpy {np.__version__}")
    print(f"# {args.reps} runs per peer, interleaved; times are CPU time of the calling thread (the box is"
          " shared); ratio = peer / ours (> 1: we are faster) from the best run (median run)")
    print(f"{'kernel':<11} {'peer':<10} {'best ms':>9} {'median ms':>10} {'wall best':>10} {'ratio':>14} "
          f"{'compile s':>10}")
    for name in args.kernels.split(","):
        w = workloads.get(table[name])
        peers = measure(w, args.reps, setups)
        ours = peers["ours"]
        for pname, p in peers.items():
            ratio = "" if p is ours else f"{p.best_s / ours.best_s:.2f} ({p.median_s / ours.median_s:.2f})"
            print(f"{name if pname == 'ours' else '':<11} {pname:<10} {p.best_s * 1e3:9.2f} "
                  f"{p.median_s * 1e3:10.2f} {p.best_wall_s * 1e3:10.2f} {ratio:>14} {p.compile_s:10.3f}")
        print(f"{'':<11} {w.spec}; outputs: {compare_outputs(w, setups)}", flush=True)
    if args.dynamic:
        n = 128 if args.quick else 512
        peers = measure_dynamic(n, args.reps)
        ours = peers["ours"]
        for pname, p in peers.items():
            ratio = "" if p is ours else f"{p.best_s / ours.best_s:.2f} ({p.median_s / ours.median_s:.2f})"
            print(f"{'gemm-dyn' if pname == 'ours' else '':<11} {pname:<10} {p.best_s * 1e3:9.2f} "
                  f"{p.median_s * 1e3:10.2f} {p.best_wall_s * 1e3:10.2f} {ratio:>14} {p.compile_s:10.3f}")
        print(f"{'':<11} gemm {n}^3 with memref<?x?xf32> and symbolic bounds; outputs: bit-identical",
              flush=True)


if __name__ == "__main__":
    main()
