"""How a network's layers are scheduled on the machine: `--schedule`, `NetworkOptions.schedule`,
a DSE network point's `schedule`.

    layer-by-layer  each distinct kernel compiled and simulated once, every tensor in DRAM, layer
                    i starting when layer i-1 ends (`accelsim.network.timing.run_timing`)
    fused           consecutive layers compiled as one program, intermediates on chip where a
                    level holds them (`accelsim.network.fused.run_fused`)
    pipelined       layers (or fused groups) owned by clusters, overlapping in time
                    (`accelsim.network.pipelined.run_pipelined`)
    auto            the best of the schedules available by the analytic estimate (fewest cycles,
                    then fewest DRAM bytes), never worse than layer-by-layer by that estimate

Every runner has one signature: `run(network, config, hardware, fidelity, **kw) ->
NetworkResult` (`kw`: `workers`, `progress`, `time_limit_s`). A schedule whose module is not
installed is not available: naming it is an `InputError`, and `auto` leaves it out.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from accelsim.errors import InputError

if TYPE_CHECKING:
    from accelsim.network.model import Network
    from accelsim.network.results import NetworkResult

SCHEDULES = ("layer-by-layer", "fused", "pipelined", "auto")
DEFAULT_SCHEDULE = "auto"
# schedule -> (module, function) that runs it
RUNNERS: dict[str, tuple[str, str]] = {
    "layer-by-layer": ("accelsim.network.timing", "run_timing"),
    "fused": ("accelsim.network.fused", "run_fused"),
    "pipelined": ("accelsim.network.pipelined", "run_pipelined"),
}
Runner = Callable[..., "NetworkResult"]


def check_schedule(name: str) -> str:
    """`name` if it is a schedule, else an `InputError` naming the choices."""
    if name not in SCHEDULES:
        raise InputError(f"unknown schedule {name!r}; schedules: {', '.join(SCHEDULES)}")
    return name


def available() -> tuple[str, ...]:
    """The schedules (other than auto) whose runner is installed, in SCHEDULES order."""
    return tuple(s for s in SCHEDULES if s in RUNNERS
                 and importlib.util.find_spec(RUNNERS[s][0]) is not None)


def runner(name: str) -> Runner:
    """The function that runs schedule `name` (not auto)."""
    check_schedule(name)
    if name == "auto":
        raise InputError("schedule 'auto' is a choice among the others, not a runner of its own")
    if name not in available():
        raise InputError(f"schedule {name!r} is not available yet (available: "
                         f"{', '.join((*available(), 'auto'))})")
    module, func = RUNNERS[name]
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


def choose(network: Network, config: str, hardware: Mapping[str, Any] | None = None,
           **kw: Any) -> tuple[str, dict[str, NetworkResult]]:
    """`auto`'s choice: every available schedule estimated (fidelity analytic); the one with
    the fewest cycles, then the fewest DRAM bytes, layer-by-layer on a tie. Returns the name and
    the estimates by schedule. A runner with an `applies(config, hardware)` attribute that
    says no (pipelined on one cluster) is left out."""
    names = tuple(n for n in available()
                  if getattr(runner(n), "applies", lambda *_: True)(config, dict(hardware or {})))
    if names == ("layer-by-layer",):
        return "layer-by-layer", {}
    hw = dict(hardware or {})
    estimates = {"layer-by-layer": runner("layer-by-layer")(network, config, hw, "analytic", **kw)}
    for name in names:
        if name not in estimates:  # fused counts against the layer-by-layer estimate above
            extra = {"layer_by_layer": estimates["layer-by-layer"]} if name == "fused" else {}
            estimates[name] = runner(name)(network, config, hw, "analytic", **kw, **extra)
    return min(names, key=lambda n: _score(estimates[n], n)), estimates


def _score(result: NetworkResult, name: str) -> tuple[float, float, int]:
    t = result.totals()
    dram = t.get("dram_bytes")
    return (float(t["cycles"]), float("inf") if dram is None else float(dram),
            0 if name == "layer-by-layer" else 1)


def run_schedule(network: Network, schedule: str, config: str,
                 hardware: Mapping[str, Any] | None = None, fidelity: str = "event",
                 **kw: Any) -> NetworkResult:
    """Run `network` timing only under `schedule` (auto: `choose`, then the chosen schedule at
    `fidelity`; an analytic run reuses the estimate). The result names the schedule that ran
    and, for auto, the estimates' cycles (`meta["schedule_estimates"]`)."""
    from dataclasses import replace

    check_schedule(schedule)
    hw = dict(hardware or {})
    if schedule != "auto":
        result = runner(schedule)(network, config, hw, fidelity, **kw)
        return with_bound(replace(result, schedule=schedule), config, hw)
    name, estimates = choose(network, config, hw, **kw)
    result = (estimates[name] if fidelity == "analytic" and name in estimates
              else runner(name)(network, config, hw, fidelity, **kw))
    meta = dict(result.meta)
    meta["schedule_requested"] = "auto"
    if estimates:
        meta["schedule_estimates"] = {n: r.totals()["cycles"] for n, r in estimates.items()}
    return with_bound(replace(result, schedule=name, meta=meta), config, hw)


def with_bound(result: NetworkResult, config: str, hardware: Mapping[str, Any]) -> NetworkResult:
    """`result` with the honest network bound among its network figures
    (`accelsim.network.links.honest_bound`), whichever schedule ran."""
    from dataclasses import replace

    from accelsim.config import load_config
    from accelsim.network.links import honest_bound

    cfg = load_config(config).with_overrides(dict(hardware))
    bound = honest_bound(result.network, cfg, int(result.totals()["macs"] or 0))
    return replace(result, network_figures={**bound, **result.network_figures})


__all__ = ["DEFAULT_SCHEDULE", "SCHEDULES", "available", "check_schedule", "choose", "run_schedule",
           "runner"]
