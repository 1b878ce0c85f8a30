"""`--schedule pipelined`: a network's layers over the clusters of a many-cluster machine.

Each layer's time on a group of k clusters is measured, not assumed: every distinct kernel is
compiled by our compiler for a k-cluster machine (`clusters = k`, the existing cluster
distribution and its `auto` choice) holding the group's share of the shared parts
(`group_overrides`: k / clusters of DRAM's and the bus's bandwidth, of each shared level's
capacity and ports) and run at the requested fidelity, exactly as the layer-by-layer run runs
it on the whole machine (`accelsim.network.timing`: one DSE point per kernel, in parallel
processes). Group sizes are the divisors of the cluster count.

From those times the schedule model (`accelsim.network.pipeline_model.plan`) picks, layer range
by layer range, data-parallel on every cluster (today's schedule), a pipeline of consecutive
layers on disjoint groups streaming row chunks to each other, or a mix; the rows of the result
name each layer's clusters, start and end. On one cluster it is the layer-by-layer schedule.
The assumptions are listed in `pipeline_model` and docs/networks.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any, TextIO

from accelsim.network.model import Layer, Network
from accelsim.network.pipeline_model import CHUNKS, Handoff, Plan, RowModel, plan
from accelsim.network.results import LayerResult, NetworkResult, layer_figures

Scalar = int | float | str | bool

# kernels that read element i of their input for element i of their output, by their size N
ELEMENTWISE = frozenset({"relu", "vector_add", "vector_mul", "gelu", "sigmoid", "silu", "saxpy"})
# kernels that read row m of an M x N input for row m of their output
ROWWISE = frozenset({"layernorm", "rmsnorm", "softmax", "row_sum", "row_sum_iter"})
# layer lowerings whose gemm is a convolution's: output K x pixels, pixels stream (N)
CONV_GEMM = frozenset({"gemm", "im2col+gemm"})


def group_sizes(clusters: int) -> tuple[int, ...]:
    """The group sizes a layer may run on: the divisors of the cluster count."""
    return tuple(k for k in range(1, clusters + 1) if clusters % k == 0)


def group_overrides(config: Any, k: int) -> dict[str, Scalar]:
    """Overrides of `config` (N clusters) that make the machine a group of k of its clusters
    holding k / N of its shared parts: DRAM's bandwidth (as few channels as carry it at a
    channel's own rate), the bus's bandwidth (a mesh: the group's own smaller mesh of the same
    links, its memory router kept inside it), each shared on-chip level's capacity and ports.
    k = N: no override (the whole machine)."""
    n = config.clusters
    if not 1 <= k <= n or n % k:
        raise ValueError(f"a group of {k} clusters does not divide {n} clusters")
    if k == n:
        return {}
    out: dict[str, Scalar] = {"clusters": k}
    view = config.bandwidth_view()
    d = view.dram
    if config.dram.model == "bandwidth":
        total = d.channels * d.bandwidth_bytes_per_cycle * k / n
        channels = min(d.channels, max(1, -(-int(total) // max(1, int(d.bandwidth_bytes_per_cycle)))))
        out["dram.channels"] = channels
        out["dram.bandwidth_bytes_per_cycle"] = total / channels
    else:  # the timing model's channels are the technology's: a group gets k / n of them
        out["dram.channels"] = max(1, config.dram.channels * k // n)
    ic = config.interconnect
    if ic.kind == "bus":
        out["interconnect.bandwidth_bytes_per_cycle"] = max(1, ic.bandwidth_bytes_per_cycle * k // n)
    else:
        rows, cols = ic.mesh_dims(k) if not (ic.mesh_rows and ic.mesh_cols) else (0, 0)
        if rows:
            out["interconnect.mesh_rows"] = rows
            out["interconnect.mesh_cols"] = cols
            out["interconnect.memory_row"] = min(ic.memory_row, rows - 1)
            out["interconnect.memory_col"] = min(ic.memory_col, cols - 1)
    for lv in config.shared_levels()[1:]:  # the shared on-chip levels (none with one link)
        key = f"memory.{lv.name}"
        out[f"{key}.capacity_kib"] = max(1, lv.capacity_kib * k // n)
        out[f"{key}.ports"] = max(1, lv.ports * k // n)
    return out


def kernel_rows(spec: str, layer: Layer) -> RowModel:
    """How one kernel streams (`RowModel`), from its workload's parameters (a table by kernel
    kind; a kernel not in it reads its whole input before its first output)."""
    from workloads.spec import parse_spec

    name, raw = parse_spec(spec)
    p = {k: int(v) for k, v in raw.items() if v.lstrip("-").isdigit()}
    if {"H", "R", "stride"} <= p.keys():          # a sliding window over rows
        h, r, s = p["H"], p["R"], p["stride"]
        return RowModel.window(max(1, (h - r) // s + 1), h, r - 1, s)
    if {"H", "top", "bottom"} <= p.keys():         # padding: output row r is input row r - top
        return RowModel.window(p["H"] + p["top"] + p["bottom"], p["H"], -p["top"], 1)
    if name in ELEMENTWISE and "N" in p:
        return RowModel.elementwise(p["N"])
    if name in ROWWISE and "M" in p:
        return RowModel.elementwise(p["M"])
    if name == "gemm" and {"M", "N"} <= p.keys():
        return RowModel.elementwise(p["N"] if layer.lowering in CONV_GEMM else p["M"])
    return RowModel((1.0,))


def layer_rows(layer: Layer) -> RowModel:
    """A layer's kernels one after another, the last reading the one before it."""
    model: RowModel | None = None
    for k in layer.kernels:
        mine = kernel_rows(k.workload, layer)
        model = mine if model is None else mine.then(model)
    return model if model is not None else RowModel((1.0,))


