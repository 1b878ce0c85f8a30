"""`fidelity = "both"`: prune with the analytic estimate, confirm the front with the event
machine. After every point of the sweep has its analytic row, the points on the Pareto front
of the sweep's `objectives` (minimized, per workload, over the ok rows of "both" points) that
are not yet confirmed run again at the event fidelity (`accelsim.dse.evaluate.confirm_point`);
their rows then hold the event figures with `analytic_cycles`, `event_cycles`, `divergence`
and `confirmed = 1`. The front is then taken again over the rows as they are (event figures
where confirmed, analytic ones elsewhere) and its unconfirmed points confirmed, until every
point on it is: an event figure worse than the analytic one can let another point onto the
front, and that point is confirmed too. Rows off the final front keep their analytic figures
(`confirmed = 0`). A resumed sweep confirms only what is left."""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.dse.pareto import pareto_mask
from accelsim.dse.spec import Point
from accelsim.dse.store import STATUS_OK, ResultStore
from accelsim.errors import ConfigError


def front_to_confirm(store: ResultStore, points: Sequence[Point], objectives: Sequence[str]
                     ) -> list[Point]:
    """The "both" points on their workload's current front that still need an event run."""
    wanted = {p.key: p for p in points if p.fidelity == "both"}
    rows = [r for r in store.rows() if r["key"] in wanted and r["status"] == STATUS_OK]
    by_workload: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        missing = [o for o in objectives if r.get(o) is None]
        if missing:
            raise ConfigError(f"objectives: column(s) {missing} missing in the result of point "
                              f"{wanted[str(r['key'])].params()} (known: figures and parameters)")
        by_workload.setdefault(str(r["workload"]), []).append(r)
    out = []
    for group in by_workload.values():
        mask = pareto_mask([[float(r[o]) for o in objectives] for r in group])  # type: ignore[arg-type]
        out += [wanted[str(r["key"])] for r, on in zip(group, mask) if on and not r.get("confirmed")]
    return out
