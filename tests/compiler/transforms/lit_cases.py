"""Reading one function of a lit test file as a module of its own, for the differential tests
that run a lit case's function on the host."""

from __future__ import annotations

import pathlib

from compiler.ir.ops import ModuleOp
from compiler.text import parse_file


def only_func(path: pathlib.Path, func: str) -> ModuleOp:
    """The module of `path` holding only @func (the others may call declared functions, which
    the host backend cannot run)."""
    m = parse_file(str(path))
    for f in m.funcs:
        if f.sym_name != func:
            f.erase()
    return m
