"""Compute cycles of the systolic dataflows, ours against SCALE-Sim 3.0's, on GEMM and conv
layers (ResNet-18, a transformer's projections, odd shapes), os / ws / is.

    .venv/bin/python bench/bench_scalesim.py [--only NAME,...] [--markdown]

Ours: the `ideal` preset (operands in on-chip memory, no DMA, SCALE-Sim's stall-free
assumptions) with `compute.dataflow` (and, for the large layers, `compute.rows` / `cols`)
set, simulated by the event machine (timing only); its `cycles`, under SCALE-Sim's convention
(`compute.array_convention = "scalesim-v3"`) and under ours (the default, "accelsim"). Theirs:
SCALE-Sim's own compute model (`bench/peers/scalesim_driver.py --compute-only`: its operand
and demand matrices, one line per cycle) and, on the small layers, its full run ("Total
Cycles", with memory large and wide enough to stall never). The expected relations,
documented in docs/dataflows.md: ours under "scalesim-v3" == demand lines == full "Total
Cycles" + 1 (convention C1); under os, ours - ours under "scalesim-v3" == R per fold exactly
(C3: the drain SCALE-Sim's code leaves out, scale-sim-v3 issue #4); under ws / is ours is the
pipelined array (validated against Gemmini's RTL, tests/accelsim/cost/test_onnxim_gemmini.py),
its difference reported, not checked. A strided
conv whose window does not end on the input's edge has one more output row and column in
SCALE-Sim (C2): ours runs at the input extent that gives SCALE-Sim's output extent (and, in
the column "ours at floor extent", at the layer's own).

Array sizes: 16x16 (the `ideal` preset) for the small layers; 128x128 for ResNet-18 and the
transformer. SCALE-Sim builds its demand matrices by concatenating fold after fold, a cost
quadratic in the number of folds: a ResNet-18 layer on 16x16 under `is` has thousands of folds
(conv2_x: 7,056) and takes SCALE-Sim hours; on 128x128 each layer takes seconds.

Prints one row per layer and dataflow; exit 1 if any row breaks the relation. A missing
SCALE-Sim venv (bench/peers/setup.sh) prints SKIPPED and exits 0.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.report import Report
from compiler.transforms.outline_kernels import ensure_outlined

PEERS = Path(__file__).resolve().parent / "peers"
PEER_PY = PEERS / ".venv-scalesim" / "bin" / "python"
DATAFLOWS = ("os", "ws", "is")
# memory SCALE-Sim never stalls on: SRAMs of 10^5 "kB" words, 1,000 words/cycle
IDEAL_MEM = ["--sram-kb", "100000,100000,100000", "--bw", "1000,1000,1000"]


def conv(name: str, h: int, r: int, c: int, k: int, stride: int = 1, group: str = "") -> dict[str, Any]:
    return {"name": name, "h": h, "w": h, "r": r, "s": r, "c": c, "k": k, "stride": stride,
            "group": group}


def gemm(name: str, m: int, n: int, k: int, group: str = "") -> dict[str, Any]:
    return {"name": name, "m": m, "n": n, "k": k, "group": group}


# ResNet-18 (He et al. 2016) at 224x224, every distinct layer shape; the input extents include
# each layer's zero padding (224 + 6 = 230 for conv1, 56 + 2 = 58 for conv2_x): neither simulator pads
RESNET18 = [
    conv("rn18_conv1", 230, 7, 3, 64, 2), conv("rn18_conv2_x", 58, 3, 64, 64),
    conv("rn18_conv3_1", 58, 3, 64, 128, 2), conv("rn18_conv3_x", 30, 3, 128, 128),
    conv("rn18_conv3_ds", 56, 1, 64, 128, 2), conv("rn18_conv4_1", 30, 3, 128, 256, 2),
    conv("rn18_conv4_x", 16, 3, 256, 256), conv("rn18_conv4_ds", 28, 1, 128, 256, 2),
    conv("rn18_conv5_1", 16, 3, 256, 512, 2), conv("rn18_conv5_x", 9, 3, 512, 512),
    conv("rn18_conv5_ds", 14, 1, 256, 512, 2), gemm("rn18_fc", 1, 1000, 512),
]
# Transformer base (Vaswani et al. 2017: d_model 512, d_ff 2048), 64 tokens: the projections
TRANSFORMER = [
    gemm("tf_q_proj", 64, 512, 512), gemm("tf_k_proj", 64, 512, 512),
    gemm("tf_v_proj", 64, 512, 512), gemm("tf_o_proj", 64, 512, 512),
    gemm("tf_ffn_up", 64, 2048, 512), gemm("tf_ffn_down", 64, 512, 2048),
]
SMALL = [
    gemm("g_100x37x50", 100, 37, 50), gemm("g_64^3", 64, 64, 64), gemm("g_17x250x33", 17, 250, 33),
    gemm("g_256x64x128", 256, 64, 128), conv("c_12_3x3_6to24", 12, 3, 6, 24),
    conv("c_13_3x3_s2", 13, 3, 6, 24, 2), conv("c_14_3x3_s2", 14, 3, 6, 24, 2),
    conv("c_20_5x5_3to16", 20, 5, 3, 16),
]
GROUPS = [("16x16", 16, SMALL), ("128x128", 128, RESNET18 + TRANSFORMER)]


def scalesim_extent(h: int, r: int, stride: int) -> int:
    """SCALE-Sim's output extent (topology_utils.py): ceil((H - R + stride) / stride), a last
    window hanging over the input's edge included; ours (and the networks') is
    (H - R) // stride + 1 (convention C2 of docs/dataflows.md)."""
    return -(-(h - r + stride) // stride)


def matched_input(layer: dict[str, Any]) -> tuple[int, int]:
    """The input extents (H, W) at which our conv has SCALE-Sim's output extent."""
    s = layer["stride"]
    return tuple((scalesim_extent(layer[x], layer[y], s) - 1) * s + layer[y]  # type: ignore[return-value]
                 for x, y in (("h", "r"), ("w", "s")))


def spec(layer: dict[str, Any], match: bool = True) -> str:
    if "m" in layer:
        return f"gemm:M={layer['m']},N={layer['n']},K={layer['k']}"
    h, w = matched_input(layer) if match else (layer["h"], layer["w"])
    return (f"conv2d:N=1,C={layer['c']},H={h},W={w},K={layer['k']},"
            f"R={layer['r']},S={layer['s']},stride={layer['stride']}")


def ours(layer: dict[str, Any], df: str, size: int, match: bool = True,
         convention: str = "scalesim-v3") -> dict[str, Any]:
    cfg = load_config("ideal").with_overrides({"compute.dataflow": df, "compute.rows": size,
                                               "compute.cols": size,
                                               "compute.array_convention": convention})
    mod = workloads.get(spec(layer, match)).module()
    compile_for_accelerator(cfg, mod)
    ensure_outlined(mod)
    t0 = time.process_time()
    res = simulate(mod, cfg, functional=False)
    rep = Report.from_result(res)
    return {"cycles": res.cycles, "mapping_eff_pct": (rep.mapping_efficiency or 0) * 100,
            "cpu_seconds": time.process_time() - t0, "dma_ops": rep.dma_ops,
            "folds": rep.array_folds}


def theirs(layers: list[dict[str, Any]], df: str, size: int, full: bool) -> list[dict[str, Any]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([{k: v for k, v in lay.items() if k != "group"} for lay in layers], f)
    args = [str(PEER_PY), str(PEERS / "scalesim_driver.py"), "--layers", f.name, "--dataflow", df,
            "--rows", str(size), "--cols", str(size), *IDEAL_MEM]
    if not full:
        args.append("--compute-only")
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    Path(f.name).unlink()
    if proc.returncode != 0:
        raise RuntimeError(f"scalesim driver failed: {proc.stderr[-2000:]}")
    return [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]


def main() -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--only", help="comma-separated layer names")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    a = p.parse_args()
    if not PEER_PY.exists():
        print(f"SKIPPED scalesim: no venv at {PEER_PY.parent.parent}; run bench/peers/setup.sh")
        return 0
    only = set(a.only.split(",")) if a.only else None
    rows: list[list[str]] = []
    bad = 0
    worst = 0
    for label, size, layers in GROUPS:
        layers = [lay for lay in layers if only is None or lay["name"] in only]
        if not layers:
            continue
        for df in DATAFLOWS:
            peer = theirs(layers, df, size, full=False)
            fulls = theirs(layers, df, size, full=True) if size == 16 else [None] * len(layers)
            for lay, t, fl in zip(layers, peer, fulls, strict=True):
                o = ours(lay, df, size)
                acc = ours(lay, df, size, convention="accelsim")
                c3 = acc["cycles"] - o["cycles"]  # os: the drain, R per fold
                c2 = "m" not in lay and matched_input(lay) != (lay["h"], lay["w"])
                at_floor = ours(lay, df, size, match=False)["cycles"] if c2 else None
                lines = t["demand_lines"]
                total = fl["cycles"] if fl is not None else None
                ok = (o["cycles"] == lines and abs(o["mapping_eff_pct"] - t["mapping_eff_pct"]) < 1e-9
                      and (fl is None or (total == lines - 1 and fl["stall_cycles"] == 0))
                      and (df != "os" or c3 == size * o["folds"]))
                diff = o["cycles"] - (total if total is not None else lines - 1)
                worst = max(worst, abs(diff))
                bad += not ok
                rows.append([lay["name"], label, df, f"{o['cycles']:,}", f"{lines:,}",
                             f"{total:,}" if total is not None else "-", f"{diff:+d}",
                             f"{o['mapping_eff_pct']:.2f}", f"{t['mapping_eff_pct']:.2f}",
                             f"{t['row_folds'] * t['col_folds']:,}",
                             "C1, C2" if c2 else "C1",
                             f"{acc['cycles']:,}", f"{c3:+,}",
                             f"{c3 / o['folds']:+.2f}" if o["folds"] else "-",
                             f"{at_floor:,}" if at_floor is not None else "=",
                             f"{t['cpu_seconds']:.2f}", f"{o['cpu_seconds']:.3f}",
                             "ok" if ok else "MISMATCH"])
                print(" | ".join(rows[-1]) if not a.markdown else "", end="\n" if not a.markdown else "",
                      flush=True)
    head = ["layer", "array", "dataflow", "ours (scalesim-v3) cycles", "SCALE-Sim demand lines",
            "SCALE-Sim Total Cycles (full run)", "ours (scalesim-v3) - Total Cycles", "ours map. eff. %",
            "SCALE-Sim map. eff. %", "folds", "conventions", "ours (accelsim)",
            "ours (accelsim) - ours (scalesim-v3)", "per fold", "ours at floor extent",
            "SCALE-Sim compute CPU s", "ours sim CPU s", "check"]
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    print(f"\n{len(rows)} rows, {bad} mismatches; largest |ours - SCALE-Sim Total Cycles| = {worst} "
          "(Total Cycles = demand lines - 1 where no full run)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
