"""Run SCALE-Sim on GEMM or conv layers and print one JSON line per layer (cycles, mapping
efficiency, wall and CPU seconds).

Runs inside bench/peers/.venv-scalesim (see setup.sh), started by bench/bench_peers.py and
bench/bench_scalesim.py:

    .venv-scalesim/bin/python scalesim_driver.py --m 256 --n 256 --k 256 [--rows 16 --cols 16]
        [--dataflow os] [--sram-kb 24,24,16] [--bw 3,3,2] [--save-traces]
    .venv-scalesim/bin/python scalesim_driver.py --layers layers.json [--compute-only] ...

`--layers` reads a JSON list of layers, each {"name", "m", "n", "k"} (a GEMM) or {"name",
"h", "w", "r", "s", "c", "k", "stride"} (a convolution without padding, SCALE-Sim's conv
topology row), and runs each in turn in this one process.

SCALE-Sim reads a config (.cfg) and a topology (.csv) from files; both are written to a
temporary directory, which also receives its reports. The full run (`scalesim.run_scale`:
compute demand matrices, memory system, reports) is timed; interpreter start and imports are
not (the caller measures the whole child process too).

`--compute-only` runs SCALE-Sim's own compute model alone: its operand matrices
(`compute.operand_matrix`) and the demand matrices of its systolic class
(`compute.systolic_compute_{os,ws,is}`: folds, fill skew, drain gaps), without the prefetch
matrices and the memory simulation, whose cost per cycle makes large layers impractical. It
reports `demand_lines`, the rows of the demand matrices: one per cycle from the first operand
entering the array to the last result leaving it. Under stall-free memory the full run's
"Total Cycles" is the index of the last such line, `demand_lines - 1` (the convention in
docs/dataflows.md; bench/bench_scalesim.py checks it on the layers it also runs in full).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

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


def _is_gemm(layer: dict[str, Any]) -> bool:
    return "m" in layer


def _write_inputs(tmp: str, a: argparse.Namespace, layer: dict[str, Any]) -> tuple[str, str, str]:
    cfg = os.path.join(tmp, "bench.cfg")
    topo = os.path.join(tmp, "layer.csv")
    layout = os.path.join(tmp, "layout.csv")
    ifmap_kb, filter_kb, ofmap_kb = a.sram_kb
    ifmap_bw, filter_bw, ofmap_bw = a.bw
    with open(cfg, "w") as f:
        f.write(CONFIG.format(rows=a.rows, cols=a.cols, ifmap_kb=ifmap_kb, filter_kb=filter_kb,
                              ofmap_kb=ofmap_kb, ifmap_bw=ifmap_bw, filter_bw=filter_bw,
                              ofmap_bw=ofmap_bw, dataflow=a.dataflow))
    name = layer.get("name", "layer")
    with open(topo, "w") as f:
        if _is_gemm(layer):
            f.write("Layer, M, N, K,\n")
            f.write(f"{name}, {layer['m']}, {layer['n']}, {layer['k']},\n")
        else:
            f.write("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                    "Channels, Num Filter, Strides,\n")
            f.write(f"{name}, {layer['h']}, {layer['w']}, {layer['r']}, {layer['s']}, "
                    f"{layer['c']}, {layer['k']}, {layer['stride']},\n")
    with open(layout, "w") as f:  # read even without custom layouts; header only
        f.write("Layer,\n")
    return cfg, topo, layout


def run_full(a: argparse.Namespace, layer: dict[str, Any]) -> dict[str, Any]:
    from scalesim.scale_sim import scalesim

    with tempfile.TemporaryDirectory(prefix="scalesim-bench-") as tmp:
        cfg, topo, layout = _write_inputs(tmp, a, layer)
        sim = scalesim(save_disk_space=not a.save_traces, verbose=False, config=cfg, topology=topo,
                       layout=layout, input_type_gemm=_is_gemm(layer))
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run_scale(top_path=os.path.join(tmp, "out"))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        obj = sim.runner.single_layer_sim_object_list[0]
        overall, compute, stall, util, mapping_eff, compute_util = obj.get_compute_report_items()
    return {
        "mode": "full", "wall_seconds": wall, "cpu_seconds": cpu,
        # "Total Cycles (incl. prefetch)": first DRAM read to last DRAM write
        "cycles_incl_prefetch": int(overall),
        # "Total Cycles": compute cycles of the array including the stalls memory caused
        "cycles": int(compute), "stall_cycles": int(stall),
        "overall_util_pct": float(util), "mapping_eff_pct": float(mapping_eff),
        "compute_util_pct": float(compute_util),
        "dram_reads_words": int(obj.ifmap_dram_reads + obj.filter_dram_reads),
        "dram_writes_words": int(obj.ofmap_dram_writes),
    }


def run_compute_only(a: argparse.Namespace, layer: dict[str, Any]) -> dict[str, Any]:
    """SCALE-Sim's compute model alone (see the module doc): its classes, its call order."""
    from scalesim.scale_sim import scalesim
    from scalesim.single_layer_sim import single_layer_sim

    with tempfile.TemporaryDirectory(prefix="scalesim-bench-") as tmp:
        cfg_path, topo_path, layout_path = _write_inputs(tmp, a, layer)
        # the same parsing of the three files as the full run
        sim = scalesim(save_disk_space=True, verbose=False, config=cfg_path, topology=topo_path,
                       layout=layout_path, input_type_gemm=_is_gemm(layer))
        cfg, topo, lay = sim.config, sim.topo, sim.layout
        w0, c0 = time.perf_counter(), time.process_time()
        obj = single_layer_sim()
        obj.set_params(layer_id=0, config_obj=cfg, topology_obj=topo, layout_obj=lay, verbose=False)
        # single_layer_sim.run(), step 1 (compute), as SCALE-Sim 3.0 writes it
        _, ifmap = obj.op_mat_obj.get_ifmap_matrix()
        _, filt = obj.op_mat_obj.get_filter_matrix()
        _, ofmap = obj.op_mat_obj.get_ofmap_matrix()
        cs = obj.compute_system
        if obj.dataflow == "ws":
            cs.set_params(config_obj=cfg, ifmap_op_mat=ifmap, filter_op_mat=filt, ofmap_op_mat=ofmap,
                          sparsity_ratio_N=obj.sparsity_ratio_N, sparsity_ratio_M=obj.sparsity_ratio_M,
                          ifmap_op_mat_original=obj.op_mat_obj.ifmap_addr_matrix_original,
                          sparsity_filter_array=obj.op_mat_obj.sparse_filter_array)
        else:
            cs.set_params(config_obj=cfg, ifmap_op_mat=ifmap, filter_op_mat=filt, ofmap_op_mat=ofmap)
        dem_i, dem_f, dem_o = cs.get_demand_matrices()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    assert dem_i.shape[0] == dem_f.shape[0] == dem_o.shape[0]
    return {
        "mode": "compute-only", "wall_seconds": wall, "cpu_seconds": cpu,
        "demand_lines": int(dem_o.shape[0]),
        "sr": int(cs.Sr), "sc": int(cs.Sc), "t": int(cs.T),
        "row_folds": int(cs.row_fold), "col_folds": int(cs.col_fold),
        "mapping_eff_pct": float(cs.get_avg_mapping_efficiency() * 100),
    }


def main() -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int)
    p.add_argument("--n", type=int)
    p.add_argument("--k", type=int)
    p.add_argument("--layers", help="a JSON file: a list of GEMM or conv layers (see the doc)")
    p.add_argument("--compute-only", action="store_true",
                   help="SCALE-Sim's compute model alone (demand matrices), no memory simulation")
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
    if a.layers:
        with open(a.layers) as f:
            layers = json.load(f)
    elif None not in (a.m, a.n, a.k):
        layers = [{"name": "gemm", "m": a.m, "n": a.n, "k": a.k}]
    else:
        p.error("give --m, --n and --k, or --layers FILE")
    for layer in layers:
        out = run_compute_only(a, layer) if a.compute_only else run_full(a, layer)
        print(json.dumps({"peer": "scalesim", **layer, "rows": a.rows, "cols": a.cols,
                          "dataflow": a.dataflow, "sram_kb": a.sram_kb, "bw_words_per_cycle": a.bw,
                          **out}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
