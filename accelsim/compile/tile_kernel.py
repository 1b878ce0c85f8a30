"""The kernel one tile of a band runs, for the kernel cost model (`accelsim.cost.kernel`):
a function holding the band's body inside loops whose trip counts are its arguments.

Outlining a tiled, copied band gives a kernel with the same body, loops of the tile's trip
counts and its accesses in the fast memory; its cost depends only on those trip counts (a
rectangular kernel, `accelsim.cost.kernel_shape`). This function has the same body, trip
counts and memory spaces, and goes through the same last pass of the pipeline
(`affine-scalar-replace`), so the cost model charges it what it charges the outlined kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack

from accelsim.compile.band import Band
from accelsim.config import HardwareConfig
from accelsim.cost.kernel import CostModel, KernelCost
from compiler.ir import INDEX, Builder, IndexExpr, MemRefType
from compiler.ir.core import BlockArgument, OpResult, Value
from compiler.ir.ops import ConstantOp, FuncOp
from compiler.transforms.affine_scalar_replace import scalar_replace


class TileKernel:
    """`cost(trips)`: the kernel cost of one call over `trips` iterations of each band loop."""

    def __init__(self, band: Band, config: HardwareConfig):
        self.model = CostModel.for_config(config)
        self.func = _build(band, config.spaces.sram)
        self.nargs = len(band.refs)
        self._memo: dict[tuple[int, ...], KernelCost] = {}

    @property
    def ok(self) -> bool:
        return self.func is not None

    def cost(self, trips: Sequence[int]) -> KernelCost:
        key = tuple(trips)
        hit = self._memo.get(key)
        if hit is None:
            assert self.func is not None
            hit = self._memo[key] = self.model.kernel(self.func, (None,) * self.nargs + key)
        return hit


def _build(band: Band, fast_space: int) -> FuncOp | None:
    """The kernel function, or None when the body reads a value it cannot carry along
    (anything defined outside the band but a constant)."""
    b = Builder()
    args: dict[str, MemRefType] = {}
    for k, r in enumerate(band.refs):
        t = r.memref.type
        assert isinstance(t, MemRefType)
        args[f"m{k}"] = MemRefType(t.shape, t.element, fast_space)
    trip_args = {f"t{k}": INDEX for k in range(len(band.loops))}
    body = [op for op in band.loops[-1].body.ops if not op.IS_TERMINATOR]
    inside = {id(op) for op in band.loops[0].walk()}
    with b.func("tile_kernel", private=True, **args, **trip_args) as vals:
        mapping: dict[Value, Value] = {r.memref: vals[k] for k, r in enumerate(band.refs)}
        for op in body:  # constants the body reads from outside the band come along
            for inner in op.walk():
                for v in inner.operands:
                    if v in mapping or _defined_in(v, inside):
                        continue
                    owner = v.owner if isinstance(v, OpResult) else None
                    if not isinstance(owner, ConstantOp):
                        return None
                    mapping[v] = b.insert(owner.clone()).results[0]
        with ExitStack() as stack:
            for lp, t in zip(band.loops, vals[len(band.refs):], strict=True):
                lb = lp.constant_lower
                assert lb is not None
                loop = b.for_op(lb, IndexExpr.of(t) * lp.step + lb, lp.step)
                mapping[lp.iv] = loop.iv
                stack.enter_context(b.at_end(loop.body))
            for op in body:
                b.insert(op.clone(mapping))
    func = b.module.funcs[0]
    # its loops run `t_k` >= 1 times (a tile has at least one iteration), as the outlined
    # kernel's constant-trip loops do
    scalar_replace(func, runs=lambda loop: True)
    return func


def _defined_in(v: Value, inside: set[int]) -> bool:
    if isinstance(v, OpResult):
        return id(v.owner) in inside
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op
        return owner is not None and id(owner) in inside
    return False
