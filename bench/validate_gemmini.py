"""Predict Gemmini's RTL cycles (FireSim) for the rows of a DOSA-layout CSV (issue #30).

    .venv/bin/python bench/validate_gemmini.py ROWS.csv --out PRED.csv

Reads only the `prob.*`, `arch.*`, `mapping.mapping` and `dse.auto_tiling` columns; every
`target.*` column may be empty. Writes every input column plus
- `pred_gemmini_cycle`: the row's mapping (`mapping.mapping`) on the row's Gemmini (its
  scratchpad and accumulator sizes), compiled and estimated by accelsim on the `gemmini` preset;
- `pred_gemmini_auto_cycle`: the tiles Gemmini's own tiler picks (`--tile-policy gemmini`,
  `accelsim.compile.gemmini_tiler`, with gemmini_params.h's sizes, which is what the study's
  auto-tiled runs used: their `dse.auto_tiling` is reproduced; a row whose recorded tiling
  differs is reported, and its recorded tiles are used);
- `pred_accelsim_cycle`: accelsim's own tile search on the row's Gemmini.
Then, for each RTL column present (`target.gemmini_cycle`, `target.gemmini_auto_cycle`), the
mean absolute percentage error, the median and worst error, the share within 10%, and
Timeloop's MAPE (`target.cycle`) on the same rows.

Every prediction is a compiled program estimated by the analytic fidelity (the event
machine agrees with it on these programs: tests/bench/test_validate_gemmini.py). No per-row or
per-layer constant: the preset's fitted figures are global (bench/fit_gemmini.py).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accelsim import load_config
from accelsim.compile.gemmini_tiler import auto_tiling_text, gemmini_order, gemmini_tiles
from accelsim.compile.mapping import compile_mapped, compile_tiled, parse_mapping
from accelsim.config import HardwareConfig
from accelsim.errors import AccelsimError
from accelsim.estimate.analytic import clear_caches
from compiler.ir import I8
from workloads.mapped import Layer

ORDER = "gemmini"
# the layers as Gemmini runs them: no bias, the partial sums start in the accumulator (its
# first compute overwrites: no copy-in of the output tile where a tile holds the whole
# reduction; workloads.mapped.build_mapped)
ACCUMULATE = False
COLUMNS = ("pred_gemmini_cycle", "pred_gemmini_auto_cycle", "pred_accelsim_cycle")
RTL = (("target.gemmini_cycle", "pred_gemmini_cycle"),
       ("target.gemmini_auto_cycle", "pred_gemmini_auto_cycle"))


@dataclass(frozen=True, slots=True)
class Row:
    layer: Layer
    mapping: str
    auto_tiling: str
    spad_bytes: int      # arch.mem2_entries: the scratchpad
    acc_bytes: int       # arch.mem1_depth x instances x word bits / 8: the accumulator


def read_row(r: Mapping[str, str]) -> Row:
    def num(key: str) -> int:
        try:
            return int(float(r[key]))
        except (KeyError, ValueError):
            raise SystemExit(f"validate_gemmini: column {key!r} missing or not a number: "
                             f"{r.get(key)!r}") from None
    dims = {d: num(f"prob.{d}") for d in "NKCPQRS"}
    if num("prob.Hstride") != num("prob.Wstride"):
        raise SystemExit("validate_gemmini: Hstride != Wstride is not a Gemmini convolution")
    acc = num("arch.mem1_depth") * num("arch.mem1_instances") * num("arch.mem1_word-bits") // 8
    return Row(Layer(dims, num("prob.Hstride")), r.get("mapping.mapping", ""),
               r.get("dse.auto_tiling", ""), num("arch.mem2_entries"), acc)


def row_config(base: HardwareConfig, spad_bytes: int, acc_bytes: int) -> HardwareConfig:
    """The preset with the row's scratchpad and accumulator as its on-chip level."""
    return base.with_overrides({"sram.capacity_kib": max(1, (spad_bytes + acc_bytes) // 1024)})


FIDELITY = ["analytic"]  # --fidelity: "analytic" (the default) or "event"


def cycles_of(module, config: HardwareConfig) -> int:  # type: ignore[no-untyped-def]
    if FIDELITY[0] == "event":
        from accelsim.sim.simulate import simulate

        return simulate(module, config, functional=False).cycles
    from accelsim.estimate.analytic import estimate

    return estimate(module, config).cycles


def predict_mapping(row: Row, base: HardwareConfig) -> int:
    cfg = row_config(base, row.spad_bytes, row.acc_bytes)
    order = ORDER if ORDER != "mapping" else None
    if order == "gemmini":
        order = gemmini_order(row.layer)
    module, _ = compile_mapped(row.layer, parse_mapping(row.mapping), cfg, "nhwc", I8, order,
                               accumulate=ACCUMULATE)
    return cycles_of(module, cfg)


def recorded_tiles(row: Row) -> dict[str, int] | None:
    """The study's recorded auto tiling (R_S_Q_P_C_K_N; a matmul's 1_1_I_1_K_J_1)."""
    try:
        f = [int(x) for x in row.auto_tiling.split("_")]
    except ValueError:
        return None
    if len(f) != 7:
        return None
    d = row.layer.dims
    if row.layer.is_matmul and d["N"] == 1:
        return {"N": 1, "P": min(f[2], d["P"]), "Q": 1, "K": min(f[5], d["K"]),
                "C": min(f[4], d["C"]), "R": 1, "S": 1}
    return {"R": f[0], "S": f[1], "Q": f[2], "P": f[3], "C": f[4], "K": f[5], "N": f[6]}


def predict_auto(row: Row, base: HardwareConfig, notes: list[str]) -> int:
    tiles, order = gemmini_tiles(row.layer)
    text = auto_tiling_text(row.layer, tiles)
    if row.auto_tiling and text != row.auto_tiling:
        rec = recorded_tiles(row)
        notes.append(f"tiler {text} != recorded {row.auto_tiling}" + ("" if rec is None else
                                                                      "; recorded tiles used"))
        if rec is not None:
            tiles = rec
    module, _ = compile_tiled(base, row.layer, tiles, order, "nhwc", I8, accumulate=ACCUMULATE)
    return cycles_of(module, base)


def predict_search(row: Row, base: HardwareConfig) -> int:
    """accelsim's own tile search on the layer (the row's Gemmini)."""
    from accelsim.compile.accelerator import compile_for_accelerator
    from workloads.mapped import build_mapped

    cfg = row_config(base, row.spad_bytes, row.acc_bytes)
    module = build_mapped(row.layer, {}, layout="nhwc", dtype=I8)
    _, remarks = compile_for_accelerator(cfg, module)
    refused = [r for r in remarks if "not tiled" in r.message]
    if refused:  # the search's tiles reorder the reduction; the untiled program is no answer
        raise SearchRefused(f"our tile search's tiles were refused: {refused[0].message[:160]}")
    return cycles_of(module, cfg)


class SearchRefused(AccelsimError):
    """The tiling pass refused the tile search's choice (the row keeps no figure for it)."""


def predict(col: str, row: Row, base: HardwareConfig, notes: list[str]) -> int:
    if col == "pred_gemmini_cycle":
        return predict_mapping(row, base)
    if col == "pred_gemmini_auto_cycle":
        return predict_auto(row, base, notes)
    return predict_search(row, base)


def errors(pred: Sequence[float], meas: Sequence[float]) -> list[float]:
    return [(p - m) / m for p, m in zip(pred, meas, strict=True)]


def summary(name: str, errs: Sequence[float]) -> str:
    a = [abs(e) for e in errs]
    within = sum(1 for e in a if e <= 0.10) / len(a)
    return (f"{name}: MAPE {100 * statistics.fmean(a):.1f}%  median {100 * statistics.median(a):.1f}%  "
            f"worst {100 * max(a):.1f}%  within 10%: {100 * within:.0f}% ({len(a)} rows)")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", help="CSV in the layout of ../shared/validation/gemmini/*.csv")
    ap.add_argument("--out", required=True, help="PRED.csv to write")
    ap.add_argument("--config", default="gemmini", help="preset or TOML (default gemmini)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config key (as `accelsim run --set`)")
    ap.add_argument("--no-search", action="store_true",
                    help="skip pred_accelsim_cycle (our tile search; the slowest column)")
    ap.add_argument("--fidelity", choices=("analytic", "event"), default="analytic",
                    help="estimate every program (default) or simulate it on the event machine "
                         "(timing only; much slower on the large layers)")
    args = ap.parse_args(argv)
    FIDELITY[0] = args.fidelity
    from accelsim.config import parse_sets

    try:
        base = load_config(args.config)
        if args.set:
            base = base.with_overrides(parse_sets(args.set))
    except AccelsimError as exc:
        print(f"validate_gemmini: {exc}", file=sys.stderr)
        return 2
    with open(args.rows, newline="") as f:
        reader = csv.DictReader(f)
        fields = list(reader.fieldnames or [])
        raw = list(reader)
    t0 = time.perf_counter()
    out_rows = []
    for i, r in enumerate(raw):
        row = read_row(r)
        notes: list[str] = []
        pred: dict[str, object] = {}
        for col in COLUMNS:
            if col == "pred_accelsim_cycle" and args.no_search:
                pred[col] = ""
                continue
            try:
                pred[col] = predict(col, row, base, notes)
            except AccelsimError as exc:
                pred[col] = ""
                notes.append(f"{col}: {exc}")
        for n in notes:
            print(f"row {i + 1}: {n}", file=sys.stderr)
        clear_caches()  # each row's programs are its own: keep memory bounded
        out_rows.append({**r, **pred})
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields + [c for c in COLUMNS if c not in fields])
        w.writeheader()
        w.writerows(out_rows)
    print(f"{len(out_rows)} rows in {time.perf_counter() - t0:.0f} s -> {args.out}")
    for target, col in RTL:
        keep = [r for r in out_rows if _num(r.get(target)) and _num(r.get(col))]
        if not keep:
            continue
        meas = [_num(r[target]) for r in keep]
        print(summary(f"{col} vs {target}", errors([_num(r[col]) for r in keep], meas)))
        tl = [r for r in keep if _num(r.get("target.cycle"))]
        if tl:
            print(summary(f"  Timeloop (target.cycle) vs {target}",
                          errors([_num(r["target.cycle"]) for r in tl], [_num(r[target]) for r in tl])))
        ours = [r for r in keep if _num(r.get("pred_accelsim_cycle"))]
        if ours and target == "target.gemmini_auto_cycle":
            faster = sum(1 for r in ours if _num(r["pred_accelsim_cycle"]) < _num(r[col]))
            print(f"  our tile search beats Gemmini's tiler (both predicted) on {faster} of "
                  f"{len(ours)} rows")
    return 0


def _num(v: object) -> float:
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return x if x > 0 else 0.0


if __name__ == "__main__":
    sys.exit(main())
