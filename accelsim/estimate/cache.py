"""Compiled analytic programs reused across structurally equal modules.

A design-space sweep estimates one compiled program on many hardware configs, each time on a
fresh clone; the tile search and the reports estimate the same module more than once. The
compiled walk (`accelsim.estimate.analytic.Program`) depends only on the program's structure, so it is
cached by `structure_key(module)`: one pass over every op recording its class, its attributes,
the result types and which earlier value each operand is. Attribute and type objects are
recorded by identity, and the entry keeps them alive, so an equal key means the very same
maps and types (clones share them): a hit is exact without comparing maps by value.
Structurally equal modules parsed separately get different keys and simply miss.

Kernels are treated as immutable once costed (as everywhere in the cost model); the control
function is compiled into closures, so later edits of the module do not reach a cached entry.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from compiler.ir.core import Block
from compiler.ir.ops import ModuleOp

_SCALARS = frozenset((int, str, bool, float, type(None)))
_MAX_ENTRIES = 32
_ENTRIES: OrderedDict[tuple[Any, ...], tuple[list[Any], Any]] = OrderedDict()


def structure_key(module: ModuleOp) -> tuple[tuple[Any, ...], list[Any]]:
    """(the key, the objects its identities refer to: keep them alive with the entry; a list
    that may hold an object more than once)."""
    out: list[Any] = []
    keep: list[Any] = []
    num: dict[Any, int] = {}
    _visit(module.body, out, keep.append, num)
    return tuple(out), keep


def _visit(block: Block, out: list[Any], keep: Callable[[Any], None], num: dict[Any, int]) -> None:
    append = out.append
    get = num.get
    append(len(block.ops))
    for a in block.args:
        num[a] = len(num)
        t = a.type
        keep(t)
        append(id(t))
    for op in block.ops:
        cls = op.__class__
        append(cls)
        for name in cls.ATTRS:
            v = getattr(op, name)
            if v.__class__ in _SCALARS:
                append(v)
            else:
                keep(v)
                append(id(v))
        operands = op.operands
        append(len(operands))
        for v in operands:
            append(get(v, -1))
        results = op.results
        append(len(results))
        for r in results:
            num[r] = len(num)
            t = r.type
            keep(t)
            append(id(t))
        blocks = op.blocks
        append(len(blocks))
        for b in blocks:
            _visit(b, out, keep, num)


def lookup(key: tuple[Any, ...]) -> Any:
    hit = _ENTRIES.get(key)
    if hit is None:
        return None
    _ENTRIES.move_to_end(key)
    return hit[1]


def store(key: tuple[Any, ...], refs: list[Any], value: Any) -> None:
    _ENTRIES[key] = (refs, value)
    while len(_ENTRIES) > _MAX_ENTRIES:
        _ENTRIES.popitem(last=False)


def clear() -> None:
    _ENTRIES.clear()
