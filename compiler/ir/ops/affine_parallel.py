"""`affine.parallel`: a band of parallel loops with reductions.

    %r = affine.parallel (%i, %j) = (0, 0) to (%n, 64) step (1, 2) reduce ("addf") -> (f32) {
      ...
      affine.yield %v : f32
    }

One lower and one upper bound expression per IV (the `max`/`min` groups of upstream's syntax
are not supported), positive constant steps, one reduction kind per result. Each result is the
reduction, from the kind's identity, of the values yielded by every iteration (in no
specified order). The analyses do not model the band: the passes leave code containing one
alone (see compiler.analysis.legality.opaque_memory_op), the host runs it as nested loops.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, BlockArgument, Operation, Value
from compiler.ir.types import INDEX, Type

# reduction kind -> the arith op that combines two partial results (upstream's names)
# (upstream's `maxs`/`mins` are left out: mlir-opt-19 refuses them on integer results)
REDUCTIONS: dict[str, str] = {
    "addf": "arith.addf", "mulf": "arith.mulf", "maximumf": "arith.maximumf",
    "minimumf": "arith.minimumf", "addi": "arith.addi", "muli": "arith.muli",
    # (mlir-opt-19 also names maxs/mins/maxu/minu, but accepts them on si/ui types only)
    "andi": "arith.andi", "ori": "arith.ori",
}


class AffineParallelOp(Operation):
    """Operands: the lower-bound operands, then the upper-bound operands. Body block
    arguments: one index IV per dimension."""

    __slots__ = ("lower_map", "upper_map", "steps", "reductions")
    NAME = "affine.parallel"
    ATTRS = ("lower_map", "upper_map", "steps", "reductions")

    def __init__(self, lower_map: AffineMap, lower_operands: Sequence[Value], upper_map: AffineMap,
                 upper_operands: Sequence[Value], steps: Sequence[int],
                 reductions: Sequence[str] = (), result_types: Sequence[Type] = (),
                 loc: Location = UNKNOWN_LOC, iv_names: Sequence[str | None] = ()):
        body = Block([INDEX] * len(steps), list(iv_names))
        super().__init__(operands=[*lower_operands, *upper_operands], result_types=result_types,
                         blocks=[body], loc=loc)
        self.lower_map = lower_map
        self.upper_map = upper_map
        self.steps = tuple(steps)
        self.reductions = tuple(reductions)

    @property
    def body(self) -> Block:
        return self.blocks[0]

    @property
    def ivs(self) -> list[BlockArgument]:
        return self.body.args

    @property
    def lower_operands(self) -> list[Value]:
        return self.operands[: self.lower_map.num_inputs]

    @property
    def upper_operands(self) -> list[Value]:
        return self.operands[self.lower_map.num_inputs:]

    def bound(self, which: str, k: int) -> AffineMap:
        """The one-result map of dimension `k`'s lower or upper bound."""
        m = self.lower_map if which == "lower" else self.upper_map
        return AffineMap(m.num_dims, m.num_symbols, (m.results[k],))
