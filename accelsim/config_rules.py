"""The validation rule of a config field and the checks every config section runs in
`__post_init__`: a `ConfigError` naming the dotted key, the value and the allowed range; and
`--set KEY=VALUE` read into a dotted key and a TOML value (`parse_set`, `parse_sets`)."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Sequence
from typing import Any

from accelsim.errors import ConfigError


class Rate:
    """The rule type of a rate (bytes per cycle): an integer or a non-integer number, kept as
    an integer when it is one (`accelsim.cost.rate.as_rate`) so that 16 and 16.0 hash alike."""


# A field's rule: (python type, low, high); strings list their allowed values instead.
Rule = tuple[type, float, float] | tuple[type, tuple[str, ...]]


def check_fields(section: str, obj: Any) -> None:
    """Check every field of `obj` that its class's RULES name (floats given as ints widened)."""
    for f in dataclasses.fields(obj):
        rule = obj.RULES.get(f.name)
        if rule is None:
            continue
        key = f"{section}.{f.name}" if section else f.name
        value = getattr(obj, f.name)
        check_value(key, value, rule)
        if rule[0] is float and isinstance(value, int):
            object.__setattr__(obj, f.name, float(value))
        elif rule[0] is Rate and isinstance(value, float) and value.is_integer():
            object.__setattr__(obj, f.name, int(value))


def check_value(key: str, value: Any, rule: Rule) -> None:
    kind = rule[0]
    if kind is str:
        allowed = rule[1]
        if not isinstance(value, str) or value not in allowed:  # type: ignore[operator]
            raise ConfigError(f"{key} = {value!r}: must be one of {', '.join(map(repr, allowed))}")
        return
    lo, hi = rule[1], rule[2]  # type: ignore[misc]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        what = "an integer"
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        what = "a number"
    if not ok or not (lo <= value <= hi):
        raise ConfigError(f"{key} = {value!r}: must be {what} in [{fmt_number(lo)}, {fmt_number(hi)}]")


def fmt_number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def parse_set(text: str) -> tuple[str, Any]:
    """One `--set KEY=VALUE`: a dotted key as in the TOML and a TOML value (`128`, `2.5`,
    `true`, `"vector"`; a bare word such as `vector` is taken as that string)."""
    key, eq, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not eq or not key or not raw:
        raise ConfigError(f"--set {text!r}: expected KEY=VALUE, e.g. --set sram.capacity_kib=128")
    if not _KEY_RE.fullmatch(key):
        raise ConfigError(f"--set {text!r}: {key!r} is not a dotted config key (e.g. dram.channels)")
    try:
        return key, tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        if _BARE_RE.fullmatch(raw):
            return key, raw
        raise ConfigError(f"--set {text!r}: {raw!r} is not a TOML value (an integer, a float, "
                          "true/false or a quoted string)") from None


def parse_sets(texts: Sequence[str] | None) -> dict[str, Any]:
    """Every `--set` of a command line; a key given twice is an error."""
    out: dict[str, Any] = {}
    for text in texts or ():
        key, value = parse_set(text)
        if key in out:
            raise ConfigError(f"--set {key}: given twice ({out[key]!r}, then {value!r})")
        out[key] = value
    return out


_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*")
_BARE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
