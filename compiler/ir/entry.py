"""The one entry-function rule, shared by the host backend, the simulator and the CLI.

The named function, else the only defined function, else the only one nobody calls, else
the only public one of those. Every path runs the same function of a module.
"""

from __future__ import annotations

from compiler.diagnostics import AccelsimError
from compiler.ir.ops import CallOp, FuncOp, ModuleOp


def entry_function(module: ModuleOp, name: str | None = None,
                   error: type[AccelsimError] = AccelsimError) -> FuncOp:
    """The function to run; raises `error` naming the functions when there is none or several."""
    defined = [f for f in module.funcs if not f.is_declaration]
    if name is not None:
        f = module.lookup(name)
        if f is None or f.is_declaration:
            known = ", ".join("@" + g.sym_name for g in defined) or "none"
            raise error(f"no function @{name} in the module (functions: {known})")
        return f
    if len(defined) == 1:
        return defined[0]
    if not defined:
        raise error("the module defines no function to run")
    called = {op.callee for op in module.walk() if isinstance(op, CallOp)}
    roots = [f for f in defined if f.sym_name not in called]
    for candidates in (roots, [f for f in roots if not f.private]):
        if len(candidates) == 1:
            return candidates[0]
    names = ", ".join("@" + f.sym_name for f in defined) or "none"
    raise error(f"the module has several entry functions ({names}); name one with func=")
