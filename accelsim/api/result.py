"""`Result`: what `accelsim.run` returns, for a kernel or a whole network.

    r = accelsim.run("gemm:M=256,N=256,K=256")
    r.cycles                 # simulated cycles
    print(r.report)          # the text report `accelsim run ... --target sim` prints
    r.to_dict()              # the object `accelsim run ... --target sim --json` prints
    r.to_dataframe()         # one row of figures (a kernel) or one row per layer (a network)
    r.timeline("gemm.png")   # the overlap timeline; r.trace("gemm.json") for Perfetto
    r.outputs["C"]           # the output arrays (runs with data)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from accelsim.errors import InputError

if TYPE_CHECKING:
    from accelsim.api.network_run import NetworkRun
    from accelsim.api.program import Program
    from accelsim.api.program_run import ProgramRun


def run_report(target: str, program: Program, arrays: Mapping[str, np.ndarray],
               outputs: Sequence[str], wall_seconds: float, compile_seconds: float,
               extra: Mapping[str, Any]) -> dict[str, Any]:
    """The `accelsim run INPUT --json` object of a kernel run on `target`: what ran, its
    outputs (shape, dtype, checksums) and the target's figures (`extra`)."""
    from accelsim.api.program import describe_array

    if program.workload is not None:
        outputs = tuple(program.workload.outputs)
    return {
        "target": target,
        "input": program.source,
        "func": program.func_name,
        "wall_seconds": wall_seconds,
        "compile_seconds": compile_seconds,
        "outputs": {name: describe_array(arrays[name]) for name in outputs if name in arrays},
        **extra,
    }


@dataclass(slots=True)
class Result:
    """One run of `accelsim.run`: a kernel (`program` set) or a network (`network` set).

    `cycles`: simulated cycles (the slowest cluster's with several; the network's total for a
    network). `report`: what the CLI prints (`print(result.report)`): a `Report` for one
    cluster (event), the cluster summary for several, the one-line summary of an analytic
    run, the per-layer table of a network. `outputs`: the output arrays of a run with data
    (empty when timing only). `check`: the comparison with the reference (`check=True`)."""

    source: str
    program: ProgramRun | None = None
    network: NetworkRun | None = None
    check: dict[str, Any] | None = None

    @property
    def cycles(self) -> int:
        if self.program is not None:
            return self.program.cycles
        assert self.network is not None
        return int(self.network.figures["cycles"])

    @property
    def report(self) -> Any:
        if self.program is not None:
            return self.program.report
        assert self.network is not None
        return _NetworkTable(self.network)

    @property
    def outputs(self) -> dict[str, np.ndarray]:
        if self.program is not None:
            names = self.program.outputs
            w = self.program.program.workload
            if w is not None and names:
                names = tuple(w.outputs)
            return {n: self.program.arrays[n] for n in names if n in self.program.arrays}
        assert self.network is not None
        run = self.network.functional
        return dict(run.outputs) if run is not None else {}

    @property
    def ok(self) -> bool | None:
        """Whether the outputs matched the reference (None: not checked)."""
        return None if self.check is None else bool(self.check["ok"])

    def to_dict(self) -> dict[str, Any]:
        """The object `accelsim run SOURCE --target sim --json` prints for the same run."""
        if self.network is not None:
            return self.network.to_dict(self.source)
        run = self.program
        assert run is not None
        out = run_report("sim", run.program, run.arrays, run.outputs, run.wall_seconds,
                         run.compile_seconds, run.json_figures())
        if self.check is not None:
            out["check"] = self.check
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame: one row of the run's scalar figures (a kernel), or one row per
        layer (a network, as `--csv` writes it)."""
        import pandas as pd

        if self.network is not None:
            layers = self.network.figures.get("layers") or []
            return pd.DataFrame.from_records([_scalars(row) for row in layers])
        return pd.DataFrame.from_records([_scalars(self.to_dict())])

    def timeline(self, path: str, window: tuple[int, int] | None = None) -> str:
        """Draw the run's timeline into `path` (.png/.svg/.pdf): one lane per DMA engine, DRAM
        channel and compute unit (a kernel), a lane per cluster (several clusters), a bar per
        layer (a network). Returns `path`."""
        from accelsim.api.program import check_figure_path

        check_figure_path("timeline", path)
        if self.network is not None:
            from plots.network_timeline import plot_network_timeline

            plot_network_timeline(self._network_result(), path)
            return path
        sim = self._sim("timeline")
        if self.program is not None and self.program.clusters is not None:
            from plots.cluster_timeline import plot_cluster_timeline

            plot_cluster_timeline(sim.trace, path, config=sim.config)
            return path
        from plots.timeline import plot_timeline

        plot_timeline(sim.trace, path, config=sim.config, window=window,
                      title=f"@{sim.func} on '{sim.config.name}': {sim.cycles:,} cycles")
        return path

    def trace(self, path: str) -> str:
        """Write the Chrome trace-event JSON of the run (open it in https://ui.perfetto.dev):
        every busy interval of every unit (a kernel), a slice per layer (a network)."""
        if self.network is not None:
            from accelsim.network.perfetto import write_network_trace

            write_network_trace(path, self._network_result())
            return path
        sim = self._sim("trace")
        try:
            if self.program is not None and self.program.clusters is not None:
                from accelsim.report.chrome_trace import write_chrome_trace

                write_chrome_trace(path, sim.trace, sim.config.clock_ghz)
            else:
                from accelsim.report.chrome_trace import write_result_trace

                write_result_trace(path, sim)
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror}") from None
        return path

    def _sim(self, what: str) -> Any:
        run = self.program
        assert run is not None
        if run.sim is None:
            raise InputError(f"{what}() needs a trace: run with fidelity='event' (the default), "
                             "not 'analytic'")
        if not run.options.keep_records:
            raise InputError(f"{what}() needs every trace record: run with records=True (the "
                             "default of accelsim.run)")
        return run.sim

    def _network_result(self) -> Any:
        assert self.network is not None
        if self.network.result is None:
            raise InputError("a network run on the host has no per-layer figures")
        return self.network.result

    def __repr__(self) -> str:
        kind = "network" if self.network is not None else "kernel"
        return f"<accelsim.Result {kind} {self.source!r}: {self.cycles:,} cycles>"


@dataclass(frozen=True, slots=True)
class _NetworkTable:
    """A network's report as the CLI prints it (the per-layer table and the totals)."""

    run: NetworkRun

    def __str__(self) -> str:
        if self.run.result is None:
            f = self.run.figures
            return (f"network {f['network']} on host: {f['layer_count']} layers in "
                    f"{f['wall_seconds']:.3f} s")
        return str(self.run.result.table(limit=None))


def _scalars(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if v is None or isinstance(v, int | float | str | bool)}


__all__ = ["Result", "run_report"]
