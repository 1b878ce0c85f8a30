"""`cf.br ^bb1(%v : f32)` and `cf.cond_br %c, ^bb1, ^bb2(%v : f32)`: branches between the
blocks of a function (the structure parser reads the block labels and resolves them)."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops.cf import BranchOp
from compiler.ir.types import I1
from compiler.text.parsing.structure import OpParseFn, OpParser


def _dest(p: OpParser) -> tuple[str, list[Value]]:
    p.expect("^", "before a successor block")
    name = p.expect_kind("bare", "a block label")[1]
    vals: list[Value] = []
    if p.accept("("):
        toks = []
        while True:
            toks.append(p.tok)
            vals.append(p.parse_operand())
            if not p.accept(","):
                break
        p.expect(":", "before the successor operands' types")
        for k, (v, t) in enumerate(zip(vals, toks, strict=True)):
            if k:
                p.expect(",", "between the successor operands' types")
            p.check_type(v, t, p.parse_type())
        p.expect(")", "to close the successor operands")
    return name, vals


def parse_br(p: OpParser, loc: Location) -> Operation:
    name, vals = _dest(p)
    op = BranchOp("cf.br", vals, [(-1, len(vals))], loc=loc)
    p.branch_labels(op, [name])
    return p.insert(op)


def parse_cond_br(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    cond = p.parse_operand()
    p.check_type(cond, t, I1)
    p.expect(",", "after the branch condition")
    a, av = _dest(p)
    p.expect(",", "between the two successors")
    b, bv = _dest(p)
    op = BranchOp("cf.cond_br", [cond, *av, *bv], [(-1, len(av)), (-1, len(bv))], loc=loc)
    p.branch_labels(op, [a, b])
    return p.insert(op)


OPS: dict[str, OpParseFn] = {"cf.br": parse_br, "cf.cond_br": parse_cond_br}
