"""Copies of a module for passes to mutate: an IR clone, no print -> parse."""

from __future__ import annotations

from compiler.ir.ops import ModuleOp


def clone_module(module: ModuleOp) -> ModuleOp:
    """A deep copy of `module`: new ops, blocks and values, the same types, attributes,
    names and locations."""
    copy = module.clone()
    assert isinstance(copy, ModuleOp)  # Operation.clone keeps the op's class
    return copy
