"""A whole network on the simulator, as `accelsim run NETWORK --target sim` runs it.

Timing only (a layer list, a topology, `timing_only=True` or the analytic fidelity): each
distinct kernel is one DSE point (`accelsim.network.timing.run_timing`, hence
`accelsim.api.run_program` through the DSE evaluator), layers in parallel processes. With data
(an ONNX model): layer by layer in order, each kernel through `run_program`
(`accelsim.network.functional.run_functional`). `check_network_options` refuses what such a
run cannot honour, before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from accelsim.errors import InputError

if TYPE_CHECKING:
    import numpy as np

    from accelsim.network.functional import FunctionalRun
    from accelsim.network.model import Network
    from accelsim.network.results import NetworkResult


@dataclass(frozen=True, slots=True)
class NetworkOptions:
    """The flags of `accelsim run NETWORK` (see `accelsim run --help`)."""

    target: str = "sim"
    fidelity: str = "event"
    timing_only: bool = False
    hardware: Mapping[str, Any] = field(default_factory=dict)  # `--set` overrides
    workers: int | None = None
    kernel_time_limit: float | None = None
    check: bool = False
    seed: int | None = None
    inputs_npz: str | None = None
    inputs: Mapping[str, np.ndarray] | None = None
    progress: bool | TextIO = False
    schedule: str = "auto"   # accelsim.network.schedule.SCHEDULES

    def timing(self, network: Network) -> bool:
        """Whether the run is timing only (no data flows)."""
        return self.target == "sim" and (self.timing_only or not network.functional
                                         or self.fidelity == "analytic")


def load_network(source: str, conv_lowering: str = "auto",
                 shapes: Mapping[str, tuple[int, ...]] | None = None,
                 dtype: str | None = None) -> tuple[Network, list[str]]:
    """The network `accelsim run SOURCE` runs: read (`--conv-lowering`, ONNX inputs' symbolic
    dimensions bound by `shapes`, `--shape`), at precision `dtype` (`--dtype`; the workloads
    that do not take it are returned, left at f32)."""
    from accelsim.network.zoo import load_network as read

    network = read(source, conv_lowering, dict(shapes) if shapes else None)
    skipped: list[str] = []
    if dtype:
        from accelsim.network.precision import with_precision

        try:
            network, skipped = with_precision(network, dtype)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    return network, skipped


@dataclass(slots=True)
class NetworkRun:
    """A network's run: the per-layer figures (`result`, None on the host), the functional
    run when data flowed, the check against onnx's reference, and the `--json` object."""

    network: Network
    options: NetworkOptions
    result: NetworkResult | None
    functional: FunctionalRun | None
    figures: dict[str, Any]          # the --json object (an I/O edge), without target/input
    dtype: str | None = None         # the precision it ran at (`--dtype`), and the workloads
    dtype_skipped: tuple[str, ...] = ()  # left at f32 because they do not take it

    @property
    def check_ok(self) -> bool | None:
        return None if self.functional is None else self.functional.check_ok

    def to_dict(self, source: str) -> dict[str, Any]:
        """The `accelsim run NETWORK --json` object (`source`: INPUT as given)."""
        out = dict(self.figures)
        out["target"] = self.options.target
        out["input"] = source
        out.setdefault("schedule", "layer-by-layer")  # the host and data runs: layer by layer
        if self.dtype:
            out["dtype"] = self.dtype
            out["dtype_skipped"] = list(self.dtype_skipped)
        return out


def check_network_options(network: Network, source: str, opts: NetworkOptions) -> None:
    """Refuse, before anything runs, what a network run cannot honour."""
    if opts.target not in ("sim", "host"):
        raise InputError(f"unknown target {opts.target!r}; targets: host, sim")
    from accelsim.network.schedule import check_schedule

    check_schedule(opts.schedule)
    if opts.target == "host" and opts.schedule not in ("auto", "layer-by-layer"):
        raise InputError(f"--schedule {opts.schedule}: the host runs the model natively, "
                         "layer by layer; a schedule is for --target sim")
    if opts.target == "host" and not network.functional:
        raise InputError(f"--target host runs a model with data (an ONNX file); {source} describes "
                         "layer shapes only: use --target sim")
    if opts.check and not network.functional:
        raise InputError(f"--check needs a model with data (an ONNX file); {source} describes "
                         "layer shapes only")
    timing = opts.timing(network)
    if opts.check and timing:
        raise InputError("--check needs output data: drop --timing-only / --fidelity analytic")
    if (opts.inputs_npz or opts.inputs is not None or opts.seed is not None) \
            and not network.functional:
        raise InputError(f"--inputs/--seed: {source} describes layer shapes only (no data flows)")
    if opts.hardware and not timing:
        raise InputError("--set: a network run with data flowing does not read it yet "
                         "(use --timing-only, or a config file)")


def run_network(network: Network, config: str, opts: NetworkOptions,
                source: str | None = None) -> NetworkRun:
    """Run `network` on the preset or TOML `config` as `accelsim run NETWORK` does."""
    check_network_options(network, source or network.source, opts)
    if opts.timing(network):
        limit = opts.kernel_time_limit
        if limit is not None:
            from accelsim.dse.time_limit import check_time_limit

            try:
                limit = check_time_limit(limit, "--kernel-time-limit")
            except ValueError as exc:
                raise InputError(str(exc)) from None
        from accelsim.network.schedule import run_schedule

        result = run_schedule(network, opts.schedule, config, dict(opts.hardware),
                              fidelity=opts.fidelity, workers=opts.workers, progress=opts.progress,
                              time_limit_s=limit)
        return NetworkRun(network, opts, result, None, result.to_dict())
    # with data: layer by layer, or fused when asked (auto chooses among timing runs only)
    schedule = "layer-by-layer" if opts.schedule == "auto" else opts.schedule
    if opts.target == "sim" and schedule not in ("layer-by-layer", "fused"):
        from accelsim.network.schedule import runner

        runner(schedule)  # not available: the error names it
        raise InputError(f"--schedule {schedule}: a run with data flowing runs layer-by-layer or "
                         "fused; use --timing-only")
    from accelsim.network.functional import run_functional

    feeds = dict(opts.inputs) if opts.inputs is not None else None
    run = run_functional(network, opts.target, config, seed=opts.seed, inputs_npz=opts.inputs_npz,
                         check=opts.check, progress=bool(opts.progress), inputs=feeds,
                         schedule=schedule)
    return NetworkRun(network, opts, run.result, run, run.report())


__all__ = ["NetworkOptions", "NetworkRun", "check_network_options", "load_network", "run_network"]
