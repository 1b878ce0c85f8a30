"""Whether a stored point still answers its question.

A point's key names the question (workload, config name or path, hardware overrides, compiler
options, fidelity); its row also keeps the content hash of the hardware config it ran on
(`HardwareConfig.hash()`: every key after presets and overrides, canonical JSON) and the
timing model's version (`accelsim.cost.version.TIMING_MODEL_VERSION`). A row whose config
file has been edited since, or that an older timing model computed, is stale: `run_sweep`
runs it again (replacing the row) and `accelsim dse status` counts it with the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from accelsim.cost.version import TIMING_MODEL_VERSION
from accelsim.dse.spec import Point, Scalar
from accelsim.errors import ConfigError

CONFIG_CHANGED = "config content changed"
MODEL_CHANGED = "timing model changed"
MODEL_UNKNOWN = "stored before timing-model versions were kept"


class ConfigDigests:
    """The content hash of each point's resolved config, loaded once per (config, overrides)
    in this object's life (so an edited TOML is read again by the next sweep)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, tuple[tuple[str, Scalar], ...]], str | None] = {}

    def __call__(self, point: Point) -> str | None:
        key = (point.config, point.hardware)
        if key not in self._seen:
            from accelsim.config import load_config

            try:
                self._seen[key] = load_config(point.config).with_overrides(point.hw).hash()
            except ConfigError:  # the evaluation will fail and store why
                self._seen[key] = None
        return self._seen[key]


def stale_reason(stored_hash: str | None, stored_model: str | None,
                 current_hash: str | None) -> str | None:
    """Why a stored row no longer answers its point (None: it does)."""
    if not stored_model:
        return MODEL_UNKNOWN
    if stored_model != TIMING_MODEL_VERSION:
        return f"{MODEL_CHANGED} ({stored_model} -> {TIMING_MODEL_VERSION})"
    if stored_hash and current_hash and stored_hash != current_hash:
        return CONFIG_CHANGED
    return None


def stale_rows(rows: Iterable[Mapping[str, Any]], digests: ConfigDigests | None = None
               ) -> dict[str, str]:
    """key -> why, for every stale row of `rows` (rows of the store: `key`, `point_json`,
    `config_hash`, `timing_model`)."""
    import json

    digests = digests or ConfigDigests()
    out: dict[str, str] = {}
    for r in rows:
        point = Point.from_canonical(json.loads(r["point_json"]))
        why = stale_reason(r.get("config_hash"), r.get("timing_model"), digests(point))
        if why is not None:
            out[str(r["key"])] = why
    return out


def describe(reasons: Iterable[str]) -> list[str]:
    """`3 points stale: config content changed`, one line per reason."""
    counts = Counter(reasons)
    return [f"{n} point{'s' if n != 1 else ''} stale: {why}" for why, n in counts.most_common()]


__all__ = ["CONFIG_CHANGED", "MODEL_CHANGED", "MODEL_UNKNOWN", "ConfigDigests", "describe",
           "stale_reason", "stale_rows"]
