"""Autotuning: search tile sizes and pipeline stages for one workload on one config.

The simulator is the cost model. Every candidate runs at the analytic fidelity (cheap), the
best `top_k` are re-run event-driven, and the event result decides: the objective is the honest
`roofline_ratio` (cycles / the roofline of peak compute and *compulsory* DRAM traffic, the same
bound for every candidate of the workload, so the fastest candidate wins), then energy. The
summary also shows each finalist's `traffic_ratio` (DRAM bytes moved / compulsory). Both
phases are ordinary sweeps, so they run on local workers or a Dask cluster and can be kept in a
results database.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accelsim.dse.runners import EvalFn, run_sweep
from accelsim.dse.spec import Point, Scalar, Sweep
from accelsim.dse.store import ResultStore
from accelsim.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Candidate:
    tile_sizes: str
    stages: int
    analytic_cycles: int | None
    event_cycles: int | None = None
    roofline_ratio: float | None = None   # cycles / the honest roofline
    traffic_ratio: float | None = None    # DRAM bytes moved / compulsory bytes
    energy_pj: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class TuneResult:
    workload: str
    config: str
    band: tuple[int, ...]  # trip counts of the tiled band, outer to inner
    candidates: tuple[Candidate, ...]  # every candidate, best analytic first
    best: Candidate
    best_point: Point
    best_figures: dict[str, Any] = field(default_factory=dict)

    @property
    def analytic_error(self) -> float | None:
        """Largest |analytic - event| / event over the candidates run at both fidelities."""
        errs = [abs(c.analytic_cycles - c.event_cycles) / c.event_cycles for c in self.candidates
                if c.analytic_cycles is not None and c.event_cycles]
        return max(errs) if errs else None

    def summary(self) -> str:
        searched = [c for c in self.candidates if c.tile_sizes != "search"]
        plus = " plus the default pipeline's" if len(searched) < len(self.candidates) else ""
        lines = [f"autotune {self.workload} on {self.config}: band {'x'.join(map(str, self.band))}, "
                 f"{len(searched)} candidates{plus} "
                 f"({sum(c.analytic_cycles is not None for c in self.candidates)} compiled and fit)",
                 f"{'tile_sizes':>16} {'stages':>6} {'analytic':>10} {'event':>10} {'roofline x':>10} "
                 f"{'traffic x':>10}"]
        for c in self.candidates:
            if c.event_cycles is None:
                continue
            stages = "search" if c.tile_sizes == "search" else c.stages  # the search picks them
            lines.append(f"{c.tile_sizes:>16} {stages:>6} {c.analytic_cycles or '-':>10} "
                         f"{c.event_cycles:>10} {_fmt(c.roofline_ratio):>10} {_fmt(c.traffic_ratio):>10}")
        b = self.best
        roof = self.best_figures.get("roofline_cycles")
        what = (f"tile_sizes={b.tile_sizes} (the default pipeline's tile search)"
                if b.tile_sizes == "search" else f"tile_sizes={b.tile_sizes} stages={b.stages}")
        lines.append(f"best: {what}: {b.event_cycles} cycles, "
                     f"{_fmt(b.roofline_ratio)}x the roofline bound ({roof} cycles: peak compute, "
                     f"compulsory DRAM traffic), moving {_fmt(b.traffic_ratio)}x the compulsory bytes")
        if self.analytic_error is not None:
            lines.append("analytic vs event on the re-run candidates: at most "
                         f"{self.analytic_error:.1%} apart")
        return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def tiled_band(workload: str) -> tuple[int, ...]:
    """Trip counts of the first perfect loop band of the workload's function (0 = unknown)."""
    import workloads
    from compiler.ir.ops import AffineForOp, AffineYieldOp

    wl = workloads.get(workload)
    func = wl.func(wl.module(verify=False))
    loop = next((op for op in func.walk() if isinstance(op, AffineForOp)), None)  # outermost first
    band: list[int] = []
    while isinstance(loop, AffineForOp):
        band.append(loop.constant_trip_count or 0)
        inner = [op for op in loop.body if not isinstance(op, AffineYieldOp)]
        loop = inner[0] if len(inner) == 1 else None
    if not band:
        raise ConfigError(f"autotune: workload '{workload}' has no affine.for loop band to tile")
    return tuple(band)


def tile_candidates(band: Sequence[int], max_candidates: int, min_tile: int = 8,
                    seed: int = 0) -> list[str]:
    """Power-of-two tile sizes per loop (and the full extent), uniform ones first, then a
    seeded sample of the rest, at most `max_candidates` in all."""
    per_loop = []
    for extent in band:
        if extent <= 0:
            per_loop.append([32])
            continue
        sizes = [s for s in (2 ** k for k in range(20)) if min_tile <= s < extent]
        per_loop.append(sorted({*sizes, extent}))
    combos = [tuple(c) for c in itertools.product(*per_loop)]
    uniform = sorted({tuple(min(s, e) if e > 0 else s for e in band) for s in
                      sorted({x for opts in per_loop for x in opts})}, key=lambda c: int(np.prod(c)))
    chosen = [c for c in uniform if c in combos]
    rest = [c for c in combos if c not in set(chosen)]
    room = max(0, max_candidates - len(chosen))
    if len(rest) > room:
        idx = np.random.default_rng(seed).choice(len(rest), size=room, replace=False)
        rest = [rest[i] for i in sorted(idx)]
    return [",".join(map(str, c)) for c in (chosen + rest)[:max_candidates]]


