"""The result store: one SQLite file (WAL), one row per design point.

Why SQLite: a single file a user can copy, query with any tool, and open while a sweep is still
writing (WAL lets readers in). Only the sweep's parent process writes; each finished point is
its own committed transaction, so a killed run loses no completed point, and the point's key
(a hash of the canonical point) is the primary key, so a point is stored at most once and a
restarted sweep skips what is already there.

Columns: fixed bookkeeping columns, then one column per input parameter and one per report
figure, added on first sight (`ALTER TABLE ... ADD COLUMN`), named exactly as the parameter or
figure (`"sram.capacity_kib"`, `cycles`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelsim.dse.spec import Point, Scalar
from accelsim.errors import ConfigError

SCHEMA_VERSION = "1"
TABLE = "points"
FIXED_COLUMNS = ("key", "status", "error", "accelsim_version", "config_hash", "wall_s", "cpu_s", "worker",
                 "finished_at", "point_json", "timing_model")
BOOL_COLUMNS = ("functional", "copy_out_pipelining", "cross_tile_prefetch", "data_copy", "outputs_match",
                "confirmed")
STATUS_OK = "ok"
STATUS_ERROR = "error"  # the evaluation raised; `error` holds the exception
STATUS_INFEASIBLE = "infeasible"  # the point's buffers cannot fit; `error` says which, never simulated
STATUS_TIMEOUT = "timeout"  # the point ran past the sweep's time_limit_s; `error` gives the limit
STATUSES = (STATUS_OK, STATUS_ERROR, STATUS_INFEASIBLE, STATUS_TIMEOUT)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What evaluating one point produced: its figures, or the error that stopped it."""

    point: Point
    status: str
    figures: Mapping[str, Scalar | None] = field(default_factory=dict)
    error: str | None = None
    accelsim_version: str = ""
    wall_s: float = 0.0
    cpu_s: float = 0.0  # CPU time of the worker process for this point (load-independent cost)
    worker: str = ""
    timing_model: str = ""  # accelsim.cost.version.TIMING_MODEL_VERSION of the evaluating process

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_value(v: Any) -> Any:
    if v is None or isinstance(v, int | float | str):
        return v  # bool is an int: stored as 0/1
    if hasattr(v, "item"):  # numpy scalars
        return v.item()
    if isinstance(v, list | tuple | dict):
        return json.dumps(v, sort_keys=True)
    return str(v)


