"""The static race proof's cost on gemm 1024^3 (`default`), as compiled and outlined.

    .venv/bin/python bench/bench_race_calls.py [--rounds N]

1. `first_race` on what `compile_for_accelerator` makes (kernels inline: no `func.call`).
2. `first_race` on the same program after `outline-kernels` (what the simulator runs: each
   kernel a `func.call`, summarized by `compiler/analysis/call_effects.py`).
CPU time of this process (`time.process_time`), best of N: the machine is shared, and wall
time counts the other processes' share.
"""

from __future__ import annotations

import argparse
import time

import workloads
from accelsim import load_config
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.race_check import first_race
from compiler.ir.ops import ModuleOp
from compiler.transforms.outline_kernels import ensure_outlined


def proof(m: ModuleOp, rounds: int) -> tuple[float, str]:
    best, verdict = 1e9, ""
    for _ in range(rounds):
        t = time.process_time()
        race = first_race(m)
        best = min(best, time.process_time() - t)
        verdict = "race-free" if race is None else f"race: {race.message[:80]}"
    return best * 1e3, verdict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    rounds = ap.parse_args().rounds
    m = workloads.get("gemm:M=1024,N=1024,K=1024").module()
    compile_for_accelerator(load_config("default"), m, check=False)
    ms, verdict = proof(m, rounds)
    print(f"compiled:  {ms:7.0f} ms  {verdict}")
    ensure_outlined(m)
    calls = sum(1 for f in m.funcs for o in f.walk() if o.NAME == "func.call")
    ms, verdict = proof(m, rounds)
    print(f"outlined:  {ms:7.0f} ms  {verdict}  ({calls} calls)")


if __name__ == "__main__":
    main()
