"""Rates with units in a hardware file: `[dram] bandwidth = "25.6 GB/s"` (per channel, as
`bandwidth_bytes_per_cycle`), converted at load to bytes per accelerator cycle with the
config's clock (`clock_ghz`, which the file must then give: a rate per second means nothing
without it). `"12.8 B/cycle"` or a bare number is already bytes per cycle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from accelsim.config_rules import Rule, check_value
from accelsim.cost.rate import as_rate
from accelsim.errors import ConfigError

# unit -> (bytes per unit, per second?)
UNITS: dict[str, tuple[float, bool]] = {
    "B/cycle": (1.0, False),
    "B/s": (1.0, True), "kB/s": (1e3, True), "MB/s": (1e6, True), "GB/s": (1e9, True),
    "TB/s": (1e12, True), "KiB/s": (2.0**10, True), "MiB/s": (2.0**20, True),
    "GiB/s": (2.0**30, True), "TiB/s": (2.0**40, True),
}
_RATE_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z/]+)\s*")

# the keys that take a rate with a unit, and the bytes-per-cycle key each one sets
RATE_KEYS = {"dram.bandwidth": "dram.bandwidth_bytes_per_cycle"}


def bytes_per_cycle(key: str, value: Any, clock_ghz: float | None) -> int | float:
    """`value` (a number: bytes per cycle; a string: a number and a unit of `UNITS`) in
    bytes per accelerator cycle; `clock_ghz` None: the config gives no clock (an error for a
    rate per second, naming the key to set)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return as_rate(value)
    m = _RATE_RE.fullmatch(value) if isinstance(value, str) else None
    if m is None or m.group(2) not in UNITS:
        raise ConfigError(f"{key} = {value!r}: expected a rate such as \"25.6 GB/s\" or "
                          f"\"16 B/cycle\" (units: {', '.join(UNITS)}) or a number of bytes per "
                          "cycle")
    number, unit = float(m.group(1)), m.group(2)
    scale, per_second = UNITS[unit]
    if not per_second:
        return as_rate(number * scale)
    if clock_ghz is None:
        raise ConfigError(f"{key} = {value!r}: a rate per second needs the accelerator's clock; "
                          "set clock_ghz (GHz) in the file, or give bytes per cycle")
    return as_rate(round(number * scale / (clock_ghz * 1e9), 9))


def set_rate(table: dict[str, Any], key: str, value: Any) -> bool:
    """`--set` of a rate key or of the bytes-per-cycle key it sets: the other one removed from
    the section's `table` (the last given wins); True when `key` was the rate key (written)."""
    for rate, target in RATE_KEYS.items():
        if key in (rate, target):
            table.pop((target if key == rate else rate).partition(".")[2], None)
            if key == rate:
                table[rate.partition(".")[2]] = value
                return True
    return False


def resolve_rates(data: Mapping[str, Any], rules: Mapping[str, Rule]) -> dict[str, Any]:
    """The TOML shape with every rate key (`RATE_KEYS`) replaced by its bytes-per-cycle key,
    checked against its rule (`rules`, by the dotted bytes-per-cycle key); both given is an
    error."""
    out = dict(data)
    for key, target in RATE_KEYS.items():
        sec, _, fld = key.partition(".")
        table = out.get(sec)
        if not isinstance(table, Mapping) or fld not in table:
            continue
        _, _, tfld = target.partition(".")
        if tfld in table:
            raise ConfigError(f"{key} = {table[fld]!r} and {target} = {table[tfld]!r}: give one "
                              "of them")
        clock = out.get("clock_ghz")
        table = {k: v for k, v in table.items() if k != fld}
        rate = bytes_per_cycle(key, data[sec][fld], clock if isinstance(clock, int | float) else None)
        try:
            check_value(target, rate, rules[target])
        except ConfigError as exc:
            raise ConfigError(f"{key} = {data[sec][fld]!r} is {rate:g} bytes per cycle; {exc}") \
                from None
        table[tfld] = rate
        out[sec] = table
    return out

