"""`fidelity = "both"`: prune with the analytic estimate, confirm the front with the event
machine. After every point of the sweep has its analytic row, the points on the Pareto front
of the sweep's `objectives` (minimized, per workload, over the ok rows of "both" points) that
are not yet confirmed run again at the event fidelity (`accelsim.dse.evaluate.confirm_point`);
their rows then hold the event figures with `analytic_cycles`, `event_cycles`, `divergence`,
`analytic_<objective>` for each objective figure, and `confirmed = 1`. Rows off the front keep
their analytic figures (`confirmed = 0`). The front is always the analytic one (a confirmed
row is placed by its `analytic_` figures), so a resumed sweep confirms only what is left."""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.dse.pareto import pareto_mask
from accelsim.dse.spec import Point
from accelsim.dse.store import STATUS_OK, ResultStore
from accelsim.errors import ConfigError


def analytic_value(row: dict[str, object], objective: str) -> object:
    """A row's analytic figure for `objective` (a confirmed row keeps it as `analytic_<name>`)."""
    return row.get(f"analytic_{objective}", row.get(objective)) if row.get("confirmed") \
        else row.get(objective)


def front_to_confirm(store: ResultStore, points: Sequence[Point], objectives: Sequence[str]
                     ) -> dict[Point, dict[str, object]]:
    """The "both" points on their workload's analytic front that still need an event run,
    each with the analytic objective figures its confirmed row keeps."""
    wanted = {p.key: p for p in points if p.fidelity == "both"}
    rows = [r for r in store.rows() if r["key"] in wanted and r["status"] == STATUS_OK]
    by_workload: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        missing = [o for o in objectives if analytic_value(r, o) is None]
        if missing:
            raise ConfigError(f"objectives: column(s) {missing} missing in the result of point "
                              f"{wanted[str(r['key'])].params()} (known: figures and parameters)")
        by_workload.setdefault(str(r["workload"]), []).append(r)
    out: dict[Point, dict[str, object]] = {}
    for group in by_workload.values():
        mask = pareto_mask([[float(analytic_value(r, o)) for o in objectives]  # type: ignore[arg-type]
                            for r in group])
        for r, on in zip(group, mask):
            if on and not r.get("confirmed"):
                p = wanted[str(r["key"])]
                params = p.params()  # a parameter objective is the same at both fidelities
                out[p] = {f"analytic_{o}": r[o] for o in objectives if o not in params}
    return out