class ResultStore:
    """Open (or create) a results database. Use as a context manager or call `close()`."""

    def __init__(self, path: str | Path, timeout_s: float = 30.0):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL is durable against a killed process in WAL mode (not against power loss).
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._create()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{self.path}: not a usable results database: {exc}")
        self._columns = self._read_columns()

    # -- schema -----------------------------------------------------------------------------

    def _create(self) -> None:
        with self._tx():
            self.conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} ("
                "key TEXT PRIMARY KEY, status TEXT NOT NULL, error TEXT, accelsim_version TEXT, "
                "config_hash TEXT, wall_s REAL, cpu_s REAL, worker TEXT, finished_at REAL, "
                "point_json TEXT NOT NULL)")
            self.conn.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            self.conn.execute("CREATE TABLE IF NOT EXISTS sweeps (id INTEGER PRIMARY KEY, name TEXT, "
                              "started_at REAL, spec_json TEXT)")
            row = self.conn.execute("SELECT value FROM meta WHERE name='schema_version'").fetchone()
            if row is None:
                self.conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise ConfigError(f"{self.path}: results schema version {row[0]}, expected {SCHEMA_VERSION}")

    def _read_columns(self) -> list[str]:
        return [r[1] for r in self.conn.execute(f"PRAGMA table_info({TABLE})")]

    def _ensure_columns(self, names: Iterable[str]) -> None:
        missing = [n for n in names if n not in self._columns]
        if not missing:
            return
        self._columns = self._read_columns()  # another writer may have added some
        for n in missing:
            if n in self._columns:
                continue
            try:
                self.conn.execute(f"ALTER TABLE {TABLE} ADD COLUMN {_quote(n)}")
            except sqlite3.OperationalError as exc:
                if "duplicate column" not in str(exc):
                    raise
            self._columns.append(n)

    class _Tx:
        def __init__(self, conn: sqlite3.Connection):
            self.conn = conn

        def __enter__(self) -> None:
            self.conn.execute("BEGIN IMMEDIATE")

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")

    def _tx(self) -> ResultStore._Tx:
        return ResultStore._Tx(self.conn)

    # -- writing ----------------------------------------------------------------------------

    def record_sweep(self, name: str, spec: Mapping[str, Any]) -> None:
        with self._tx():
            self.conn.execute("INSERT INTO sweeps (name, started_at, spec_json) VALUES (?, ?, ?)",
                              (name, time.time(), json.dumps(spec, sort_keys=True)))

    def put(self, outcome: Outcome, config_hash: str | None = None) -> None:
        """Store one point's row and commit it before returning (replaces a row of the same key).
        `config_hash`: the content hash of the point's config, when its figures do not carry
        one (a failed point), so an edit of the config makes the row stale
        (`accelsim.dse.staleness`)."""
        from accelsim.cost.version import TIMING_MODEL_VERSION

        params = outcome.point.params()
        figures = dict(outcome.figures)
        config_hash = figures.pop("config_hash", None) or config_hash
        clash = (set(params) & set(figures)) | (set(FIXED_COLUMNS) & (set(params) | set(figures)))
        if clash:
            raise ConfigError(f"result column name(s) {sorted(clash)} used both as a parameter and a figure")
        row: dict[str, Any] = {
            "key": outcome.point.key,
            "status": outcome.status,
            "error": outcome.error,
            "accelsim_version": outcome.accelsim_version,
            "config_hash": config_hash,
            "wall_s": outcome.wall_s,
            "cpu_s": outcome.cpu_s,
            "worker": outcome.worker,
            "finished_at": time.time(),
            "point_json": json.dumps(outcome.point.canonical(), sort_keys=True),
            "timing_model": outcome.timing_model or TIMING_MODEL_VERSION,
        }
        row.update(params)
        row.update(figures)
        with self._tx():
            self._ensure_columns(row)
            cols = ", ".join(_quote(c) for c in row)
            marks = ", ".join("?" for _ in row)
            self.conn.execute(f"INSERT OR REPLACE INTO {TABLE} ({cols}) VALUES ({marks})",
                              [_sql_value(v) for v in row.values()])

    # -- reading ----------------------------------------------------------------------------

    def keys(self, status: str | None = None) -> set[str]:
        if status is None:
            return {r[0] for r in self.conn.execute(f"SELECT key FROM {TABLE}")}
        return {r[0] for r in self.conn.execute(f"SELECT key FROM {TABLE} WHERE status=?", (status,))}

    def identities(self) -> dict[str, dict[str, Any]]:
        """key -> the row's status, config hash, timing model and point (what decides whether
        it still answers its point: `accelsim.dse.staleness`)."""
        self._columns = self._read_columns()
        model = "timing_model" if "timing_model" in self._columns else "NULL"
        cur = self.conn.execute(f"SELECT key, status, config_hash, {model}, point_json FROM {TABLE}")
        return {r[0]: {"key": r[0], "status": r[1], "config_hash": r[2], "timing_model": r[3],
                       "point_json": r[4]} for r in cur.fetchall()}

    def count(self) -> int:
        return int(self.conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

    def rows(self) -> list[dict[str, Any]]:
        cur = self.conn.execute(f"SELECT * FROM {TABLE} ORDER BY rowid")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def points(self) -> list[Point]:
        return [Point.from_canonical(json.loads(r[0]))
                for r in self.conn.execute(f"SELECT point_json FROM {TABLE} ORDER BY rowid")]

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def load(path: str | Path) -> Any:
    """The results as a pandas DataFrame, one row per point, parameters and figures as columns."""
    import pandas as pd

    if not Path(path).exists():
        raise ConfigError(f"{path}: no such results database")
    with ResultStore(path) as store:
        cur = store.conn.execute(f"SELECT * FROM {TABLE} ORDER BY rowid")
        names = [d[0] for d in cur.description]
        df = pd.DataFrame.from_records(cur.fetchall(), columns=names)
    # SQLite has no booleans: give the boolean parameters and figures their dtype back
    for col in BOOL_COLUMNS:
        if col in df.columns and df[col].dropna().isin([0, 1]).all():
            df[col] = df[col].astype("boolean")
    return df.drop(columns=["point_json"])
