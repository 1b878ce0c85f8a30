"""Run ZigZag's mapping search on one GEMM layer and print one JSON line.

Runs inside bench/peers/.venv-zigzag (see setup.sh), started by bench/bench_peers.py:

    .venv-zigzag/bin/python zigzag_driver.py --m 256 --n 256 --k 256 [--lpf-limit 6]

The hardware is ZigZag's shipped `inputs/hardware/tpu_like.yaml` adapted to accelsim's `default`
preset: a 16x16 array of 32-bit MACs (D1 x D2), a one-word output register per PE (outputs stay
in the PE: output-stationary, as in SCALE-Sim's `os` run), one-word weight registers, one
256 KiB SRAM for all three operands (1024 bits/cycle: 8 banks x 16 B), and DRAM at 256 bits/cycle
(2 channels x 16 B). The mapping is `inputs/mapping/tpu_like.yaml`'s default with the spatial
unrolling set to the two output dimensions (B = M rows, K = N columns), 16 each; the temporal
mapping (loop order and memory-level allocation) is what ZigZag's LOMA engine searches.

Counted: every CostModelEvaluation ZigZag constructs (one per evaluated mapping) and the time
spent inside them, plus the whole call (parsing, mapping generation, evaluation, result saving).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from typing import Any

HARDWARE = """\
name: accelsim_default_like
memories:
  rf_w:
    size: 32
    r_cost: 0.095
    w_cost: 0.095
    area: 0
    latency: 1
    operands: [I2]
    ports:
      - name: r_port_1
        type: read
        bandwidth_min: 32
        bandwidth_max: 32
        allocation: [I2, tl]
      - name: w_port_1
        type: write
        bandwidth_min: 32
        bandwidth_max: 32
        allocation: [I2, fh]
    served_dimensions: []
  rf_o:
    size: 32
    r_cost: 0.021
    w_cost: 0.021
    area: 0
    latency: 1
    operands: [O]
    ports:
      - name: r_port_1
        type: read
        bandwidth_min: 32
        bandwidth_max: 32
        allocation: [O, tl]
      - name: r_port_2
        type: read
        bandwidth_min: 32
        bandwidth_max: 32
        allocation: [O, th]
      - name: w_port_1
        type: write
        bandwidth_min: 32
        bandwidth_max: 32
        allocation: [O, fh]
      - name: w_port_2
        type: write
        bandwidth_min: 32
        bandwidth_max: 32
        allocation: [O, fl]
    served_dimensions: []
  sram:
    size: {sram_bits}
    r_cost: 20
    w_cost: 20
    area: 0
    latency: 1
    operands: [I1, I2, O]
    ports:
      - name: r_port_1
        type: read
        bandwidth_min: 32
        bandwidth_max: {sram_bw}
        allocation: [I1, tl, I2, tl, O, tl, O, th]
      - name: w_port_1
        type: write
        bandwidth_min: 32
        bandwidth_max: {sram_bw}
        allocation: [I1, fh, I2, fh, O, fh, O, fl]
    served_dimensions: [D1, D2]
  dram:
    size: 10000000000
    r_cost: 1300
    w_cost: 1300
    area: 0
    latency: 1
    operands: [I1, I2, O]
    ports:
      - name: rw_port_1
        type: read_write
        bandwidth_min: {dram_bw}
        bandwidth_max: {dram_bw}
        allocation: [I1, fh, I1, tl, I2, fh, I2, tl, O, fh, O, tl, O, fl, O, th]
    served_dimensions: [D1, D2]
operational_array:
  unit_energy: 4.6
  unit_area: 1
  dimensions: [D1, D2]
  sizes: [{rows}, {cols}]
  input_precision: [32, 32]
"""

MAPPING = """\
- name: default
  spatial_mapping:
    D1:
      - K, {cols}
    D2:
      - B, {rows}
  memory_operand_links:
    O: O
    W: I2
    I: I1