def output_bytes(layer: Layer) -> int:
    """The bytes of the layer's last kernel's outputs (what a consumer streams)."""
    if not layer.kernels:
        return 0
    from workloads.registry import get

    bound = get(layer.kernels[-1].workload)
    types = bound.arg_types()
    total = 0
    for name in bound.outputs:
        t = types[name]
        count = 1
        for dim in t.shape:
            count *= int(dim)
        total += count * t.element.byte_width
    return total


def producers(network: Network) -> list[int | None]:
    """The layer each layer streams from: the last earlier layer writing a tensor it reads
    (a model with tensors), else the layer before it (a layer list or topology is a chain)."""
    out: list[int | None] = []
    writer: dict[str, int] = {}
    for i, layer in enumerate(network.layers):
        reads = [t for k in layer.kernels for _, t in k.reads]
        if not layer.kernels:  # a view (reshape) reads the tensor it renames
            reads = [old for _new, old in layer.views]
        known = [writer[t] for t in reads if t in writer]
        if reads or network.functional:
            out.append(max(known) if known else None)
        else:
            out.append(i - 1 if i else None)
        for k in layer.kernels:
            for _, t in k.writes:
                writer[t] = i
        for new, _old in layer.views:
            writer[new] = i
    return out


def run_pipelined(network: Network, config: str = "default",
                  hardware: Mapping[str, Scalar] | None = None, fidelity: str = "event",
                  workers: int | None = None, progress: bool | TextIO = True,
                  time_limit_s: float | None = None) -> NetworkResult:
    """The network scheduled over the clusters (module docstring); timing only."""
    from accelsim.config import load_config
    from accelsim.dse.evaluate import evaluate_point
    from accelsim.dse.runners import local_outcomes
    from accelsim.dse.store import STATUS_OK
    from accelsim.dse.time_limit import MAX_TIME_LIMIT_S
    from accelsim.network.timing import _bar, _failure, drain, kernel_points

    hw = dict(hardware or {})
    cfg = load_config(config).with_overrides(hw)
    n = cfg.clusters
    sizes = group_sizes(n)
    start = time.perf_counter()
    per_size = {k: {**hw, **group_overrides(cfg, k)} for k in sizes}
    points = [pt for k in sizes for pt in kernel_points(network, config, per_size[k], fidelity)]
    nw = (os.cpu_count() or 1) if workers is None else workers
    nw = min(nw, len(points)) if nw > 0 else 0
    figures: dict[tuple[tuple[str, Scalar], ...], dict[str, dict[str, Any]]] = {}
    failures: list[tuple[str, str]] = []
    kernel_cpu = 0.0
    bar = _bar(len(points), progress, network.name)
    outcomes = local_outcomes(evaluate_point, points, nw,
                              time_limit_s=MAX_TIME_LIMIT_S if time_limit_s is None else time_limit_s)
    for outcome in drain(outcomes, bar, failures):
        kernel_cpu += outcome.cpu_s or 0.0
        if outcome.status == STATUS_OK:
            figures.setdefault(outcome.point.hardware, {})[outcome.point.workload] = \
                dict(outcome.figures)
    meta: dict[str, Any] = {"target": "sim", "timing_only": True,
                            "distinct_kernels": len(network.distinct_workloads()),
                            "workers": nw, "kernel_cpu_seconds": kernel_cpu}
    if failures:
        meta["wall_seconds"] = time.perf_counter() - start
        raise _failure(network, failures, figures.get(tuple(sorted(hw.items())), {}), cfg,
                       fidelity, meta)
    by_size: dict[int, list[dict[str, Any]]] = {}
    for k in sizes:
        kf = figures.get(tuple(sorted(per_size[k].items())), {})
        by_size[k] = [layer_figures(layer, [kf[x.workload] for x in layer.kernels])
                      for layer in network.layers]
    chosen = schedule_layers(network, cfg, {k: [float(f["cycles"]) for f in v]
                                            for k, v in by_size.items()})
    rows = tuple(LayerResult(layer, p.start, by_size[p.size][i], cluster=p.clusters, end=p.end)
                 for i, (layer, p) in enumerate(zip(network.layers, chosen.placements, strict=True)))
    meta.update({"wall_seconds": time.perf_counter() - start, "clusters": n,
                 "group_sizes": list(sizes),
                 "segments": [[network.layers[a].name, network.layers[b - 1].name, b - a]
                              for a, b in chosen.segments],
                 "pipelined_layers": chosen.pipelined_layers,
                 # what the plan was chosen from: each layer's cycles on each group size
                 "layer_cycles_by_group": {str(k): [int(f["cycles"]) for f in v]
                                           for k, v in by_size.items()},
                 "data_parallel_cycles": sum(int(f["cycles"]) for f in by_size[n])})
    whole = by_size[n]
    peaks = [f.get("peak_macs_per_cycle") for f in whole if f["macs"]]
    machine = {"roofline_cycles": _sum_known(f["roofline_cycles"] for f in whole),
               "peak_macs_per_cycle": max(peaks) if peaks and all(isinstance(p, int) for p in peaks)
               else None}
    return NetworkResult(network, rows, cfg.name, fidelity, cfg.clock_ghz, meta,
                         schedule="pipelined", network_figures=machine)


