"""Structural hash of IR: independent of printing, names and locations.

Two modules hash equal when they have the same ops, attributes, types and operand wiring, so a
DSE sweep that rebuilds the same kernel compiles it once.
"""

from __future__ import annotations

import hashlib

from compiler.ir.core import Block, Operation, Value


def structural_hash(root: Operation) -> str:
    """Hex sha256 over a canonical token stream of `root` (a module or a function)."""
    h = hashlib.sha256()
    numbering: dict[int, int] = {}

    def number(v: Value) -> int:
        key = id(v)
        if key not in numbering:
            numbering[key] = len(numbering)
        return numbering[key]

    def ref(v: Value) -> str:
        # Values defined outside `root` (e.g. hashing a function alone) get their own ids too.
        return f"%{number(v)}"

    def emit(text: str) -> None:
        h.update(text.encode())
        h.update(b"\x00")

    # Iterative, in the order a recursive visit would take (a module nested deeper than
    # Python's recursion limit still hashes): ops to visit, blocks to open, "}" to close.
    stack: list[Operation | Block | str] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            emit(item)
        elif isinstance(item, Block):
            emit("{")
            emit("args:" + ",".join(f"{ref(a)}:{a.type}" for a in item.args))
            stack.append("}")
            stack.extend(reversed(item.ops))
        else:
            op = item
            emit(op.NAME)
            emit(type(op).__qualname__)
            for attr in op.ATTRS:
                emit(f"{attr}={_attr_text(getattr(op, attr))}")
            emit("(" + ",".join(ref(v) for v in op.operands) + ")")
            emit("->" + ",".join(f"{ref(r)}:{r.type}" for r in op.results))
            emit(f"blocks={len(op.blocks)}")
            stack.extend(reversed(op.blocks))
    return h.hexdigest()


def _attr_text(value: object) -> str:
    # Frozen IR values (maps, sets, types) print canonically; floats keep every bit.
    if isinstance(value, float):
        return value.hex()
    return f"{type(value).__name__}:{value}"
