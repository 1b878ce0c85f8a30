"""`accelsim dse`: run sweeps, export results, extract Pareto fronts, autotune one workload.

    accelsim dse run SPEC.toml [--db results.sqlite] [--workers N] [--scheduler tcp://HOST:PORT]
                               [--time-limit SECONDS] [--retry-failed]
    accelsim dse export DB (--csv OUT | --parquet OUT)
    accelsim dse pareto DB --objectives cycles,energy_pj [--plot out.png]
    accelsim dse tune WORKLOAD --config NAME
    accelsim dse status DB
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from accelsim.errors import ConfigError


def register(sub: Any) -> None:
    p = sub.add_parser("dse", allow_abbrev=False,
                       help="design-space exploration: sweeps, results, Pareto fronts, tuning",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    dsub = p.add_subparsers(dest="dse_command", required=True)

    r = dsub.add_parser("run", allow_abbrev=False,
                        help="run a sweep spec (TOML); resumes, skipping stored points")
    r.add_argument("spec", help="sweep spec, a TOML file")
    r.add_argument("--db", default="results.sqlite", help="SQLite results file (default: %(default)s)")
    r.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: one per core; 0 = in this process)")
    r.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    r.add_argument("--retry-failed", action="store_true",
                   help="re-run points stored with an error or a timeout (never ok or infeasible ones)")
    r.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="each point's time limit, instead of the spec's time_limit_s (see "
                        "examples/dse/README.md); a point still running then is stored as timeout")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                   help="fix one config key for every point, dotted as in the TOML (repeatable)")
    r.add_argument("--dry-run", action="store_true", help="validate the spec and count its points only")
    r.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    r.add_argument("--evaluator", default=None, metavar="MODULE:FUNCTION",
                   help="evaluate points with this function instead of the simulator")
    r.set_defaults(handler=cmd_run)

    e = dsub.add_parser("export", allow_abbrev=False, help="export a results database to CSV and/or Parquet")
    e.add_argument("db")
    e.add_argument("--csv", default=None, metavar="OUT")
    e.add_argument("--parquet", default=None, metavar="OUT")
    e.set_defaults(handler=cmd_export)

    q = dsub.add_parser("pareto", allow_abbrev=False,
                        help="print (and plot) the Pareto front of 2 or 3 objectives")
    q.add_argument("db")
    q.add_argument("--objectives", default="cycles,energy_pj",
                   help="comma-separated columns to minimize (default: %(default)s)")
    q.add_argument("--plot", default=None, metavar="OUT", help="write the Pareto plot (PNG/SVG/PDF)")
    q.add_argument("--workload", default=None, help="only rows of this workload name or spec")
    q.add_argument("--fidelity", default=None, choices=("analytic", "event", "both"),
                   help="only rows of this fidelity")
    q.set_defaults(handler=cmd_pareto)

    st = dsub.add_parser("status", allow_abbrev=False,
                         help="what a results database holds: counts, failures by message")
    st.add_argument("db")
    st.set_defaults(handler=cmd_status)

    t = dsub.add_parser("tune", allow_abbrev=False,
                        help="search tile sizes and stages for one workload and config")
    t.add_argument("workload", help="workload spec, e.g. gemm:M=256,N=256,K=256")
    t.add_argument("--config", default="default", help="hardware preset or TOML path (default: %(default)s)")
    t.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                   help="fix one config key for every point, dotted as in the TOML (repeatable)")
    t.add_argument("--db", default=None, help="also keep every evaluated point in this results file")
    t.add_argument("--top", type=int, default=4, help="event-fidelity runs on the best analytic candidates")
    t.add_argument("--stages", default="1,2,3", help="pipeline stages to try (default: %(default)s)")
    t.add_argument("--max-candidates", type=int, default=48,
                   help="tile-size candidates (default: %(default)s)")
    t.add_argument("--workers", type=int, default=None, help="local worker processes")
    t.add_argument("--scheduler", default=None, help="Dask scheduler address")
    t.add_argument("--no-progress", action="store_true")
    t.set_defaults(handler=cmd_tune)


def _evaluator(text: str | None) -> Any:
    if text is None:
        return None
    mod, sep, fn = text.partition(":")
    if not sep or not mod or not fn:
        raise ConfigError(f"--evaluator: expected MODULE:FUNCTION, found '{text}'")
    try:
        func = getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"--evaluator: cannot load '{text}': {exc}")
    if not callable(func):
        raise ConfigError(f"--evaluator: '{text}' is not a function")
    return func


def cmd_run(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from accelsim.dse import load_spec, run_sweep
    from accelsim.dse.time_limit import check_time_limit

    sweep = load_spec(args.spec)  # every spec error surfaces here, before any point runs
    if args.set:
        sweep = _with_sets(sweep, args.set)
    limit = sweep.time_limit_s
    if args.time_limit is not None:
        try:
            limit = check_time_limit(args.time_limit, "--time-limit")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    points = sweep.points()
    if args.dry_run:
        print(f"{args.spec}: {len(points)} points ({sweep.size} before constraints), "
              f"time limit {limit:g} s per point")
        return 0
    evaluate = _evaluator(args.evaluator)
    if args.evaluator is None and any(w.startswith("network:") for w in sweep.workloads):
        from accelsim.network.sweep import evaluate  # network points: network totals

    summary = run_sweep(sweep, args.db, evaluate=evaluate, workers=args.workers,
                        scheduler=args.scheduler, progress=not args.no_progress,
                        retry_failed=args.retry_failed, time_limit_s=limit)
    print(f"{args.db}: {summary}", file=sys.stderr)
    return 0


def _with_sets(sweep: Any, texts: Sequence[str]) -> Any:
    """The sweep with each `--set KEY=VALUE` as a one-value hardware axis (validated by the
    sweep against every config it names, as the spec's own keys are)."""
    import dataclasses

    from accelsim.config import parse_sets

    hardware = dict(sweep.hardware)
    for key, value in parse_sets(texts).items():
        if key in hardware:
            raise ConfigError(f"--set {key}: the spec already sweeps hardware.{key}; "
                              "drop one of the two")
        hardware[key] = [value]
    try:
        return dataclasses.replace(sweep, hardware=hardware)
    except ConfigError as exc:
        raise ConfigError(f"--set: {exc}") from None


def cmd_export(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from accelsim.dse import load

    if not args.csv and not args.parquet:
        raise ConfigError("dse export: give --csv OUT and/or --parquet OUT")
    df = load(args.db)
    if args.csv:
        df.to_csv(args.csv, index=False)
    if args.parquet:
        try:
            df.to_parquet(args.parquet, index=False)
        except ImportError as exc:
            raise ConfigError(f"--parquet needs pyarrow (pip install 'accelsim[dse]'): {exc}")
    print(f"{args.db}: exported {len(df)} rows", file=sys.stderr)
    return 0


def cmd_pareto(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from accelsim.dse import load, pareto_front

    objectives = [o.strip() for o in args.objectives.split(",") if o.strip()]
    df = load(args.db)
    if args.workload:
        if ":" in args.workload:  # a full spec: compare canonical forms
            import workloads

            df = df[df["workload"] == workloads.get(args.workload).spec]
        else:  # a name: every size of it
            df = df[df["workload"].str.partition(":")[0] == args.workload]
    if args.fidelity:
        df = df[df["fidelity"] == args.fidelity]
    front = pareto_front(df, objectives)
    # the inputs that vary in the sweep, then the objectives
    varying = [c for c in front.columns if c not in objectives and _is_input(c)
               and df[c].nunique(dropna=False) > 1]
    if "workload" not in varying:
        varying.insert(0, "workload")
    with _pandas_wide():
        print(front[[*varying, *objectives]].to_string(index=False))
    ok = int((df["status"] == "ok").sum()) if "status" in df.columns else len(df)
    print(f"{len(front)} of {ok} points on the front of {', '.join(objectives)}", file=sys.stderr)
    if args.plot:
        from plots.pareto import plot_pareto

        plot_pareto(df, objectives, args.plot,
                    label_columns=[c for c in varying if c not in ("workload",)])
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _is_input(column: str) -> bool:
    from accelsim.dse.spec import COMPILER_OPTIONS

    return "." in column or column in COMPILER_OPTIONS or column in ("workload", "config", "fidelity")


class _pandas_wide:
    def __enter__(self) -> None:
        import pandas as pd

        self._ctx = pd.option_context("display.width", 200, "display.max_columns", 50)
        self._ctx.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)


def cmd_tune(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from accelsim.dse.autotune import autotune

    try:
        stages = tuple(int(s) for s in args.stages.split(",") if s.strip())
    except ValueError:
        raise ConfigError(f"--stages: expected comma-separated integers, found '{args.stages}'")
    from accelsim.config import load_config, parse_sets

    hardware = parse_sets(args.set)
    try:
        load_config(args.config, hardware)  # a bad key or value is refused before any point runs
    except ConfigError as exc:
        raise ConfigError(f"--set: {exc}" if hardware else str(exc)) from None
    result = autotune(args.workload, args.config, hardware=hardware, stages=stages, top_k=args.top,
                      max_candidates=args.max_candidates, db=args.db, workers=args.workers,
                      scheduler=args.scheduler, progress=not args.no_progress)
    print(result.summary())
    return 0


def cmd_status(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from accelsim.dse import load

    df = load(args.db)
    ok = df[df["status"] == "ok"]
    bad = df[df["status"] == "error"]
    infeasible = df[df["status"] == "infeasible"]
    late = df[df["status"] == "timeout"]
    line = f"{args.db}: {len(df)} points, {len(ok)} ok, {len(bad)} failed"
    for n, what in ((len(infeasible), "infeasible"), (len(late), "timed out")):
        if n:
            line += f", {n} {what}"
    print(line)
    from accelsim.dse.staleness import describe, stale_rows
    from accelsim.dse.store import ResultStore

    with ResultStore(args.db) as store:
        stale = stale_rows(store.identities().values())
    for text in describe(stale.values()):
        print(f"{text} (run again by the next `accelsim dse run`)")
    for col in ("workload", "config", "fidelity"):
        if col in df.columns and df[col].nunique() > 1:
            counts = df.groupby(col)["status"].value_counts().unstack(fill_value=0)
            print(f"by {col}:")
            for name, row in counts.iterrows():
                print(f"  {name}: " + ", ".join(f"{int(row[c])} {c}" for c in counts.columns))
    for rows, title in ((bad, "failures by message"), (infeasible, "infeasible points by reason"),
                        (late, "timeouts by limit")):
        if len(rows):
            print(f"{title} (first line):")
            first = rows["error"].fillna("").str.split("\n").str[0]
            for msg, n in first.value_counts().items():
                print(f"  {n:5d}  {msg}")
    versions = sorted(df["accelsim_version"].dropna().unique())
    if versions:
        print(f"accelsim versions: {', '.join(versions)}")
    return 0
