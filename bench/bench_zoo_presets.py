"""The model zoo on every preset: `accelsim run NAME --target sim --config C --timing-only --json`
in a fresh process per pair, one pair at a time, each with a wall-time limit (issue 18).

    .venv/bin/python bench/bench_zoo_presets.py [--networks a,b] [--presets c,d] [--timeout S]
                                                [--workers N] [--jsonl OUT.jsonl]

Prints one line per pair as it ends (cycles, ratio to the honest roofline, wall and CPU
seconds, the load average before it) and a markdown table at the end. CPU seconds are the
process's and its workers' kernel evaluations (`kernel_cpu_seconds`). A pair that fails or
runs past `--timeout` is reported as such (its error's last line), not retried.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NETWORKS = ("resnet18", "bert_base_layer", "llama2_7b_decode", "mobilenetv2", "resnet50", "gpt2",
            "llama2_7b_prefill")
PRESETS = ("default", "edge", "server", "three_level", "ideal", "cluster4", "cluster16")


def run_pair(network: str, preset: str, timeout: float, workers: int | None) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "accelsim", "run", network, "--target", "sim", "--config", preset,
           "--timing-only", "--json"]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    row: dict[str, Any] = {"network": network, "preset": preset, "load": load}
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        row.update(status="timeout", wall_s=time.perf_counter() - w0, error=f"> {timeout:g} s")
        return row
    row["wall_s"] = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["?"]
        why = next((ln for ln in lines if "error" in ln), lines[-1])
        row.update(status="failed", error=why[:400])
        return row
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    row.update(status="ok", cycles=out["cycles"], roofline_ratio=out.get("roofline_ratio"),
               energy_pj=out.get("energy_pj"), dram_bytes_read=out.get("dram_bytes_read"),
               dram_bytes_written=out.get("dram_bytes_written"),
               layers=out["layer_count"], kernels=out["distinct_kernels"],
               cpu_s=cpu + float(out.get("kernel_cpu_seconds") or 0.0))
    return row


def cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "-"
    if row["status"] != "ok":
        return f"{row['status']} ({row['wall_s']:.0f} s)"
    ratio = f"{row['roofline_ratio']:.2f}x" if row["roofline_ratio"] else "-"
    return f"{row['cycles']:,} ({ratio}; {row['wall_s']:.0f} s)"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--networks", default=",".join(NETWORKS))
    p.add_argument("--presets", default=",".join(PRESETS))
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--jsonl", default=None, help="append each pair's row to this file")
    a = p.parse_args(argv)
    nets, presets = a.networks.split(","), a.presets.split(",")
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for net in nets:
        for preset in presets:
            row = run_pair(net, preset, a.timeout, a.workers)
            rows[(net, preset)] = row
            print(json.dumps(row), flush=True)
            if a.jsonl:
                with open(a.jsonl, "a") as f:
                    f.write(json.dumps(row) + "\n")
    print("\n| network | " + " | ".join(presets) + " |")
    print("|---|" + "---:|" * len(presets))
    for net in nets:
        print(f"| {net} | " + " | ".join(cell(rows.get((net, c))) for c in presets) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
