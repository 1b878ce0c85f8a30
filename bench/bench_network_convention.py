"""Whole networks against SCALE-Sim 3.0 in the fidelity convention: per-layer compute cycles
of one network run on each side, every layer checked, and the whole-network wall and CPU time
of the two processes (issue 18).

    .venv/bin/python bench/bench_network_convention.py [--network resnet18 --image 32]
        [--network transformer_proj] [--dataflow os] [--conv-lowering auto]

Ours: one process, `accelsim run TOPOLOGY.csv --target sim --timing-only --config ideal
--set compute.dataflow=DF --set compute.array_convention=scalesim-v3 --json` (the network
runner: every distinct kernel compiled and simulated at event fidelity; compile included in
its time), SCALE-Sim's counting convention; and once more under ours (the default
convention, "accelsim"), whose difference per layer the table reports: under os the drain
SCALE-Sim's code leaves out, R cycles per fold (C3, scale-sim-v3 issue #4; checked here as a
positive multiple of R, per fold exactly by bench_scalesim.py); under ws / is the pipelined
array (docs/dataflows.md). Theirs: one process,
bench/peers/scalesim_network_driver.py on the same file and array (16x16, the same dataflow)
with SRAMs large and wide enough never to stall (bench_scalesim.py's: 10^5 kB each, 1,000
words a cycle); each layer's compute cycles are its COMPUTE_REPORT "Total Cycles" minus its
stall cycles (0, checked).

The convention (docs/dataflows.md, checked on single layers by bench_scalesim.py):
- C1: ours = SCALE-Sim's Total Cycles + 1 (its total is the last cycle's index);
- C2: a strided layer's output extent is SCALE-Sim's ceil((H - R + s) / s): the topology
  reader (`accelsim/network/topology.py`) runs a row whose IFMAP does not end on a window at
  the extent SCALE-Sim's windows cover; the table's column says whether a row needed it (the
  zoo's rows never do: their IFMAP sizes include the padding the windows read);
- a 1x1 stride-1 convolution (ResNet-18's fc) is lowered to a gemm with M = filters and N =
  output pixels (`accelsim/network/lowering.py`), SCALE-Sim's M and N swapped: under `os` on a
  square array the folds are the same (ceil(M/R)·ceil(N/C) folds of K + R + C - 2); under ws/is
  they are not: give `--conv-lowering direct` there.
A row is `ok` when ours under "scalesim-v3" - SCALE-Sim's compute cycles is exactly +1, the
mapping efficiencies are equal and (os) ours - ours under "scalesim-v3" is a positive multiple
of R; the exit status is 1 if any row is not.

`--network transformer_proj`: a GEMM topology (header `Layer, M, N, K,`) of the Transformer
base's projections (Vaswani et al. 2017: d_model 512, d_ff 2048) for 64 tokens, written to
bench/.work. SCALE-Sim absent (bench/peers/setup.sh): SKIPPED, exit 0.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_network import PEERS, ROOT, SCALESIM_PY, _child, topology

from accelsim.network.topology import is_gemm_header

IDEAL_MEM = ["--sram-kb", "100000,100000,100000", "--bw", "1000,1000,1000"]
TRANSFORMER_PROJ = [("q_proj", 64, 512, 512), ("k_proj", 64, 512, 512), ("v_proj", 64, 512, 512),
                    ("o_proj", 64, 512, 512), ("ffn_up", 64, 2048, 512), ("ffn_down", 64, 512, 2048)]


def gemm_topology(path: Path, layers: list[tuple[str, int, int, int]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("Layer, M, N, K,\n" + "".join(f"{n}, {m}, {nn}, {k},\n" for n, m, nn, k in layers))
    return path


def resolve(network: str, image: int | None) -> Path:
    if network == "transformer_proj":
        if image is not None:
            raise SystemExit("--image: only resnet18 has a size parameter")
        return gemm_topology(ROOT / "bench" / ".work" / "transformer_proj.csv", TRANSFORMER_PROJ)
    return topology(network, image)[1]


def csv_rows(path: Path) -> dict[str, list[int]]:
    """Layer name -> the integers of its row, as written (SCALE-Sim's view of the file)."""
    rows: dict[str, list[int]] = {}
    for line in path.read_text().splitlines()[1:]:
        fields = [f.strip() for f in line.strip().split(",")[:-1]]
        if fields and fields[0]:
            rows[fields[0]] = [int(f) for f in fields[1:8] if f.isdigit()]
    return rows


def conventions(layer: dict[str, Any], row: list[int], gemm: bool) -> str:
    """The conventions a row applies, beside C1."""
    notes = ["C1"]
    if gemm:
        return "C1 (GEMM row: M x K ifmap, N filters)"
    h, w, _r, _s, _c, _k, stride = row
    got = {k: int(v) for k, v in re.findall(r"\b([HW])=(\d+)", layer["kernels"])}
    if stride > 1:
        if (got.get("H"), got.get("W")) != (h, w):
            notes.append(f"C2: IFMAP {h}x{w} run at {got.get('H')}x{got.get('W')}")
        else:
            notes.append(f"C2: none needed ({h}x{w} ends on a window)")
    if layer.get("lowering") == "gemm":
        notes.append("1x1 as gemm (M, N swapped)")
    return ", ".join(notes)


def compare(topo: Path, dataflow: str, lowering: str) -> dict[str, Any]:
    """Both runs and the per-layer rows: {"rows", "bad", "ours", "theirs", times}."""
    load = os.getloadavg()
    cmd = [sys.executable, "-m", "accelsim", "run", str(topo), "--target", "sim", "--timing-only",
           "--config", "ideal", "--set", f"compute.dataflow={dataflow}", "--conv-lowering", lowering,
           "--json"]
    mine, wall, cpu = _child([*cmd, "--set", "compute.array_convention=scalesim-v3"], ROOT)
    cpu += mine["kernel_cpu_seconds"]  # the workers are the fork server's children, not ours
    acc = {x["name"]: x["cycles"] for x in _child(cmd, ROOT)[0]["layers"]}  # ours, "accelsim"
    theirs, peer_wall, peer_cpu = _child([str(SCALESIM_PY), "scalesim_network_driver.py", str(topo),
                                          "--rows", "16", "--cols", "16", "--dataflow", dataflow,
                                          *IDEAL_MEM], PEERS)
    gemm = is_gemm_header(topo.read_text().splitlines()[0])
    rows_in = csv_rows(topo)
    by_name = {t["name"]: t for t in theirs["layers"]}
    if set(by_name) != {layer["name"] for layer in mine["layers"]}:
        raise SystemExit(f"{topo}: the two runs have different layers: ours "
                         f"{[x['name'] for x in mine['layers']]}, SCALE-Sim's {sorted(by_name)}")
    rows, bad = [], 0
    for layer in mine["layers"]:
        t = by_name[layer["name"]]
        compute = t["cycles"] - t["stall_cycles"]
        diff = layer["cycles"] - compute
        eff = (layer["mapping_efficiency"] or 0.0) * 100
        c3 = acc[layer["name"]] - layer["cycles"]
        ok = (diff == 1 and t["stall_cycles"] == 0 and abs(eff - t["mapping_eff_pct"]) < 1e-9
              and (dataflow != "os" or (c3 > 0 and c3 % 16 == 0)))
        bad += not ok
        rows.append({"name": layer["name"], "kernel": layer["kernels"], "ours": layer["cycles"],
                     "accelsim": acc[layer["name"]], "c3": c3,
                     "total": t["cycles"], "stall": t["stall_cycles"], "compute": compute, "diff": diff,
                     "eff_ours": eff, "eff_theirs": t["mapping_eff_pct"],
                     "conventions": conventions(layer, rows_in.get(layer["name"], []), gemm),
                     "ok": ok})
    return {"rows": rows, "bad": bad, "ours": mine, "theirs": theirs, "wall": wall, "cpu": cpu,
            "peer_wall": peer_wall, "peer_cpu": peer_cpu, "load": load, "load_after": os.getloadavg()}


def print_report(label: str, topo: Path, dataflow: str, r: dict[str, Any]) -> None:
    print(f"## {label}: per-layer compute cycles, accelsim `ideal` vs SCALE-Sim 3.0, 16x16 {dataflow}\n")
    print(f"topology {topo.relative_to(ROOT) if topo.is_relative_to(ROOT) else topo}; load average "
          f"before {r['load'][0]:.2f}, after {r['load_after'][0]:.2f} (1 min) on {os.cpu_count()} cores\n")
    print("| layer | our kernel | ours (scalesim-v3) cycles | SCALE-Sim Total Cycles | stall | "
          "SCALE-Sim compute (total - stall) | ours (scalesim-v3) - SCALE-Sim | map. eff. ours / "
          "SCALE-Sim % | conventions | ours (accelsim) | ours - ours (scalesim-v3) | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
    for x in r["rows"]:
        print(f"| {x['name']} | `{x['kernel']}` | {x['ours']:,} | {x['total']:,} | {x['stall']} | "
              f"{x['compute']:,} | {x['diff']:+d} | {x['eff_ours']:.2f} / {x['eff_theirs']:.2f} | "
              f"{x['conventions']} | {x['accelsim']:,} | {x['c3']:+,} | "
              f"{'ok' if x['ok'] else 'MISMATCH'} |")
    tot_o = sum(x["ours"] for x in r["rows"])
    tot_t = sum(x["compute"] for x in r["rows"])
    print(f"| **total** | | {tot_o:,} | | | {tot_t:,} | {tot_o - tot_t:+d} ({len(r['rows'])} layers) "
          "| | | |")
    print(f"\n{len(r['rows'])} layers, {r['bad']} not within the convention\n")
    print("| whole network | accelsim process (compile included) | SCALE-Sim process | "
          "SCALE-Sim run_scale | ratio SCALE-Sim process / accelsim |")
    print("|---|---:|---:|---:|---:|")
    t = r["theirs"]
    print(f"| wall s | {r['wall']:.1f} | {r['peer_wall']:.1f} | {t['wall_seconds']:.1f} | "
          f"{r['peer_wall'] / r['wall']:.1f}x |")
    print(f"| CPU s | {r['cpu']:.1f} | {r['peer_cpu']:.1f} | {t['cpu_seconds']:.1f} | "
          f"{r['peer_cpu'] / r['cpu']:.1f}x |\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--network", default="resnet18",
                   help="a zoo .csv network (resnet18, resnet50) or transformer_proj")
    p.add_argument("--image", type=int, default=None, help="ResNet-18 at this input size")
    p.add_argument("--dataflow", choices=("os", "ws", "is"), default="os")
    p.add_argument("--conv-lowering", choices=("auto", "direct"), default="auto")
    a = p.parse_args(argv)
    if not SCALESIM_PY.exists():
        print(f"SKIPPED: no SCALE-Sim venv at {SCALESIM_PY.parent.parent}; run bash bench/peers/setup.sh")
        return 0
    topo = resolve(a.network, a.image)
    label = a.network if a.image is None else f"{a.network} at {a.image}x{a.image}"
    r = compare(topo, a.dataflow, a.conv_lowering)
    print_report(label, topo, a.dataflow, r)
    return 1 if r["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
