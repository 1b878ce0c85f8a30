"""Run Stream (KULeuven-MICAS, PyPI `stream-dse`) on one GEMM layer spread over N cores and print
one JSON line.

Runs inside bench/peers/.venv-stream (Python 3.12, see setup.sh), started by
bench/bench_stream.py:

    .venv-stream/bin/python stream_driver.py --m 1024 --n 1024 --k 1024 --cores 4 [--array 16]

The hardware is Stream's shipped example core `inputs/examples/hardware/cores/tpu_like.yaml`
(a weight-stationary systolic array with a register file per PE and one on-core SRAM), with its
array resized to `--array` x `--array` so that it matches accelsim's cluster presets (16 x 16),
replicated `--cores` times on a 2-D grid (core_coordinates, so Stream's placement stage sees a
grid), all cores and the off-chip core on one bus. The off-chip port and the bus are widened to
16384 bits/cycle so the layer is compute-bound, as accelsim's `cluster4` / `cluster16` presets
are ("compute-bound by default"). The workload is an ONNX MatMul built with onnx.helper (int8,
the core's operand precision); the mapping is the one Stream's own generic mapping generator
proposes (it splits the layer's first dimension over the cores: `inter_core_tiling`), priced by
`stream.api.evaluate_mapping` (ZigZag per core, the allocation solve with OR-Tools).

Printed: the cycles Stream reports, the split it chose, and the wall and CPU time of the call.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

WIDE_BITS_PER_CYCLE = 16384


def core_yaml(examples: Path, array: int) -> str:
    """Stream's tpu_like core with its operational array resized to array x array."""
    import yaml

    core = yaml.safe_load((examples / "cores" / "tpu_like.yaml").read_text())
    core["operational_array"]["sizes"] = [array, array]
    return yaml.safe_dump(core, sort_keys=False)


def offchip_yaml(examples: Path) -> str:
    """Stream's off-chip core with its port widened so DRAM never bounds the layer."""
    import yaml

    off = yaml.safe_load((examples / "cores" / "offchip.yaml").read_text())
    for memory in off["memories"].values():
        for port in memory["ports"]:
            port["bandwidth_min"] = port["bandwidth_max"] = WIDE_BITS_PER_CYCLE
    return yaml.safe_dump(off, sort_keys=False)


def accelerator_yaml(cores: int) -> str:
    side = max(1, math.isqrt(cores))
    lines = [f"name: accelsim_cluster_like_{cores}", "cores:"]
    lines += [f"  {i}: ./cores/core.yaml" for i in range(cores)]
    lines.append(f"  {cores}: ./cores/offchip.yaml")
    lines.append("core_coordinates:")
    lines += [f"  {i}: [{i % side}, {i // side}]" for i in range(cores)]
    lines.append(f"  {cores}: [0, {(cores + side - 1) // side}]")
    lines += [f"offchip_core_id: {cores}", "unit_energy_cost: 0", "core_connectivity:",
              "  - type: bus", f"    cores: [{', '.join(str(i) for i in range(cores + 1))}]",
              f"    bandwidth: {WIDE_BITS_PER_CYCLE}"]
    return "\n".join(lines) + "\n"


def gemm_onnx(path: Path, m: int, n: int, k: int) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    a = helper.make_tensor_value_info("A", TensorProto.INT8, [m, k])
    b = numpy_helper.from_array(np.ones((k, n), dtype=np.int8), "B")
    y = helper.make_tensor_value_info("Y", TensorProto.INT8, [m, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["Y"], name="mm")],
                              "gemm", [a], [y], [b])
    onnx.save(helper.make_model(graph), str(path))


def inter_core_split(mapping: Path) -> str:
    """The split Stream's mapping generator chose, as `D0 / 4` (`-` for none), from the mapping it
    wrote beside the run."""
    import yaml

    if not mapping.exists():
        return "?"
    tiling = yaml.safe_load(mapping.read_text())["layers"][0].get("inter_core_tiling") or [[]]
    return ", ".join(f"{t['dim']} / {t['split']}" for t in tiling[0]) or "-"


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--m", type=int, required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--k", type=int, required=True)
    ap.add_argument("--cores", type=int, required=True)
    ap.add_argument("--array", type=int, default=16)
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # Stream logs every spatial-unrolling limit it meets

    import stream
    import stream.api as api

    examples = Path(stream.__file__).parent / "inputs" / "examples" / "hardware"
    work = Path(tempfile.mkdtemp(prefix="stream-peer-"))
    try:
        (work / "cores").mkdir()
        (work / "cores" / "core.yaml").write_text(core_yaml(examples, args.array))
        (work / "cores" / "offchip.yaml").write_text(offchip_yaml(examples))
        (work / "hw.yaml").write_text(accelerator_yaml(args.cores))
        gemm_onnx(work / "gemm.onnx", args.m, args.n, args.k)
        wall, cpu = time.perf_counter(), time.process_time()
        estimate = api.evaluate_mapping(str(work / "hw.yaml"), str(work / "gemm.onnx"),
                                        str(work / "out"), None,
                                        api.SolveOptions(artifacts=False, time_limit_s=120))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        split = inter_core_split(work / "out" / "group_0" / "mapping.yaml")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    json.dump({"tool": f"stream-dse {getattr(stream, '__version__', '')}".strip(),
               "m": args.m, "n": args.n, "k": args.k, "cores": args.cores, "array": args.array,
               "cycles": estimate.cycles, "wall_s": wall, "cpu_s": cpu,
               "inter_core_split": split},
              sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
