"""Whole networks: accelsim's end-to-end time on a zoo network, and SCALE-Sim on the same
topology and array, in one run (issue 18).

    .venv/bin/python bench/bench_network.py [--network resnet50] [--no-scalesim]

1. `accelsim run NETWORK --target sim --timing-only --json` in a fresh process (cold: every
   distinct kernel compiled with the tile search and simulated at event fidelity, layers in the
   local worker processes): wall seconds, CPU seconds of the process and its workers, and the
   machine's load average (2 cores shared with other jobs: wall time depends on it). The
   issue's goal for ResNet-50 is <= 30 s.
2. SCALE-Sim v3 (bench/peers/.venv-scalesim, `bash bench/peers/setup.sh`) on the same
   topology CSV (workloads/networks/NETWORK.csv) and array: 16x16 output-stationary, the SRAMs
   and bandwidths of bench_peers.py (accelsim `default` in SCALE-Sim's units). Whole-network
   wall time (its `run_scale`, and its whole child process) against ours, and per-layer
   compute cycles side by side: ours (`cycles`, the layer on `default`) and SCALE-Sim's
   "Total Cycles" (compute including memory stalls). The two count different things (see
   the fidelity issue for the exact convention): the table reports them, it does not equate them.

   `--scalesim-result FILE`: instead of running SCALE-Sim, read a run recorded earlier (the
   driver's JSON line in FILE; its process's wall and CPU seconds from `/usr/bin/time -v` in
   FILE with `.err` for `.json`, or `--scalesim-time-log`, when there): ResNet-18 at 224x224
   takes SCALE-Sim over an hour, so it is run once and its result compared with fresh runs of
   ours. The output says so, with the file's time and the command `time -v` recorded.
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
PEERS = ROOT / "bench" / "peers"
SCALESIM_PY = PEERS / ".venv-scalesim" / "bin" / "python"
SCALESIM_ARGS = ["--rows", "16", "--cols", "16", "--dataflow", "os", "--sram-kb", "24,24,16",
                 "--bw", "3,3,2"]
GOAL_S = 30.0


def _child(cmd: list[str], cwd: Path) -> tuple[dict[str, Any], float, float]:
    """Run `cmd`, parse its last stdout line as JSON; (result, wall s, CPU s of the tree)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=3600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall, cpu


def ours(network: str) -> tuple[dict[str, Any], float, float]:
    return _child([sys.executable, "-m", "accelsim", "run", network, "--target", "sim",
                   "--timing-only", "--json"], ROOT)


def scalesim(topo: Path) -> tuple[dict[str, Any], float, float] | None:
    if not SCALESIM_PY.exists():
        return None
    return _child([str(SCALESIM_PY), "scalesim_network_driver.py", str(topo), *SCALESIM_ARGS], PEERS)


def recorded_scalesim(path: Path, time_log: Path | None) -> tuple[dict[str, Any], float, float, str]:
    """A SCALE-Sim run recorded earlier: (the driver's result, process wall s, process CPU s,
    a label with where and when it was recorded and its command). Without a `time -v` log the
    process times are the driver's own `run_scale` times."""
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()] if path.exists() else []
    if not lines:
        raise SystemExit(f"--scalesim-result {path}: no result recorded (empty or missing: is the "
                         "run still going?)")
    try:
        theirs = json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise SystemExit(f"{path}:{len(lines)}:{e.colno}: not the driver's JSON line ({e.msg})") from None
    if not isinstance(theirs, dict) or theirs.get("peer") != "scalesim" or "layers" not in theirs:
        raise SystemExit(f"{path}: not a result of bench/peers/scalesim_network_driver.py")
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(path.stat().st_mtime))
    wall, cpu = float(theirs["wall_seconds"]), float(theirs["cpu_seconds"])
    command = "(not recorded)"
    log = time_log if time_log is not None else path.with_suffix(".err")
    timed = _time_v(log) if log.exists() else None
    if timed is not None:
        wall, cpu, command = timed
    how = f"`/usr/bin/time -v` in {log}" if timed is not None else "the driver's run_scale times"
    when = ("earlier the same day" if time.gmtime(path.stat().st_mtime)[:3] == time.gmtime()[:3]
            else "on an earlier day")
    label = (f"recorded {when}: {path} (written {stamp}); process times from {how}; "
             f"command: `{command}`")
    return theirs, wall, cpu, label


def _time_v(log: Path) -> tuple[float, float, str] | None:
    """(wall s, user + system s, command) from GNU time's `-v` report, or None when incomplete."""
    fields: dict[str, str] = {}
    for line in log.read_text(errors="replace").splitlines():
        key, sep, value = line.strip().partition(": ")
        if sep:
            fields[key] = value
    try:
        user = float(fields["User time (seconds)"])
        system = float(fields["System time (seconds)"])
        clock = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"]
    except (KeyError, ValueError):
        return None
    wall = 0.0
    for part in clock.split(":"):
        wall = wall * 60 + float(part)
    return wall, user + system, fields.get("Command being timed", "?").strip('"')


