"""Fit the `gemmini` preset's global figures on the development rows, with
leave-one-configuration-out cross-validation (issue #30).

    .venv/bin/python bench/fit_gemmini.py ../shared/validation/gemmini/rtl_dev_*.csv
    # or one process per file, combined:
    .venv/bin/python bench/fit_gemmini.py rtl_dev_a.csv --save-errors A.json   # (and B)
    .venv/bin/python bench/fit_gemmini.py --from A.json B.json --per-row ROWS.csv

The fitted figures (one value for every row, each a physical quantity):
- `dram.latency_cycles`: the round trip of one DMA request through the L2 / LLC to FireSim's
  DRAM model; it also sets `dram.bandwidth_bytes_per_cycle` = min(16 B (the 128-bit bus),
  16 requests in flight x 64 B / latency);
- `dma.setup_cycles`: issuing one DMA descriptor (an mvin / mvout through the reservation
  station and the load / store controller);
- `control.issue_cycles`: the control path's cost per operation it runs.
Each row's two programs (the row's mapping on its Gemmini, Gemmini's tiler's tiles) are
compiled once; every grid point re-estimates them (the analytic fidelity). The score of a
point is the mean of the two RTL columns' MAPE. In-sample: the best point on all rows.
Leave-one-configuration-out: for each of the scratchpad / accumulator configurations, the
best point on the other configurations' rows predicts that configuration's rows; the
held-out errors of every configuration together give the cross-validated MAPE.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import validate_gemmini as V

from accelsim.estimate.analytic import estimate

LATENCY = (70, 85, 110)
SETUP = (4,)
ISSUE = (0,)
BUS_BYTES = 16        # dma_buswidth = 128 bits (Configs.scala:69)
IN_FLIGHT_BYTES = 16 * 64  # max_in_flight_mem_reqs = 16 (Configs.scala:66) x dma_maxbytes 64


def params(latency: int, setup: int, issue: int) -> dict[str, int]:
    return {"dram.latency_cycles": latency,
            "dram.bandwidth_bytes_per_cycle": max(1, min(BUS_BYTES, IN_FLIGHT_BYTES // latency)),
            "dma.setup_cycles": setup, "control.issue_cycles": issue}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", nargs="*", help="development CSVs (with target.* columns)")
    ap.add_argument("--latency", type=int, nargs="+", default=list(LATENCY),
                    help=f"round trips to try (cycles; default {' '.join(map(str, LATENCY))})")
    ap.add_argument("--setup", type=int, nargs="+", default=list(SETUP),
                    help=f"descriptor setups to try (cycles; default {' '.join(map(str, SETUP))})")
    ap.add_argument("--save-errors", metavar="JSON",
                    help="write every row's errors at every grid point (to combine runs over "
                         "separate files with --from)")
    ap.add_argument("--from", dest="from_", nargs="+", metavar="JSON", default=[],
                    help="combine the errors of earlier --save-errors runs (no compiling); the "
                         "rows arguments are then ignored")
    ap.add_argument("--per-row", metavar="CSV", help="write each row's errors at the in-sample best")
    args = ap.parse_args(argv)
    base = V.load_config("gemmini")
    raw = []
    labels: list[str] = []
    for path in [] if args.from_ else args.rows:
        with open(path, newline="") as f:
            raw += list(csv.DictReader(f))
    t0 = time.perf_counter()
    grid = list(itertools.product(args.latency, args.setup, ISSUE))
    if args.from_:
        return combine(args.from_, args.per_row)
    # per grid point, per row: (error of the row's mapping, error of Gemmini's tiler). Each
    # row's two programs are compiled, estimated at every grid point and dropped before the
    # next row (memory stays one row's programs: holding all 296 did not fit beside the
    # other jobs of the shared machine)
    err: dict[tuple[int, int, int], list[tuple[float, float]]] = {p: [] for p in grid}
    keys: list[tuple[str, str]] = []
    for n, r in enumerate(raw):
        row = V.read_row(r)
        key = (r["arch.mem2_depth"], r["arch.mem1_depth"])
        keys.append(key)
        labels.append(" ".join(f"{d}{row.layer.dims[d]}" for d in "CKPQR")
                      + f" s{row.layer.stride} spad{key[0]} acc{key[1]}")
        cfg = V.row_config(base, row.spad_bytes, row.acc_bytes)
        m_map, _ = V.compile_mapped(row.layer, V.parse_mapping(row.mapping), cfg, "nhwc", V.I8,
                                    V.gemmini_order(row.layer), accumulate=V.ACCUMULATE)
        tiles, order = V.gemmini_tiles(row.layer)
        m_auto, _ = V.compile_tiled(base, row.layer, tiles, order, "nhwc", V.I8,
                                    accumulate=V.ACCUMULATE)
        cols = [(m_map, cfg, float(r["target.gemmini_cycle"])),
                (m_auto, base, float(r["target.gemmini_auto_cycle"]))]
        for point in grid:
            over = params(*point)
            e = [(estimate(module, c.with_overrides(over)).cycles - meas) / meas
                 for module, c, meas in cols]
            err[point].append((e[0], e[1]))
        del m_map, m_auto, cols
        V.clear_caches()
        if (n + 1) % 10 == 0:
            print(f"  {n + 1} rows in {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"{len(grid)} grid points x {2 * len(raw)} programs in {time.perf_counter() - t0:.0f} s")
    if args.save_errors:
        with open(args.save_errors, "w") as f:
            json.dump({"labels": labels, "keys": keys,
                       "err": [[list(p), err[p]] for p in grid]}, f)
    return summarize(grid, err, keys, labels, args.per_row)


def combine(paths: Sequence[str], per_row: str | None) -> int:
    """The fit over the rows of several --save-errors runs (same grid in each)."""
    labels: list[str] = []
    keys: list[tuple[str, str]] = []
    err: dict[tuple[int, int, int], list[tuple[float, float]]] = {}
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        labels += d["labels"]
        keys += [tuple(k) for k in d["keys"]]  # type: ignore[misc]
        for p, e in d["err"]:
            err.setdefault(tuple(p), []).extend(tuple(x) for x in e)  # type: ignore[arg-type]
    grid = [p for p in err if len(err[p]) == len(keys)]
    return summarize(grid, err, keys, labels, per_row)


Point = tuple[int, int, int]


def summarize(grid: Sequence[Point], err: dict[Point, list[tuple[float, float]]],
              keys: Sequence[tuple[str, str]], labels: Sequence[str], per_row: str | None) -> int:
    for point in grid:
        es = err[point]
        print(f"  {point}: mapping {100 * statistics.fmean(abs(e[0]) for e in es):.1f}%, auto "
              f"{100 * statistics.fmean(abs(e[1]) for e in es):.1f}%", flush=True)

    def score(point: tuple[int, int, int], rows: Sequence[int]) -> float:
        e = err[point]
        return statistics.fmean(abs(e[i][0]) + abs(e[i][1]) for i in rows) / 2

    everything = range(len(keys))
    best = min(grid, key=lambda p: score(p, everything))
    print(f"in-sample best: latency {best[0]}, setup {best[1]}, issue {best[2]} -> "
          f"{params(*best)}")
    report("in-sample", [err[best][i] for i in everything], [keys[i] for i in everything])
    if per_row:
        with open(per_row, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["row", "err_mapping", "err_auto"])
            for i in everything:
                w.writerow([labels[i], f"{err[best][i][0]:.4f}", f"{err[best][i][1]:.4f}"])
    held: list[tuple[float, float]] = []
    held_keys = []
    for k in sorted(set(keys)):
        train = [i for i in everything if keys[i] != k]
        test = [i for i in everything if keys[i] == k]
        p = min(grid, key=lambda q: score(q, train))
        print(f"  hold out spad {k[0]} rows / acc {k[1]}: fitted {p}, held-out MAPE "
              f"{100 * statistics.fmean(abs(err[p][i][0]) for i in test):.1f}% (mapping), "
              f"{100 * statistics.fmean(abs(err[p][i][1]) for i in test):.1f}% (auto)")
        held += [err[p][i] for i in test]
        held_keys += [k] * len(test)
    report("leave-one-configuration-out", held, held_keys)
    return 0


def report(name: str, errs: Sequence[tuple[float, float]], keys: Sequence[object]) -> None:
    for col, label in ((0, "mapping (target.gemmini_cycle)"), (1, "auto (target.gemmini_auto_cycle)")):
        a = [abs(e[col]) for e in errs]
        print(f"{name}: {label}: MAPE {100 * statistics.fmean(a):.1f}%  median "
              f"{100 * statistics.median(a):.1f}%  worst {100 * max(a):.1f}%  within 10% "
              f"{100 * sum(x <= 0.1 for x in a) / len(a):.0f}%")


if __name__ == "__main__":
    sys.exit(main())
