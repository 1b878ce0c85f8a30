"""DSE over networks: a sweep point whose workload is `network:NAME` (a zoo network or a
.csv/.layers/.onnx file) is evaluated as a whole network, and its figures are the network
totals (`cycles`, `energy_pj`, `dram_bytes_read`, `dram_bytes_written`, `roofline_ratio`, ...),
so objectives (`accelsim dse pareto --objectives cycles,energy_pj`) can be network totals. A
point's `schedule` (the sweep's `schedule` key: `accelsim.network.schedule`) is how its layers
run; not swept, a point runs layer by layer with the point's compiler options.

`evaluate(point)` is the evaluator `accelsim dse run` uses when a sweep names a network (other
points go to `accelsim.dse.evaluate.evaluate_point`). A network point's kernels are compiled
with the point's compiler options and simulated one after another in the point's worker (the
sweep is the parallel part); distinct kernels once each, as in `accelsim run NETWORK`.
"""

from __future__ import annotations

from typing import Any

from accelsim.dse.evaluate import PRELOAD, compile_group, evaluate_point
from accelsim.dse.spec import NETWORK_PREFIX, Point, Scalar, is_network

FIGURES = ("cycles", "seconds", "energy_pj", "dram_bytes_read", "dram_bytes_written", "dram_bytes",
           "roofline_cycles", "roofline_ratio", "compute_utilization", "macs", "compulsory_bytes")


def evaluate(point: Point) -> dict[str, Scalar | None]:
    if not is_network(point.workload):
        return evaluate_point(point)
    from accelsim.config import load_config
    from accelsim.network.timing import kernel_figures
    from accelsim.network.zoo import load_network

    network = load_network(point.workload[len(NETWORK_PREFIX):])
    if point.dtype:  # the sweep's precision (`accelsim.network.precision`)
        from accelsim.network.precision import with_precision

        network, _ = with_precision(network, point.dtype)
    config = load_config(point.config).with_overrides(point.hw)
    if point.schedule and point.schedule != "layer-by-layer":
        from accelsim.network.schedule import run_schedule

        result = run_schedule(network, point.schedule, point.config, point.hw, point.fidelity,
                              workers=0, progress=False)
    else:  # today's schedule with the point's compiler options
        result = kernel_figures(network, point, config)
    totals = result.totals()
    figures: dict[str, Any] = {k: totals.get(k) for k in FIGURES}
    figures["layer_count"] = len(result.network.layers)
    figures["distinct_kernels"] = len(network.distinct_workloads())
    figures["config_hash"] = config.hash()
    figures["schedule_ran"] = result.schedule  # auto: the one it chose
    figures["dram_bytes_saved"] = totals.get("dram_bytes_saved")
    return figures


def _group(point: Point) -> tuple[Any, ...]:
    return ("network", point.workload) if is_network(point.workload) else compile_group(point)


evaluate.group_key = _group  # type: ignore[attr-defined]
evaluate.preload = (*PRELOAD, "accelsim.network.timing")  # type: ignore[attr-defined]
