"""Makes the many-cluster figure docs/networks.md shows (committed in docs/img/): the network
timeline of a network under `--schedule pipelined` on a many-cluster preset, a lane per cluster.

    .venv/bin/python -m plots.pipelined_figures [--network mobilenetv2] [--config cluster16]
    .venv/bin/python -m plots.pipelined_figures --from-json RUN.json   # redraw a saved run

Runs the simulations (`accelsim.network.pipelined.run_pipelined`, timing only, analytic
fidelity: every kernel on every group size, tens of CPU minutes on cluster16) here, unless
`--from-json` names the `--json` object of such a run (`accelsim run NETWORK --schedule
pipelined --json`, or `bench/bench_pipelined.py --save`), whose rows are drawn as they are.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from accelsim.network.results import SUMMED


def result_from_json(data: dict[str, Any]) -> Any:
    """A `NetworkResult` with the rows of a saved network run (its layers read again by name)."""
    from accelsim.network.results import LayerResult, NetworkResult
    from accelsim.network.zoo import load_network

    network = load_network(data.get("input") or data["source"])
    rows = {row["name"]: row for row in data["layers"]}
    if set(rows) != {layer.name for layer in network.layers}:
        raise ValueError(f"{data['network']}: the saved layers are not the network's layers")
    layers = []
    for layer in network.layers:
        row = rows[layer.name]
        figures = {k: row.get(k) for k in (*SUMMED, "compute_utilization", "mac_utilization",
                                          "roofline_ratio", "bound", "mapping_efficiency",
                                          "precision")}
        layers.append(LayerResult(layer, int(row["start_cycle"]), figures, cluster=row.get("cluster"),
                                  end=int(row["end_cycle"])))
    meta = {k: v for k, v in data.items() if k in ("distinct_kernels", "wall_seconds")}
    return NetworkResult(network, tuple(layers), data["config"], data["fidelity"],
                         float(data["clock_ghz"]), meta, schedule=data.get("schedule", "pipelined"))


def main(argv: list[str] | None = None) -> int:
    from plots.network_timeline import plot_network_timeline

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--network", default="mobilenetv2")
    ap.add_argument("--config", default="cluster16")
    ap.add_argument("--from-json", type=Path, default=None)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "img"))
    args = ap.parse_args(argv)
    if args.from_json is not None:
        result = result_from_json(json.loads(args.from_json.read_text(encoding="utf-8")))
    else:
        from accelsim.network.pipelined import run_pipelined
        from accelsim.network.zoo import load_network

        result = run_pipelined(load_network(args.network), args.config, {}, "analytic",
                               progress=False)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    png = out / f"{result.network.name}_{result.config}_pipelined.png"
    plot_network_timeline(result, png, title=f"{result.network.name} on {result.config}, "
                          f"{result.schedule} schedule: {result.totals()['cycles']:,} cycles")
    print(f"{png}: {png.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
