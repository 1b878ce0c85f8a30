"""`cf.br` / `cf.cond_br`: the branches of a function of several blocks (unstructured control
flow, as upstream's lowerings leave it). Kept as written and printed back; a function that
has them is left alone by every pass (a remark says so) and refused by the host and the
simulator, like the ops of `opaque.py`.

A branch names its successors by their index among the function's blocks (`dests`: one
(block index, operand count) pair per successor), so a cloned function keeps its edges.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.core import Value
from compiler.ir.ops.opaque import OpaqueOp


class BranchOp(OpaqueOp):
    __slots__ = ("dests",)
    ATTRS = ("op_name", "attr_text", "prop_text", "dests")
    IS_TERMINATOR = True

    def __init__(self, op_name: str, operands: Sequence[Value], dests: Sequence[tuple[int, int]],
                 loc: Location = UNKNOWN_LOC):
        super().__init__(op_name, operands, [], loc=loc)
        self.dests = list(dests)

    @property
    def condition(self) -> Value | None:
        return self.operands[0] if self.op_name == "cf.cond_br" else None

    def dest_operands(self) -> list[list[Value]]:
        """The operands passed to each successor, in order."""
        k = 1 if self.op_name == "cf.cond_br" else 0
        out = []
        for _, n in self.dests:
            out.append(self.operands[k:k + n])
            k += n
        return out


BRANCHES = ("cf.br", "cf.cond_br")