def _sum_known(values: Any) -> Any:
    vals = list(values)
    return None if any(v is None for v in vals) else sum(vals)


def _applies(config: str, hardware: Mapping[str, Scalar]) -> bool:
    """Whether the schedule differs from layer-by-layer: a machine of more than one cluster
    (`auto` leaves it out otherwise)."""
    from accelsim.config import load_config

    return bool(load_config(config).with_overrides(dict(hardware)).clusters > 1)


run_pipelined.applies = _applies  # type: ignore[attr-defined]


def schedule_layers(network: Network, config: Any, durations: Mapping[int, list[float]]) -> Plan:
    """The plan of `network` on `config`'s clusters from the measured `durations` (group size
    -> cycles per layer)."""
    ic = config.interconnect
    bandwidth = (ic.bandwidth_bytes_per_cycle if ic.kind == "bus" else ic.link_bytes_per_cycle)
    latency = ic.latency_cycles if ic.kind == "bus" else ic.hop_latency_cycles
    handoff = Handoff(latency, float(bandwidth), config.clusters)
    rows = [layer_rows(layer) for layer in network.layers]
    out = [float(output_bytes(layer)) for layer in network.layers]
    return plan(durations, rows, out, producers(network), config.clusters, handoff)


__all__ = ["CHUNKS", "group_overrides", "group_sizes", "layer_rows", "producers", "run_pipelined",
           "schedule_layers"]
