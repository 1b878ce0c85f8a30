"""The validation rule of a config field and the checks every config section runs in
`__post_init__`: a `ConfigError` naming the dotted key, the value and the allowed range."""

from __future__ import annotations

import dataclasses
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
