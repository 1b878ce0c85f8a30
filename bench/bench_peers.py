"""accelsim against SCALE-Sim and ZigZag on the same GEMM, in one run (PEERS helper).

    .venv/bin/python bench/bench_peers.py [--full] [--sizes 128,256] [--only scalesim|zigzag]

The peers live in their own venvs (`bash bench/peers/setup.sh`), never in accelsim's
dependencies; each is run through a small driver under bench/peers/ that prints one JSON line.
A peer whose venv is missing is reported as SKIPPED and the rest still runs (exit 0).

1. SCALE-Sim (v3, PyPI `scalesim`): GEMM N^3 (N = 128, 256; 512 with --full, minutes) on a
   16x16 output-stationary array, sized after accelsim's `default` preset in 4-byte words (see
   SCALESIM_ARGS). Against it, accelsim on the same GEMM: the accelerator pipeline's compile
   (tile search + tile/copy/pipeline passes), the event simulation in timing-only mode, and the
   analytic estimate. Ratios are SCALE-Sim's time / ours, CPU seconds (2 shared cores).
2. ZigZag (PyPI `zigzag-dse`): its LOMA mapping search on the same GEMM layer on a 16x16
   accelerator sized after `default` (bench/peers/zigzag_driver.py says how). Its time per
   evaluated mapping against accelsim's analytic estimate per point: cold (first estimate of a
   freshly compiled program, caches cleared) and warm (the same program on other configs).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.config import HardwareConfig
from accelsim.estimate.analytic import clear_caches, estimate
from accelsim.report import metrics
from compiler.transforms.registry import PassManager

PEERS = Path(__file__).resolve().parent / "peers"
# accelsim `default` in SCALE-Sim's units (1 word = 1 byte there; our elements are f32):
# 256 KiB SRAM = 64 Ki f32 words, split into SCALE-Sim's three double-buffered operand SRAMs
# (ifmap = A, filter = B, ofmap = C) as 24 + 24 + 16 "kB" of words; DRAM 2 x 16 B/cycle =
# 8 words/cycle, split over SCALE-Sim's three separate operand interfaces as 3 + 3 + 2.
SCALESIM_ARGS = ["--rows", "16", "--cols", "16", "--dataflow", "os", "--sram-kb", "24,24,16",
                 "--bw", "3,3,2"]


@dataclasses.dataclass(frozen=True)
class Timed:
    cpu: float
    wall: float


def timed(fn):  # type: ignore[no-untyped-def]
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return Timed(time.process_time() - c0, time.perf_counter() - w0), out


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------------------------------------
# peers


class PeerMissing(Exception):
    """The peer's venv exists but its package does not import (a half-finished setup.sh)."""


def peer_python(name: str) -> Path | None:
    py = PEERS / f".venv-{name}" / "bin" / "python"
    return py if py.exists() else None


