"""Which function of a module runs: the one rule of `compiler.ir.entry`, with the run's error."""

from __future__ import annotations

from accelsim.errors import InputError
from compiler.ir.entry import entry_function
from compiler.ir.ops import FuncOp, ModuleOp


def pick_func(module: ModuleOp, func: str | None) -> FuncOp:
    """The named function, else the entry function (the host backend's rule, so both run the
    same function); an `InputError` naming the functions otherwise."""
    return entry_function(module, func, InputError)
