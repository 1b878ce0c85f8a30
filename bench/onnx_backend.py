"""The onnx wheel's backend cases (pytorch-converted, pytorch-operator, simple) run
functionally on the simulator against their shipped expected outputs, and the `light/` zoo
graphs end to end (timing only): pass / wrong / refused / crash counts, refusals grouped by
reason.

    PYTHONPATH=. python bench/onnx_backend.py [--target sim|host] [--zoo] [--only SUBSTR] [-v]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

from accelsim.network.onnx_suite import backend_cases, case_name, run_case, zoo_models


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="sim", choices=("sim", "host"))
    p.add_argument("--config", default="default")
    p.add_argument("--zoo", action="store_true", help="also time the light/ zoo graphs")
    p.add_argument("--no-cases", action="store_true", help="skip the backend cases")
    p.add_argument("--only", default="", help="cases whose name contains this")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = p.parse_args(argv)
    if not args.no_cases:
        cases = [c for c in backend_cases() if args.only in case_name(c)]
        if not cases:
            print("the installed onnx wheel ships no backend test data")
        counts: collections.Counter[str] = collections.Counter()
        groups: dict[str, dict[str, list[str]]] = collections.defaultdict(
            lambda: collections.defaultdict(list))
        start = time.perf_counter()
        for case in cases:
            t0 = time.perf_counter()
            out = run_case(case, args.target, args.config)
            counts[out.status] += 1
            if out.status != "pass":
                groups[out.status][out.group].append(case_name(case))
            if args.verbose:
                print(f"{out.status:8} {time.perf_counter() - t0:6.1f}s {case_name(case)}  "
                      f"{out.reason[:150]}",
                      flush=True)
        print(f"\n{len(cases)} cases on {args.target}: " + ", ".join(
            f"{counts[s]} {s}" for s in ("pass", "wrong", "refused", "crash")) +
              f"  ({time.perf_counter() - start:.0f} s)")
        for status in ("wrong", "crash", "refused"):
            for reason, names in sorted(groups[status].items(), key=lambda kv: -len(kv[1])):
                print(f"  {status} x{len(names)}: {reason}")
                print(f"      {', '.join(n.split('/')[-1] for n in names)}")
    if args.zoo:
        from accelsim.network.onnx_import import read_onnx
        from accelsim.network.timing import run_timing

        for path in zoo_models():
            name = os.path.basename(path)
            t0 = time.perf_counter()
            try:
                net = read_onnx(path)
                res = run_timing(net, args.config, progress=False)
                print(f"zoo {name}: {len(net.layers)} layers, {len(net.distinct_workloads())} kernels, "
                      f"{res.totals()['cycles']} cycles ({time.perf_counter() - t0:.0f} s)", flush=True)
            except Exception as exc:
                print(f"zoo {name}: FAILED {type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