def topology(network: str, image: int | None) -> tuple[str, Path]:
    """The zoo network, or ResNet-18 at another input size (written to bench/.work)."""
    if image is None:
        return network, ROOT / "workloads" / "networks" / f"{network}.csv"
    if network != "resnet18":
        raise SystemExit("--image: only resnet18 has a size parameter")
    import importlib.util

    spec = importlib.util.spec_from_file_location("zoo_generate",
                                                  ROOT / "workloads" / "networks" / "generate.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    work = ROOT / "bench" / ".work"
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"resnet18_{image}.csv"
    path.write_text(gen.render("resnet18.csv", list(gen.resnet18(image))))
    return str(path), path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--network", default="resnet50")
    p.add_argument("--image", type=int, default=None,
                   help="ResNet-18 at this input size instead of 224 (SCALE-Sim needs ~1 CPU hour "
                        "for the full one)")
    p.add_argument("--no-scalesim", action="store_true")
    p.add_argument("--scalesim-result", type=Path, default=None, metavar="FILE",
                   help="compare with a SCALE-Sim run recorded earlier (the driver's JSON line) "
                        "instead of running it")
    p.add_argument("--scalesim-time-log", type=Path, default=None, metavar="FILE",
                   help="that run's /usr/bin/time -v report (default: FILE with .err)")
    a = p.parse_args(argv)

    source, topo = topology(a.network, a.image)
    label = a.network if a.image is None else f"{a.network} at {a.image}x{a.image}"
    load = os.getloadavg()
    mine, wall, cpu = ours(source)
    print(f"## {label}: accelsim run {source} --target sim --timing-only (event fidelity, cold)\n")
    print(f"load average before the run: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} "
          f"(1 / 5 / 15 min) on {os.cpu_count()} cores\n")
    cpu += mine["kernel_cpu_seconds"]  # the workers are the fork server's children, not ours
    goal = (f"<= {GOAL_S:.0f} s: {'met' if wall <= GOAL_S else 'NOT met'}"
            if a.network == "resnet50" and a.image is None else "-")
    print("| layers | distinct kernels | workers | wall s | CPU s (process + kernels) | ResNet-50 goal "
          "| cycles |")
    print("|---:|---:|---:|---:|---:|---|---:|")
    print(f"| {mine['layer_count']} | {mine['distinct_kernels']} | {mine['workers']} | {wall:.1f} | "
          f"{cpu:.1f} | {goal} | {mine['cycles']:,} |")
    if a.no_scalesim:
        return 0
    recorded = ""
    if a.scalesim_result is not None:
        theirs, peer_wall, peer_cpu, recorded = recorded_scalesim(a.scalesim_result, a.scalesim_time_log)
        if {layer["name"] for layer in theirs["layers"]} != {layer["name"] for layer in mine["layers"]}:
            raise SystemExit(f"--scalesim-result {a.scalesim_result}: a run of {theirs['topology']}, "
                             f"whose layers are not those of {topo.name}")
        if Path(theirs["topology"]).name != topo.name:
            recorded += f" (its topology file: {theirs['topology']}, the same layers)"
    else:
        peer = scalesim(topo)
        if peer is None:
            print("\nSCALE-Sim: SKIPPED (no bench/peers/.venv-scalesim; run bash bench/peers/setup.sh)")
            return 0
        theirs, peer_wall, peer_cpu = peer
    print(f"\n## {label}: SCALE-Sim v3 on the same topology ({topo.name}), 16x16 os array\n")
    if recorded:
        print(f"SCALE-Sim NOT run now: {recorded}\n")
    print("| | accelsim (whole CLI, compile included) | SCALE-Sim run_scale | SCALE-Sim process | "
          "ratio SCALE-Sim process / accelsim |")
    print("|---|---:|---:|---:|---:|")
    print(f"| wall s | {wall:.1f} | {theirs['wall_seconds']:.1f} | {peer_wall:.1f} | "
          f"{peer_wall / wall:.1f}x |")
    print(f"| CPU s | {cpu:.1f} | {theirs['cpu_seconds']:.1f} | {peer_cpu:.1f} | {peer_cpu / cpu:.1f}x |")
    after = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"| load average after{' (this run)' if recorded else ''} | {after} | | | |")
    print("\nper layer: accelsim cycles (`default`, DMA and compute overlapped, DRAM included) and "
          "SCALE-Sim compute cycles (incl. stalls)\n")
    print("| layer | accelsim cycles | SCALE-Sim cycles | SCALE-Sim / accelsim | SCALE-Sim mapping eff. |")
    print("|---|---:|---:|---:|---:|")
    by_name = {layer["name"]: layer for layer in theirs["layers"]}
    tot_o = tot_t = 0
    for layer in mine["layers"]:
        t = by_name.get(layer["name"])
        if t is None:
            continue
        tot_o += layer["cycles"]
        tot_t += t["cycles"]
        print(f"| {layer['name']} | {layer['cycles']:,} | {t['cycles']:,} | "
              f"{t['cycles'] / layer['cycles']:.2f} | {t['mapping_eff_pct']:.1f} % |")
    print(f"| **total** | {tot_o:,} | {tot_t:,} | {tot_t / tot_o:.2f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
