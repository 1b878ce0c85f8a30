"""The point-by-point search for a kernel access outside its memref, asked when a kernel's
interval access box leaves a buffer (the box over-approximates: only a real access is an
error)."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map, compile_set
from compiler.ir.core import Block, Operation, Value


def find_out_of_bounds(func: O.FuncOp, args: Sequence[int | None],
                       shapes: dict[Value, tuple[int, ...]], budget: list[int]
                       ) -> tuple[Operation, list[int]] | None:
    """First load/store of a memref argument (with its run-time `shapes`) that leaves its
    bounds, walking point by point; gives up (None, budget <= 0) after `budget[0]` accesses."""
    env: dict[Value, int] = {a: v for a, v in zip(func.args, args, strict=True) if v is not None}

    def walk(block: Block) -> tuple[Operation, list[int]] | None:
        for op in block.ops:
            if isinstance(op, O.AffineForOp):
                lo = max(compile_map(op.lower_map)([env[v] for v in op.lower_operands]))
                hi = min(compile_map(op.upper_map)([env[v] for v in op.upper_operands]))
                for i in range(lo, hi, op.step):
                    env[op.iv] = i
                    r = walk(op.body)
                    if r is not None:
                        return r
                    if budget[0] <= 0:
                        return None
            elif isinstance(op, O.AffineIfOp):
                c = compile_set(op.condition)([env[v] for v in op.operands])
                r = walk(op.then_block if c else op.else_block)
                if r is not None:
                    return r
            elif isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp):
                res = compile_map(op.map)([env[v] for v in op.operands])
                env[op.results[0]] = (res[0] if isinstance(op, O.AffineApplyOp)
                                      else min(res) if isinstance(op, O.AffineMinOp) else max(res))
            elif isinstance(op, O.ConstantOp) and isinstance(op.value, int):
                env[op.results[0]] = op.value
            elif isinstance(op, O.AffineLoadOp | O.AffineStoreOp):
                budget[0] -= 1
                shape = shapes.get(op.memref)
                if shape is None:
                    continue
                idx = compile_map(op.map)([env[v] for v in op.indices])
                if any(not 0 <= i < n for i, n in zip(idx, shape)):
                    return op, list(idx)
        return None

    return walk(func.body)
