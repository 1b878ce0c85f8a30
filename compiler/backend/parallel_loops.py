"""`affine.parallel` as the host runs it: nested `affine.for` loops, outer IV first, each
reduction carried through iter_args from its identity and combined in iteration order (an
order affine.parallel leaves unspecified). Done on a clone before lowering."""

from __future__ import annotations

import itertools
import math

from compiler.ir.core import Value
from compiler.ir.ops import (
    AddFOp,
    AddIOp,
    AffineForOp,
    AffineParallelOp,
    AffineYieldOp,
    BinaryOp,
    ConstantOp,
    MaximumFOp,
    MinimumFOp,
    ModuleOp,
    MulFOp,
    MulIOp,
)
from compiler.ir.ops.arith import AndIOp, OrIOp
from compiler.ir.types import ElementType

_COMBINE: dict[str, tuple[type[BinaryOp], float]] = {
    "addf": (AddFOp, 0.0), "mulf": (MulFOp, 1.0), "maximumf": (MaximumFOp, -math.inf),
    "minimumf": (MinimumFOp, math.inf), "addi": (AddIOp, 0), "muli": (MulIOp, 1),
    "andi": (AndIOp, -1), "ori": (OrIOp, 0),  # -1: all ones, read signed
}


def has_parallel(module: ModuleOp) -> bool:
    return any(isinstance(op, AffineParallelOp) for op in module.walk())


def parallel_as_loops(module: ModuleOp) -> ModuleOp:
    """`module` itself when it has no affine.parallel, else a clone with each one rewritten."""
    if not has_parallel(module):
        return module
    clone = module.clone()
    assert isinstance(clone, ModuleOp)
    for op in [o for o in clone.walk() if isinstance(o, AffineParallelOp)]:
        _rewrite(op)
    return clone


def _rewrite(par: AffineParallelOp) -> None:
    block = par.parent_block
    assert block is not None
    accs: list[Value] = []
    for kind, r in zip(par.reductions, par.results, strict=True):
        assert isinstance(r.type, ElementType)
        init = ConstantOp(_COMBINE[kind][1], r.type, loc=par.loc)
        block.insert_before(par, init)
        accs.append(init.result)
    loops: list[AffineForOp] = []
    for k, step in enumerate(par.steps):
        loop = AffineForOp(par.bound("lower", k), par.lower_operands, par.bound("upper", k),
                           par.upper_operands, step, accs, loc=par.loc)
        if loops:
            loops[-1].body.append(loop)
        else:
            block.insert_before(par, loop)
        accs = list(loop.region_iter_args)
        loops.append(loop)
    inner = loops[-1]
    body_ops = list(par.body.ops)
    yielded = body_ops[-1]
    assert isinstance(yielded, AffineYieldOp)
    for op in body_ops[:-1]:
        inner.body.append(op)
    for iv, loop in zip(par.ivs, loops, strict=True):
        for op in inner.body.ops:
            op.replace_uses_of(iv, loop.iv)
    combined: list[Value] = []
    for kind, acc, v in zip(par.reductions, accs, yielded.operands, strict=True):
        c = _COMBINE[kind][0](acc, v, loc=yielded.loc)
        inner.body.append(c)
        combined.append(c.result)
    inner.body.append(AffineYieldOp(combined, loc=yielded.loc))
    for outer, nested in itertools.pairwise(loops):
        outer.body.append(AffineYieldOp(list(nested.results), loc=par.loc))
    for old, new in zip(par.results, loops[0].results, strict=True):
        for op in block.ops:  # (a result is used in its block only, nested regions included)
            op.replace_uses_of(old, new)
    par.erase()
