"""Run Stream (KULeuven-MICAS, PyPI `stream-dse`) on its shipped two-convolution example, layer
by layer and fused, and print one JSON line per schedule.

Runs inside bench/peers/.venv-stream (Python 3.12, see setup.sh), started by
bench/bench_stream.py:

    .venv-stream/bin/python stream_network_driver.py --size 32 --channels 32

The workload is Stream's own `inputs/testing/workload/make_2_conv.py` (Conv 3x3 pad 1 ->
Conv 3x3 pad 1, `--channels` in and out, `--size` x `--size` images, int8), the mapping its
own `inputs/testing/mapping/make_2_conv_mapping.py` (each conv split over the four compute
cores on its output-channel dimension, both convs in one fused group, one image row band per
steady-state iteration); "layer-by-layer" is the same mapping with one fused group per conv.
The hardware is Stream's shipped `inputs/examples/hardware/tpu_like_quad_core.yaml` as is
(four 32 x 32 int8 TPU-like cores with 2 MB SRAM each, a pooling and a SIMD core, off-chip
DRAM at 64 bits/cycle, all on a 128-bit bus). Priced by `stream.api.evaluate_mapping`.

Printed per schedule: cycles, the off-chip (DRAM) bytes read and written (Stream's
`group_memory_accesses` of the off-chip core, summed over the fused groups: transfers x port
bits / 8), wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--time-limit", type=float, default=120.0)
    args = ap.parse_args()
    logging.disable(logging.WARNING)

    import stream
    import stream.api as api
    import yaml
    from stream.inputs.testing.mapping.make_2_conv_mapping import make_2_conv_mapping
    from stream.inputs.testing.workload.make_2_conv import TwoConvWorkloadConfig, make_2_conv_workload

    hardware = Path(stream.__file__).parent / "inputs" / "examples" / "hardware" / "tpu_like_quad_core.yaml"
    cfg = TwoConvWorkloadConfig(batch_size=1, height=args.size, width=args.size,
                                in_channels=args.channels, out_channels_1=args.channels,
                                out_channels_2=args.channels, kernel_size=3, in_dtype="i8",
                                weight_dtype="i8")
    work = Path(tempfile.mkdtemp(prefix="stream-net-"))
    try:
        onnx_path = Path(make_2_conv_workload(cfg))       # (written beside Stream's generator)
        mapping_path = Path(make_2_conv_mapping(cfg))
        model = work / onnx_path.name
        shutil.move(str(onnx_path), model)
        fused = yaml.safe_load(mapping_path.read_text())
        mapping_path.unlink()
        group = fused["fused_groups"][0]
        lbl = dict(fused)
        lbl["fused_groups"] = [{"name": f"group_{name}", "layers": [name],
                                "intra_core_tiling": [{"dim": f"{name}.D0", "tile": 1}]}
                               for name in group["layers"]]
        for schedule, mapping in (("layer-by-layer", lbl), ("fused", fused)):
            path = work / f"{schedule}.yaml"
            path.write_text(yaml.safe_dump(mapping, sort_keys=False))
            wall, cpu = time.perf_counter(), time.process_time()
            est = api.evaluate_mapping(str(hardware), str(model), str(work / schedule), str(path),
                                       api.SolveOptions(artifacts=False, time_limit_s=args.time_limit))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            read = written = 0
            for group in est.context.get("group_memory_accesses").values():
                if group is None:  # Stream could not count this group's accesses
                    read = written = None
                    break
                for core in group["cores"]:
                    if core["is_offchip"] and read is not None and written is not None:
                        read += core["read"] * core["read_bandwidth"] // 8
                        written += core["write"] * core["write_bandwidth"] // 8
            json.dump({"tool": f"stream-dse {getattr(stream, '__version__', '')}".strip(),
                       "schedule": schedule, "size": args.size, "channels": args.channels,
                       "cycles": est.cycles, "group_cycles": list(est.group_cycles),
                       "dram_bytes_read": read, "dram_bytes_written": written,
                       "wall_s": wall, "cpu_s": cpu}, sys.stdout)
            print(flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
