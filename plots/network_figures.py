"""Makes the network figure docs/networks.md shows (committed in docs/img/): the layer timeline of
ResNet-18 on the `default` machine, and the per-layer table that goes with it.

    .venv/bin/python -m plots.network_figures      # writes docs/img/resnet18_layers.png and .txt

Runs the simulations (`accelsim.network.timing.run_timing`, timing only, event fidelity) here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NETWORK = "resnet18"
CONFIG = "default"


def main(argv: list[str] | None = None) -> int:
    from accelsim.network.timing import run_timing
    from accelsim.network.zoo import load_network
    from plots.network_timeline import plot_network_timeline

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "img"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = run_timing(load_network(NETWORK), CONFIG, progress=False)
    png = out / f"{NETWORK}_layers.png"
    plot_network_timeline(result, png)
    table = result.table()
    (out / f"{NETWORK}_layers.txt").write_text(table + "\n", encoding="utf-8")
    print(table)
    print(f"{png}: {png.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