def run_peer(name: str, args: list[str]) -> tuple[dict[str, Any], Timed]:
    """Run bench/peers/<name>_driver.py in the peer's venv; its JSON and the child's CPU/wall."""
    py = peer_python(name)
    assert py is not None
    c0, w0 = children_cpu(), time.perf_counter()
    proc = subprocess.run([str(py), str(PEERS / f"{name}_driver.py"), *args], capture_output=True,
                          text=True, check=False)
    t = Timed(children_cpu() - c0, time.perf_counter() - w0)
    if proc.returncode != 0 and "ModuleNotFoundError" in proc.stderr:
        raise PeerMissing(proc.stderr.strip().splitlines()[-1])
    if proc.returncode != 0:
        raise RuntimeError(f"{name} driver failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1]
    return json.loads(line), t


def skipped(name: str, why: str = "") -> None:
    why = why or f"no venv at {PEERS / ('.venv-' + name)}"
    print(f"SKIPPED {name}: {why}; run bench/peers/setup.sh")


# ---------------------------------------------------------------------------------------------
# ours


def gemm_module(n: int):  # type: ignore[no-untyped-def]
    import workloads

    return workloads.get(f"gemm:M={n},N={n},K={n}").module()


def compile_gemm(n: int, cfg: HardwareConfig) -> tuple[Any, Timed, Timed, list[str]]:
    """The accelerator pipeline on a fresh gemm module: (module, tile search, passes, flags)."""
    module = gemm_module(n)
    t_search, pipe = timed(lambda: accelerator_pipeline(cfg, module, "gemm"))
    flags = pipe.flags()
    pm = PassManager.from_flags(flags)
    t_passes, _ = timed(lambda: pm.run(module))
    return module, t_search, t_passes, flags


def other_configs(cfg: HardwareConfig) -> list[HardwareConfig]:
    """Configs a sweep would visit next: DRAM bandwidth, DMA engines, SRAM banks varied."""
    out = []
    for bw in (8, 12, 24, 32):
        out.append(dataclasses.replace(cfg, dram=dataclasses.replace(cfg.dram,
                                                                     bandwidth_bytes_per_cycle=bw)))
    for engines in (1, 4):
        out.append(dataclasses.replace(cfg, dma=dataclasses.replace(cfg.dma, engines=engines)))
    for banks in (4, 16):
        out.append(dataclasses.replace(cfg, sram=dataclasses.replace(cfg.sram, banks=banks)))
    return out


def ours(n: int, cfg: HardwareConfig, sim_repeat: int = 3) -> dict[str, Any]:
    module, t_search, t_passes, flags = compile_gemm(n, cfg)
    sims = []
    result = None
    for _ in range(sim_repeat):
        t, result = timed(lambda: simulate(module, cfg, func="gemm", functional=False))
        sims.append(t)
    assert result is not None
    clear_caches()
    t_cold, est = timed(lambda: estimate(module, cfg, func="gemm"))
    t_hot, _ = timed(lambda: estimate(module, cfg, func="gemm"))
    warm = sorted(timed(lambda c=c: estimate(module, c, func="gemm"))[0].cpu for c in other_configs(cfg))
    return {
        "n": n, "flags": flags, "search": t_search, "passes": t_passes,
        "sim_first": sims[0], "sim_best": min(sims, key=lambda t: t.cpu),
        "cycles": result.cycles, "metrics": metrics(result),
        "analytic_cycles": est.cycles, "analytic_cold": t_cold,
        "analytic_hot": t_hot, "analytic_warm_cpu": warm[len(warm) // 2], "analytic_warm_all": warm,
        "dram_bytes": est.dram_bytes,
    }


# ---------------------------------------------------------------------------------------------
# report


def ms(s: float) -> str:
    return f"{s * 1e3:,.2f} ms"


def scalesim_section(sizes: list[int], cfg: HardwareConfig, mine: dict[int, dict[str, Any]]) -> None:
    print("## 1. SCALE-Sim v3 vs accelsim: GEMM N^3, 16x16 array, `default`-sized memories")
    print(f"# SCALE-Sim driver args: {' '.join(SCALESIM_ARGS)} (output-stationary; SRAM in 4-byte "
          "words; per-operand DRAM words/cycle); its in-driver run_scale time, traces off")
    print("# accelsim: accelerator pipeline (tile search, then tile/copy/pipeline passes), then "
          "simulate(functional=False) (first run; best of 3) and analytic.estimate (cold)")
    if peer_python("scalesim") is None:
        skipped("scalesim")
        return
    for n in sizes:
        try:
            peer, child = run_peer("scalesim", ["--m", str(n), "--n", str(n), "--k", str(n),
                                                *SCALESIM_ARGS])
        except PeerMissing as e:
            skipped("scalesim", str(e))
            return
        o = mine[n]
        ideal = n ** 3 // (cfg.compute.rows * cfg.compute.cols)
        print(f"\n### GEMM {n}^3 (ideal 16x16 MAC cycles {ideal:,})")
        print(f"SCALE-Sim  run        : {peer['cpu_seconds']:9.3f} s CPU  {peer['wall_seconds']:9.3f} s wall"
              f"   (whole child process: {child.cpu:.3f} s CPU, {child.wall:.3f} s wall)")
        print(f"accelsim   tile search: {ms(o['search'].cpu):>12} CPU  {ms(o['search'].wall):>12} wall"
              f"   -> {' '.join(o['flags'])}")
        print(f"accelsim   passes     : {ms(o['passes'].cpu):>12} CPU  {ms(o['passes'].wall):>12} wall")
        print(f"accelsim   event sim  : {ms(o['sim_first'].cpu):>12} CPU  {ms(o['sim_first'].wall):>12} wall"
              f"   (best of 3: {ms(o['sim_best'].cpu)} CPU)")
        print(f"accelsim   analytic   : {ms(o['analytic_cold'].cpu):>12} CPU  "
              f"{ms(o['analytic_cold'].wall):>12} wall (cold)")
        compile_cpu = o["search"].cpu + o["passes"].cpu
        pc = peer["cpu_seconds"]
        print(f"ratio SCALE-Sim / event sim (first run)       : {pc / o['sim_first'].cpu:10,.1f}x")
        print(f"ratio SCALE-Sim / event sim (best of 3)       : {pc / o['sim_best'].cpu:10,.1f}x")
        print(f"ratio SCALE-Sim / (compile + event sim first) : "
              f"{pc / (compile_cpu + o['sim_first'].cpu):10,.1f}x")
        print(f"ratio SCALE-Sim / analytic estimate (cold)    : {pc / o['analytic_cold'].cpu:10,.1f}x")
        print(f"ratio SCALE-Sim / (compile + analytic cold)   : "
              f"{pc / (compile_cpu + o['analytic_cold'].cpu):10,.1f}x")
        print(f"cycles SCALE-Sim: {peer['cycles']:,} (compute {peer['cycles'] - peer['stall_cycles']:,}"
              f" + stalls {peer['stall_cycles']:,}); incl. prefetch {peer['cycles_incl_prefetch']:,};"
              f" DRAM words read {peer['dram_reads_words']:,}, written {peer['dram_writes_words']:,}")
        m = o["metrics"]
        print(f"cycles accelsim : event {o['cycles']:,} (compute busy {m['compute_busy_cycles']:,}, "
              f"exposed DMA {m['exposed_dma_cycles']:,}), analytic {o['analytic_cycles']:,}; "
              f"DRAM words moved {o['dram_bytes'] // 4:,}")
        print(f"cycles ratio SCALE-Sim / accelsim event: {peer['cycles'] / o['cycles']:.3f}; "
              f"SCALE-Sim compute-only / accelsim event: "
              f"{(peer['cycles'] - peer['stall_cycles']) / o['cycles']:.3f}")
        sys.stdout.flush()


def zigzag_section(sizes: list[int], mine: dict[int, dict[str, Any]]) -> None:
    print("\n## 2. ZigZag (LOMA temporal-mapping search) vs accelsim analytic estimate, per point")
    print("# ZigZag: bench/peers/zigzag_driver.py (tpu_like.yaml adapted: 16x16 32-bit MACs, output "
          "registers per PE, 256 KiB shared SRAM at 1024 b/cycle, DRAM 256 b/cycle), lpf_limit 6")
    print("# per mapping = ZigZag's whole call CPU / mappings it evaluated (and the cost-model "
          "evaluation alone); accelsim per point = one analytic.estimate, cold and warm")
    if peer_python("zigzag") is None:
        skipped("zigzag")
        return
    for n in sizes:
        try:
            peer, child = run_peer("zigzag", ["--m", str(n), "--n", str(n), "--k", str(n)])
        except PeerMissing as e:
            skipped("zigzag", str(e))
            return
        o = mine[n]
        cold, warm = o["analytic_cold"].cpu, o["analytic_warm_cpu"]
        per = peer["cpu_per_mapping"]
        ev = peer["eval_cpu_per_mapping"]
        print(f"\n### GEMM {n}^3")
        print(f"ZigZag   search   : {peer['cpu_seconds']:8.3f} s CPU, {peer['wall_seconds']:8.3f} s wall, "
              f"{peer['mappings']} mappings (whole child: {child.cpu:.3f} s CPU)")
        print(f"ZigZag   per map  : {ms(per):>10} CPU (cost-model evaluation alone {ms(ev)})")
        ws = o["analytic_warm_all"]
        print(f"accelsim analytic : {ms(cold):>10} CPU cold, {ms(warm):>10} CPU warm (median over "
              f"{len(ws)} other configs, {ms(ws[0])} .. {ms(ws[-1])}; same config again "
              f"{ms(o['analytic_hot'].cpu)})")
        print(f"ratio ZigZag per mapping / accelsim cold : {per / cold:8,.1f}x "
              f"(evaluation alone {ev / cold:,.1f}x)")
        print(f"ratio ZigZag per mapping / accelsim warm : {per / warm:8,.1f}x "
              f"(evaluation alone {ev / warm:,.1f}x)")
        search = o["search"].cpu + o["passes"].cpu + cold
        print(f"whole search: ZigZag {peer['cpu_seconds']:.3f} s vs accelsim tile search + passes + "
              f"estimate {search:.3f} s: {peer['cpu_seconds'] / search:,.1f}x")
        print(f"cycles: ZigZag best latency {peer['latency_cycles']:,.0f} "
              f"(ideal {peer['ideal_cycles']:,.0f}); "
              f"accelsim analytic {o['analytic_cycles']:,}, event {o['cycles']:,}")
        sys.stdout.flush()


def main() -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="also GEMM 512^3 (SCALE-Sim takes minutes)")
    p.add_argument("--sizes", default=None, help="comma-separated N (default 128,256; 512 with --full)")
    p.add_argument("--only", choices=("scalesim", "zigzag"), default=None)
    a = p.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else [128, 256] + ([512] if a.full else [])
    cfg = load_config("default")
    root = Path(__file__).resolve().parent.parent
    head = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True,
                          text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(root), "status", "--short", "--", "accelsim", "compiler"],
                           capture_output=True, text=True, check=False).stdout.split()[1::2]
    print(f"# accelsim at {head or '?'}" + (f" + uncommitted edits to {', '.join(dirty)}" if dirty else ""))
    print(f"# host: {os.uname().machine}, {os.cpu_count()} cores (shared); python {sys.version.split()[0]};"
          " times are CPU seconds unless marked wall; ratio = peer / ours (> 1: we are faster)")
    # one-time imports and JIT set-up land on a throwaway 32^3 run, not on the first size measured
    ours(32, cfg, sim_repeat=1)
    mine = {n: ours(n, cfg) for n in sizes}
    if a.only in (None, "scalesim"):
        scalesim_section(sizes, cfg, mine)
    if a.only in (None, "zigzag"):
        zigzag_section(sizes, mine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
