"""Run SCALE-Sim on one GEMM and print one JSON line (cycles, wall and CPU seconds).

Runs inside bench/peers/.venv-scalesim (see setup.sh), started by bench/bench_peers.py:

    .venv-scalesim/bin/python scalesim_driver.py --m 256 --n 256 --k 256 [--rows 16 --cols 16]
        [--dataflow os] [--sram-kb 24,24,16] [--bw 3,3,2] [--save-traces]

SCALE-Sim reads a config (.cfg) and a GEMM topology (.csv, "name, M, N, K,") from files; both
are written to a temporary directory, which also receives its reports. Only the simulator's
own run (`scalesim.run_scale`: compute demand matrices, memory system, reports) is timed;
interpreter start and imports are not (the caller measures the whole child process too).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

CONFIG = """\
[general]
run_name = bench_gemm

[architecture_presets]
ArrayHeight : {rows}
ArrayWidth : {cols}
IfmapSramSzkB : {ifmap_kb}
FilterSramSzkB : {filter_kb}
OfmapSramSzkB : {ofmap_kb}
IfmapOffset : 0
FilterOffset : 10000000
OfmapOffset : 20000000
Bandwidth : {ofmap_bw}
Dataflow : {dataflow}
ReadRequestBuffer : 32
WriteRequestBuffer : 32

[layout]
IfmapCustomLayout : False
IfmapSRAMBankBandwidth : {ifmap_bw}
IfmapSRAMBankNum : 1
IfmapSRAMBankPort : 2
FilterCustomLayout : False
FilterSRAMBankBandwidth : {filter_bw}
FilterSRAMBankNum : 1
FilterSRAMBankPort : 2

[sparsity]
SparsitySupport : false
SparseRep : ellpack_block
OptimizedMapping : false
BlockSize : 8
RandomNumberGeneratorSeed : 40

[run_presets]
InterfaceBandwidth : USER
UseRamulatorTrace : False
"""


def _pair(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--rows", type=int, default=16)
    p.add_argument("--cols", type=int, default=16)
    p.add_argument("--dataflow", choices=("os", "ws", "is"), default="os")
    p.add_argument("--sram-kb", type=_pair, default=[24, 24, 16],
                   help="ifmap,filter,ofmap SRAM in SCALE-Sim kB (1024 words of 1 byte)")
    p.add_argument("--bw", type=_pair, default=[3, 3, 2],
                   help="ifmap,filter,ofmap DRAM bandwidth in words per cycle")
    p.add_argument("--save-traces", action="store_true",
                   help="also write SCALE-Sim's per-cycle SRAM/DRAM trace CSVs (slower)")
    a = p.parse_args()

    from scalesim.scale_sim import scalesim

    ifmap_kb, filter_kb, ofmap_kb = a.sram_kb
    ifmap_bw, filter_bw, ofmap_bw = a.bw
    with tempfile.TemporaryDirectory(prefix="scalesim-bench-") as tmp:
        cfg = os.path.join(tmp, "bench.cfg")
        topo = os.path.join(tmp, "gemm.csv")
        layout = os.path.join(tmp, "layout.csv")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(rows=a.rows, cols=a.cols, ifmap_kb=ifmap_kb, filter_kb=filter_kb,
                                  ofmap_kb=ofmap_kb, ifmap_bw=ifmap_bw, filter_bw=filter_bw,
                                  ofmap_bw=ofmap_bw, dataflow=a.dataflow))
        with open(topo, "w") as f:
            f.write("Layer, M, N, K,\n")
            f.write(f"gemm, {a.m}, {a.n}, {a.k},\n")
        with open(layout, "w") as f:  # read even without custom layouts; header only
            f.write("Layer,\n")
        sim = scalesim(save_disk_space=not a.save_traces, verbose=False, config=cfg, topology=topo,
                       layout=layout, input_type_gemm=True)
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run_scale(top_path=os.path.join(tmp, "out"))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        layer = sim.runner.single_layer_sim_object_list[0]
        overall, compute, stall, util, mapping_eff, compute_util = layer.get_compute_report_items()
    print(json.dumps({
        "peer": "scalesim", "m": a.m, "n": a.n, "k": a.k, "rows": a.rows, "cols": a.cols,
        "dataflow": a.dataflow, "sram_kb": a.sram_kb, "bw_words_per_cycle": a.bw,
        "wall_seconds": wall, "cpu_seconds": cpu,
        # "Total Cycles (incl. prefetch)": first DRAM read to last DRAM write
        "cycles_incl_prefetch": int(overall),
        # "Total Cycles": compute cycles of the array including the stalls memory caused
        "cycles": int(compute), "stall_cycles": int(stall),
        "overall_util_pct": float(util), "mapping_eff_pct": float(mapping_eff),
        "compute_util_pct": float(compute_util),
        "dram_reads_words": int(layer.ifmap_dram_reads + layer.filter_dram_reads),
        "dram_writes_words": int(layer.ofmap_dram_writes),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
