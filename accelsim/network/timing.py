"""A network's timing: each distinct kernel compiled and simulated once, in parallel processes.

Every layer runs from an idle machine with its tensors in DRAM, so a kernel's timing does not
depend on the layers before it (and, timing-only, not on data): layers are independent
simulations. Each distinct workload spec becomes one design point of the DSE runner
(`accelsim.dse.runners.local_outcomes` with `accelsim.dse.evaluate.evaluate_point`), compiled
with the same tile search as `accelsim run --target sim` (`tile_sizes = "search"`); layers of
the same shape share its result. A progress bar (tqdm) counts the kernels.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from accelsim.network.model import Network, NetworkError
from accelsim.network.results import NetworkResult

Scalar = int | float | str | bool


def kernel_points(network: Network, config: str, hardware: Mapping[str, Scalar] | None = None,
                  fidelity: str = "event") -> list[Any]:
    """One DSE point per distinct kernel of the network, in first-use order."""
    from accelsim.dse.spec import Point

    hw = tuple(sorted((hardware or {}).items()))
    return [Point(workload=spec, config=config, hardware=hw, compiler=(("tile_sizes", "search"),),
                  fidelity=fidelity, functional=False) for spec in network.distinct_workloads()]


def run_timing(network: Network, config: str = "default", hardware: Mapping[str, Scalar] | None = None,
               fidelity: str = "event", workers: int | None = None,
               progress: bool | TextIO = True, time_limit_s: float | None = None) -> NetworkResult:
    """Simulate every distinct kernel once (timing only) and assemble the per-layer report.
    `workers`: processes (default: one per core, at most one per kernel; 0 = this process).
    `time_limit_s`: wall seconds a kernel may take before it fails the run (default: no limit,
    unlike a sweep's points: a wall-clock cut fails a whole network on a loaded machine, where
    its kernels' work is the same)."""
    from accelsim.config import load_config
    from accelsim.dse.evaluate import evaluate_point
    from accelsim.dse.runners import local_outcomes
    from accelsim.dse.store import STATUS_OK
    from accelsim.dse.time_limit import MAX_TIME_LIMIT_S

    cfg = load_config(config).with_overrides(dict(hardware or {}))
    points = kernel_points(network, config, hardware, fidelity)
    n = (os.cpu_count() or 1) if workers is None else workers
    n = min(n, len(points)) if n > 0 else 0
    start = time.perf_counter()
    figures: dict[str, dict[str, Any]] = {}
    failures: list[tuple[str, str]] = []
    kernel_cpu = 0.0
    bar = _bar(len(points), progress, network.name)
    outcomes = local_outcomes(evaluate_point, points, n,
                              time_limit_s=MAX_TIME_LIMIT_S if time_limit_s is None else time_limit_s)
    for outcome in drain(outcomes, bar, failures):
        kernel_cpu += outcome.cpu_s or 0.0
        if outcome.status == STATUS_OK:
            figures[outcome.point.workload] = dict(outcome.figures)
    # kernel_cpu_seconds: CPU time of the kernel evaluations (compile + simulate), in whichever
    # process ran them
    meta = {"target": "sim", "timing_only": True, "distinct_kernels": len(points), "workers": n,
            "wall_seconds": time.perf_counter() - start, "kernel_cpu_seconds": kernel_cpu}
    if failures:
        raise _failure(network, failures, figures, cfg, fidelity, meta)
    return NetworkResult.build(network, figures, cfg.name, fidelity, cfg.clock_ghz, meta)


class NetworkRunError(NetworkError):
    """A layer of a network run failed: `layer` names it (`index` from 0), `finished` the
    layers before it, `partial` their result (None: a run on the host, which has no figures),
    for the report of what finished."""

    def __init__(self, message: str, loc: Any, layer: str, index: int,
                 partial: NetworkResult | None, finished: tuple[str, ...] = ()):
        super().__init__(message, loc)
        self.layer, self.index, self.partial = layer, index, partial
        self.finished = finished or (tuple(r.layer.name for r in partial.layers) if partial else ())


def _failure(network: Network, failures: list[tuple[str, str]], figures: dict[str, Any],
             cfg: Any, fidelity: str, meta: dict[str, Any]) -> NetworkRunError:
    """The error of the first layer (in network order) one of whose kernels failed, with the
    result of the layers before it."""
    from dataclasses import replace

    failed = dict(failures)
    index = next(i for i, layer in enumerate(network.layers)
                 if any(k.workload in failed for k in layer.kernels))
    layer = network.layers[index]
    spec = next(k.workload for k in layer.kernels if k.workload in failed)
    done = replace(network, layers=network.layers[:index])
    partial = NetworkResult.build(done, figures, cfg.name, fidelity, cfg.clock_ghz,
                                  {**meta, "distinct_kernels": len(done.distinct_workloads())})
    more = len(failures) - 1
    return NetworkRunError(f"layer {index + 1} of {len(network.layers)}, {layer.name!r} (kernel "
                           f"{spec}) failed: {failed[spec]}"
                           + (f" ({more} more kernel{'s' if more > 1 else ''} failed)" if more else "")
                           + f"; {index} layer{'s' if index != 1 else ''} before it finished",
                           _loc(layer.where), layer.name, index, partial)


def kernel_figures(network: Network, point: Any, config: Any) -> NetworkResult:
    """The network in this process, its kernels compiled with `point`'s compiler options (a
    network point of a sweep: `accelsim.network.sweep`)."""
    from dataclasses import replace

    from accelsim.dse.evaluate import evaluate_point

    start = time.perf_counter()
    figures: dict[str, dict[str, Any]] = {}
    for spec in network.distinct_workloads():
        figures[spec] = dict(evaluate_point(replace(point, workload=spec, functional=False)))
    meta = {"target": "sim", "timing_only": True, "distinct_kernels": len(figures), "workers": 0,
            "wall_seconds": time.perf_counter() - start}
    return NetworkResult.build(network, figures, config.name, point.fidelity, config.clock_ghz, meta)


def drain(outcomes: Any, bar: Any, failures: list[tuple[str, str]]) -> Iterator[Any]:
    """Each kernel outcome of a run, in turn: a failed one also noted in `failures` (its
    workload, status and error), the bar advanced; the runner and the bar closed at the end,
    however the loop ends."""
    from accelsim.dse.store import STATUS_OK

    try:
        for outcome in outcomes:
            if outcome.status != STATUS_OK:
                failures.append((outcome.point.workload, f"{outcome.status}: {outcome.error}"))
            yield outcome
            if bar is not None:
                bar.update(1)
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
        if bar is not None:
            bar.close()


def _bar(total: int, progress: bool | TextIO, name: str) -> Any:
    if progress is False:
        return None
    from tqdm import tqdm

    stream = sys.stderr if progress is True else progress
    return tqdm(total=total, desc=f"{name}: kernels", unit="kernel", file=stream, leave=False,
                disable=None if progress is True else False)


def _loc(where: str) -> Any:
    from compiler.diagnostics import UNKNOWN_LOC, Location

    file, _, line = where.rpartition(":")
    return Location(file, int(line), 1) if line.isdigit() else UNKNOWN_LOC
