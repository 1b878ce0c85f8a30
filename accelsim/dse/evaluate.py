"""The real evaluation of a design point: build, compile, simulate, report.

`evaluate_point(point)` runs in a worker process: it builds the workload, applies the compiler
options as passes (tile -> data copy with DMA -> pipelining), loads the hardware config with the
point's overrides, simulates at the point's fidelity and returns every report figure as a flat
dict of numbers and strings. Anything that goes wrong raises, and the runner stores the error.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from accelsim.dse.spec import Point, Scalar
from accelsim.errors import ConfigError

INPUT_SEED = 0


def compile_flags(options: Mapping[str, Scalar], config: Any) -> list[tuple[str, str]]:
    """The passes (name, mlir-opt option text) that the point's compiler options mean."""
    sram_kib = int(config.sram.capacity_kib)
    stages = int(options["stages"])
    passes: list[tuple[str, str]] = []
    tiles = str(options["tile_sizes"])
    if tiles == "auto":
        # buffers are multiplied by the pipeline depth: leave room for every stage
        passes.append(("affine-loop-tile", f"cache-size={max(1, sram_kib // max(stages, 1))}"))
    elif tiles != "none":
        passes.append(("affine-loop-tile", f"tile-sizes={tiles}"))
    if options["data_copy"]:
        spaces = config.spaces
        passes.append(("affine-data-copy-generate",
                       f"generate-dma fast-mem-space={spaces.sram} slow-mem-space={spaces.dram} "
                       f"tag-mem-space={spaces.tag} fast-mem-capacity={sram_kib}"))
        if stages >= 2:
            passes.append(("affine-pipeline-data-transfer",
                           f"stages={stages} pipeline-copy-out={_flag(options['copy_out_pipelining'])} "
                           f"cross-tile-prefetch={_flag(options['cross_tile_prefetch'])} "
                           f"fast-mem-space={spaces.sram} fast-mem-capacity={sram_kib}"))
    return passes


def _flag(v: Scalar) -> str:
    return "true" if v else "false"


def compile_point(point: Point, module: Any, config: Any) -> Any:
    from compiler.transforms import PassManager, create_pass
    from compiler.transforms.registry import PASSES, _load_builtin_passes

    _load_builtin_passes()
    passes = []
    for name, opts in compile_flags(point.options, config):
        if name not in PASSES:
            raise ConfigError(f"compiler option needs pass '{name}', which this build does not have")
        passes.append(create_pass(name, opts))
    return PassManager(passes).run(module)


def _simulate(module: Any, config: Any, point: Point, inputs: Any) -> Any:
    from accelsim.simulate import simulate

    kwargs: dict[str, Any] = {"inputs": inputs, "functional": point.functional}
    if "fidelity" in inspect.signature(simulate).parameters:
        kwargs["fidelity"] = point.fidelity
    elif point.fidelity != "event":
        raise ConfigError(f"fidelity '{point.fidelity}' is not available in this simulator (only 'event')")
    return simulate(module, config, **kwargs)


def evaluate_point(point: Point) -> dict[str, Scalar | None]:
    """Every report figure of one point (plus `config_hash`, which the store keeps apart)."""
    import workloads
    from accelsim.config import load_config

    wl = workloads.get(point.workload)
    config = load_config(point.config).with_overrides(point.hw)
    module = compile_point(point, wl.module(), config)
    inputs = wl.random_inputs(INPUT_SEED) if point.functional else None
    result = _simulate(module, config, point, inputs)
    figures = report_figures(result)
    if point.functional:
        figures.update(_check_outputs(wl, inputs, result.outputs))
    figures["config_hash"] = config.hash()
    return figures


def report_figures(result: Any) -> dict[str, Scalar | None]:
    """Flat figures of a SimResult: cycles, traffic, utilizations, energy, roofline."""
    trace, stats, cfg = result.trace, result.stats, result.config
    cycles = int(result.cycles)
    dram_read = sum(r.bytes for r in trace if r.unit.startswith("dram") and r.kind == "read")
    dram_written = sum(r.bytes for r in trace if r.unit.startswith("dram") and r.kind == "write")
    compute_busy = trace.busy_cycles("compute", "kernel")
    dma_busy = trace.busy_cycles("dma", "dma")
    e = cfg.energy
    energy = {
        "energy_dram_pj": (dram_read + dram_written) * e.dram_pj_per_byte,
        "energy_sram_pj": (stats.kernel_sram_bytes + stats.dma_sram_bytes) * e.sram_pj_per_byte,
        "energy_compute_pj": (stats.macs * e.mac_pj + stats.alu_ops * e.alu_pj
                              + stats.special_ops * e.special_pj),
    }
    dram_bw = cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    roofline = max(int(stats.ideal_compute_cycles), -(-(dram_read + dram_written) // dram_bw))
    return {
        "cycles": cycles,
        "seconds": float(result.seconds),
        "energy_pj": sum(energy.values()),
        **energy,
        "dram_bytes_read": int(dram_read),
        "dram_bytes_written": int(dram_written),
        "dram_bytes": int(dram_read + dram_written),
        "sram_peak_bytes": int(result.sram_peak_bytes),
        "dma_ops": int(stats.dma_ops),
        "kernel_calls": int(stats.kernel_calls),
        "macs": int(stats.macs),
        "compute_utilization": compute_busy / cycles if cycles else 0.0,
        "dma_utilization": dma_busy / cycles if cycles else 0.0,
        "stall_cycles": trace.busy_cycles("cp", "stall"),
        "roofline_cycles": roofline,
        "roofline_ratio": cycles / roofline if roofline else None,
        "flags": "; ".join(result.flags),
    }


def _check_outputs(wl: Any, inputs: Any, outputs: Mapping[str, Any] | None) -> dict[str, Scalar | None]:
    """Functional points also say whether the simulated arrays match the numpy reference."""
    import numpy as np

    if outputs is None:
        return {"outputs_match": None, "max_abs_error": None}
    expected = wl.reference(inputs)
    worst, match = 0.0, True
    for name in wl.outputs:
        got, want = np.asarray(outputs[name], dtype=np.float64), np.asarray(expected[name], dtype=np.float64)
        worst = max(worst, float(np.max(np.abs(got - want), initial=0.0)))
        match = match and bool(np.allclose(got, want, rtol=wl.rtol, atol=wl.atol))
    return {"outputs_match": match, "max_abs_error": worst}
