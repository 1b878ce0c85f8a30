"""Run SCALE-Sim on a whole conv topology CSV and print one JSON line: per-layer compute
cycles and the wall / CPU seconds of its run.

Runs inside bench/peers/.venv-scalesim (see setup.sh), started by bench/bench_network.py:

    .venv-scalesim/bin/python scalesim_network_driver.py TOPOLOGY.csv [--rows 16 --cols 16]
        [--dataflow os] [--sram-kb 24,24,16] [--bw 3,3,2]

The config is scalesim_driver.py's (the same array, SRAMs and bandwidths as its GEMM runs);
only `scalesim.run_scale` is timed (the caller also times the whole child process). A
topology whose header's fields 2-4 are `M, N, K` is a GEMM topology (as accelsim's reader
decides, `accelsim/network/topology.py`); SCALE-Sim takes that from its `input_type_gemm`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from scalesim_driver import CONFIG, _pair


def main() -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("topology")
    p.add_argument("--rows", type=int, default=16)
    p.add_argument("--cols", type=int, default=16)
    p.add_argument("--dataflow", choices=("os", "ws", "is"), default="os")
    p.add_argument("--sram-kb", type=_pair, default=[24, 24, 16])
    p.add_argument("--bw", type=_pair, default=[3, 3, 2])
    a = p.parse_args()

    from scalesim.scale_sim import scalesim

    ifmap_kb, filter_kb, ofmap_kb = a.sram_kb
    ifmap_bw, filter_bw, ofmap_bw = a.bw
    with tempfile.TemporaryDirectory(prefix="scalesim-net-") as tmp:
        cfg = os.path.join(tmp, "bench.cfg")
        layout = os.path.join(tmp, "layout.csv")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(rows=a.rows, cols=a.cols, ifmap_kb=ifmap_kb, filter_kb=filter_kb,
                                  ofmap_kb=ofmap_kb, ifmap_bw=ifmap_bw, filter_bw=filter_bw,
                                  ofmap_bw=ofmap_bw, dataflow=a.dataflow))
        with open(layout, "w") as f:
            f.write("Layer,\n")
        with open(a.topology) as f:
            header = [field.strip().upper() for field in f.readline().split(",")]
        sim = scalesim(save_disk_space=True, verbose=False, config=cfg, topology=a.topology,
                       layout=layout, input_type_gemm=header[1:4] == ["M", "N", "K"])
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run_scale(top_path=os.path.join(tmp, "out"))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        layers = []
        names = sim.runner.topo.get_layer_names()
        for name, layer in zip(names, sim.runner.single_layer_sim_object_list):
            overall, compute, stall, _util, mapping_eff, compute_util = layer.get_compute_report_items()
            layers.append({"name": name, "cycles": int(compute), "cycles_incl_prefetch": int(overall),
                           "stall_cycles": int(stall), "mapping_eff_pct": float(mapping_eff),
                           "compute_util_pct": float(compute_util)})
    print(json.dumps({"peer": "scalesim", "topology": a.topology, "rows": a.rows, "cols": a.cols,
                      "dataflow": a.dataflow, "wall_seconds": wall, "cpu_seconds": cpu,
                      "layers": layers}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
