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

    def visit_block(block: Block) -> None:
        emit("{")
        emit("args:" + ",".join(f"{ref(a)}:{a.type}" for a in block.args))
        for op in block.ops:
            visit_op(op)
        emit("}")

    def visit_op(op: Operation) -> None:
        emit(op.NAME)
        emit(type(op).__qualname__)
        for attr in op.ATTRS:
            emit(f"{attr}={_attr_text(getattr(op, attr))}")
        emit("(" + ",".join(ref(v) for v in op.operands) + ")")
        emit("->" + ",".join(f"{ref(r)}:{r.type}" for r in op.results))
        emit(f"blocks={len(op.blocks)}")
        for b in op.blocks:
            visit_block(b)

    visit_op(root)
    return h.hexdigest()


def _attr_text(value: object) -> str:
    # Frozen IR values (maps, sets, types) print canonically; floats keep every bit.
    if isinstance(value, float):
        return value.hex()
    return f"{type(value).__name__}:{value}"
