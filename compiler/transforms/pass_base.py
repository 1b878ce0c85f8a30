"""The pass interface: a name equal to the mlir-opt flag, typed options, `run`.

Options are a frozen dataclass per pass; field `tile_sizes` is spelled `tile-sizes` on the
command line, exactly as mlir-opt spells it (`--affine-loop-tile="tile-sizes=32,32 separate"`).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import ClassVar, TypeVar

from compiler.diagnostics import Location, OptionError, Remark
from compiler.ir.ops import ModuleOp

OptionsT = TypeVar("OptionsT")


@dataclasses.dataclass(frozen=True)
class NoOptions:
    pass


class Pass:
    """Subclasses set `name`, `Options` (a frozen dataclass; annotate `options: Options`), and
    implement `run`. `options` is the Options instance, or its mlir-opt spelling, or None for
    the defaults; `overrides` replace single fields."""

    name: ClassVar[str] = "<pass>"
    summary: ClassVar[str] = ""
    Options: ClassVar[type] = NoOptions
    options: object

    def __init__(self, options: object = None, **overrides: object):
        if options is None or isinstance(options, str):
            options = parse_options(self.Options, options or "", self.name)
        if overrides:
            options = dataclasses.replace(options, **overrides)
        self.options = options
        self.remarks: list[Remark] = []

    def remark(self, loc: Location, message: str) -> None:
        self.remarks.append(Remark(self.name, loc, message))

    def run(self, module: ModuleOp) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{self.name}({format_options(self.options)})"


def _convert(raw: str | None, ftype: object, key: str, pass_name: str) -> object:
    origin = typing.get_origin(ftype)
    args = typing.get_args(ftype)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        inner = [a for a in args if a is not type(None)]
        if raw is None or raw == "":
            return None
        return _convert(raw, inner[0], key, pass_name)
    if ftype is bool:
        if raw is None or raw in ("true", "1"):
            return True
        if raw in ("false", "0"):
            return False
        raise OptionError(f"{pass_name}: option '{key}' expects true or false, got '{raw}'")
    if raw is None:
        raise OptionError(f"{pass_name}: option '{key}' needs a value ('{key}=...')")
    try:
        if ftype is int:
            return int(raw)
        if ftype is float:
            return float(raw)
        if ftype is str:
            return raw
        if origin is tuple:
            return tuple(int(x) for x in raw.split(",") if x != "")
    except ValueError:
        raise OptionError(f"{pass_name}: option '{key}' expects {_describe(ftype)}, got '{raw}'")
    raise OptionError(f"{pass_name}: option '{key}' has an unsupported type")


def _describe(ftype: object) -> str:
    if ftype is int:
        return "an integer"
    if ftype is float:
        return "a number"
    if typing.get_origin(ftype) is tuple:
        return "a comma-separated list of integers"
    return str(ftype)


def parse_options(cls: type[OptionsT], text: str, pass_name: str) -> OptionsT:
    """`"tile-sizes=32,32 separate"` -> Options(tile_sizes=(32, 32), separate=True)."""
    hints = typing.get_type_hints(cls)
    fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(cls)}
    values: dict[str, object] = {}
    for item in text.replace("{", " ").replace("}", " ").split():
        key, sep, raw = item.partition("=")
        if key not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise OptionError(f"{pass_name}: unknown option '{key}' (known: {known})")
        f = fields[key]
        values[f.name] = _convert(raw if sep else None, hints[f.name], key, pass_name)
    try:
        return cls(**values)
    except (ValueError, TypeError) as exc:
        raise OptionError(f"{pass_name}: {exc}") from None


def format_options(opts: object) -> str:
    parts = []
    for f in dataclasses.fields(opts):
        v = getattr(opts, f.name)
        key = f.name.replace("_", "-")
        if isinstance(v, bool):
            if v:
                parts.append(key)
        elif isinstance(v, tuple):
            parts.append(f"{key}={','.join(map(str, v))}")
        elif v is not None:
            parts.append(f"{key}={v}")
    return " ".join(parts)