def autotune(workload: str, config: str = "default", *, hardware: Mapping[str, Scalar] | None = None,
             stages: Sequence[int] = (1, 2, 3),
             top_k: int = 4, max_candidates: int = 48, tile_sizes: Sequence[str] | None = None,
             db: str | Path | None = None, workers: int | None = None, scheduler: Any = None,
             progress: bool = True, evaluate: EvalFn | None = None) -> TuneResult:
    """Search tile sizes x stages; return the event-fidelity winner and the ranking.

    `hardware`: config keys fixed for every candidate (`{"sram.capacity_kib": 128}`, as `--set`)."""
    fixed = {k: [v] for k, v in (hardware or {}).items()}
    if top_k < 1:
        raise ConfigError(f"autotune: top_k must be >= 1, found {top_k}")
    band = tiled_band(workload)
    tiles = list(tile_sizes) if tile_sizes is not None else tile_candidates(band, max_candidates)
    analytic = Sweep(workloads=[workload], config=config, hardware=fixed, fidelity="analytic",
                     compiler={"tile_sizes": [_tile_value(t) for t in tiles], "stages": list(stages)},
                     name=f"autotune-analytic:{workload}")
    # unless the caller gives the tiles to try, the default pipeline's own choice (the tile
    # search of --target sim) is a candidate: the result is never worse than not tuning
    points = list(analytic.points())
    if tile_sizes is None:
        default = Sweep(workloads=[workload], config=config, hardware=fixed, fidelity="analytic",
                        compiler={"tile_sizes": ["search"]}, name=f"autotune-default:{workload}")
        points = [*default.points(), *points]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(db) if db is not None else Path(tmp) / "autotune.sqlite"
        with ResultStore(path) as store:
            run_sweep(points, store, evaluate=evaluate, workers=workers, scheduler=scheduler,
                      progress=progress)
            rows = {r["key"]: r for r in store.rows()}
            first = [(p, rows[p.key]) for p in points]
            ok = sorted((pr for pr in first if pr[1]["status"] == "ok"),
                        key=lambda pr: (pr[1]["cycles"], pr[1].get("energy_pj") or 0.0))
            if not ok:
                errors = sorted({r["error"] for _, r in first})
                raise ConfigError(f"autotune: no candidate of {workload} compiled and fit on {config}: "
                                  + " | ".join(errors[:3]))
            finalists = [Point(p.workload, p.config, p.hardware, p.compiler, "event", p.functional)
                         for p, _ in ok[:top_k]]
            run_sweep(finalists, store, evaluate=evaluate, workers=workers, scheduler=scheduler,
                      progress=progress)
            rows = {r["key"]: r for r in store.rows()}
    event = {(f.options["tile_sizes"], f.options["stages"]): rows[f.key] for f in finalists}
    cands = []
    for p, r in sorted(first, key=lambda pr: (pr[1]["status"] != "ok", pr[1].get("cycles") or 0)):
        key = (p.options["tile_sizes"], p.options["stages"])
        ev = event.get(key)
        ev_ok = ev is not None and ev["status"] == "ok"
        cands.append(Candidate(
            tile_sizes=str(key[0]), stages=int(key[1]),
            analytic_cycles=int(r["cycles"]) if r["status"] == "ok" else None,
            event_cycles=int(ev["cycles"]) if ev_ok else None,
            roofline_ratio=_float(ev.get("roofline_ratio")) if ev_ok else None,
            traffic_ratio=_float(ev.get("traffic_ratio")) if ev_ok else None,
            energy_pj=float(ev["energy_pj"]) if ev_ok else None,
            error=r["error"] if r["status"] != "ok" else (ev["error"] if ev is not None and not ev_ok
                                                          else None)))
    ran = [c for c in cands if c.event_cycles is not None]
    if not ran:
        raise ConfigError(f"autotune: every event run of {workload} failed: {cands[0].error}")
    best = min(ran, key=_objective)
    best_point = next(f for f in finalists
                      if (f.options["tile_sizes"], f.options["stages"]) == (best.tile_sizes, best.stages))
    return TuneResult(workload=analytic.workloads[0], config=config, band=band, candidates=tuple(cands),
                      best=best, best_point=best_point,
                      best_figures=dict(event[(best.tile_sizes, best.stages)]))


def _objective(c: Candidate) -> tuple[bool, float, int, float]:
    """Lower is better: the honest roofline ratio (candidates without one after those with
    one), then cycles, then energy."""
    ratio = c.roofline_ratio
    return (ratio is None, ratio if ratio is not None else 0.0, c.event_cycles or 0, c.energy_pj or 0.0)


def _float(v: Any) -> float | None:
    return None if v is None else float(v)


def _tile_value(text: str) -> Any:
    """Sweep values for tile_sizes: "auto"/"search"/"none" stay text, "32,16" becomes [32, 16]."""
    if text in ("auto", "search", "none"):
        return text
    return [int(x) for x in str(text).split(",")]