"""


def _yaml_list(text: str) -> str:
    """Allocation lists are written flat above for brevity; ZigZag wants "OPERAND, tl" items."""
    out = []
    for line in text.splitlines():
        head, sep, rest = line.partition("allocation: [")
        if sep:
            items = [x.strip() for x in rest.rstrip("]").split(",")]
            pairs = [f"{items[i]}, {items[i + 1]}" for i in range(0, len(items), 2)]
            line = head + "allocation: [" + ", ".join(f'"{p}"' for p in pairs) + "]"
        out.append(line)
    return "\n".join(out) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--rows", type=int, default=16)
    p.add_argument("--cols", type=int, default=16)
    p.add_argument("--sram-kib", type=int, default=256)
    p.add_argument("--sram-bits-per-cycle", type=int, default=1024)
    p.add_argument("--dram-bits-per-cycle", type=int, default=256)
    p.add_argument("--lpf-limit", type=int, default=6,
                   help="ZigZag's lpf_limit: how many loop prime factors LOMA permutes (its default 6)")
    a = p.parse_args()

    logging.disable(logging.CRITICAL)  # ZigZag logs every stage at INFO
    import zigzag.api as zapi
    from zigzag.stages.evaluation.cost_model_evaluation import CostModelStage

    counter = {"mappings": 0, "seconds": 0.0, "cpu": 0.0}

    class CountingCostModelStage(CostModelStage):
        """ZigZag's cost-model stage, counting and timing each evaluated mapping."""

        def run(self):  # type: ignore[no-untyped-def]
            gen = super().run()
            w0, c0 = time.perf_counter(), time.process_time()
            item = next(gen)  # the CostModelEvaluation is built (evaluated) here
            counter["seconds"] += time.perf_counter() - w0
            counter["cpu"] += time.process_time() - c0
            counter["mappings"] += 1
            yield item

    zapi.CostModelStage = CountingCostModelStage  # type: ignore[misc]

    workload: list[dict[str, Any]] = [{
        "id": 0, "name": "gemm", "operator_type": "Gemm",
        "equation": "O[b][k]+=I[b][c]*W[c][k]",
        "loop_dims": ["B", "K", "C"], "loop_sizes": [a.m, a.n, a.k],
        "operand_precision": {"I": 32, "W": 32, "O": 32, "O_final": 32},
    }]
    with tempfile.TemporaryDirectory(prefix="zigzag-bench-") as tmp:
        hw = os.path.join(tmp, "hardware.yaml")
        mapping = os.path.join(tmp, "mapping.yaml")
        with open(hw, "w") as f:
            f.write(_yaml_list(HARDWARE.format(
                rows=a.rows, cols=a.cols, sram_bits=a.sram_kib * 1024 * 8,
                sram_bw=a.sram_bits_per_cycle, dram_bw=a.dram_bits_per_cycle)))
        with open(mapping, "w") as f:
            f.write(MAPPING.format(rows=a.rows, cols=a.cols))
        w0, c0 = time.perf_counter(), time.process_time()
        energy, latency, cmes = zapi.get_hardware_performance_zigzag(
            workload=workload, accelerator=hw, mapping=mapping, opt="latency",
            dump_folder=os.path.join(tmp, "out"), lpf_limit=a.lpf_limit,
            loma_show_progress_bar=False)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    best = cmes[0][1][0][0] if cmes and cmes[0][1] else cmes[0][0]
    n = max(1, counter["mappings"])
    print(json.dumps({
        "peer": "zigzag", "m": a.m, "n": a.n, "k": a.k, "rows": a.rows, "cols": a.cols,
        "lpf_limit": a.lpf_limit, "mappings": counter["mappings"],
        "wall_seconds": wall, "cpu_seconds": cpu,
        "eval_wall_seconds": counter["seconds"], "eval_cpu_seconds": counter["cpu"],
        "wall_per_mapping": wall / n, "cpu_per_mapping": cpu / n,
        "eval_cpu_per_mapping": counter["cpu"] / n,
        "latency_cycles": float(latency), "energy_pj": float(energy),
        "ideal_cycles": float(getattr(best, "ideal_cycle", float("nan"))),
        "compute_cycles": float(getattr(best, "ideal_temporal_cycle", float("nan"))),
        "best_temporal_mapping": str(getattr(best, "temporal_mapping", "")),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
