"""`affine.parallel (%i, %j) = (lb0, lb1) to (ub0, ub1) step (s0, s1) reduce ("addf") -> (f32)`
(compiler.ir.ops.affine_parallel); bounds are written like index lists (`%n + 1`,
`symbol(%n)`), one expression per IV."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Operation, Value
from compiler.ir.ops import REDUCTIONS, AffineParallelOp
from compiler.ir.types import Type
from compiler.text.lexer import Token
from compiler.text.parsing.structure import OpParseFn, OpParser


def _bounds(p: OpParser, n: int, what: str) -> tuple[AffineMap, list[Value]]:
    open_ = p.expect("(", f"to open the {what} bounds")
    if p.at("max") or p.at("min"):
        raise p.error(f"'{p.text()}' groups in affine.parallel bounds are not supported (one "
                      "expression per dimension)")
    m, operands, _ = p.parse_index_list_body(")")
    if m.num_results != n:
        raise p.error(f"affine.parallel has {n} induction variable(s) but {m.num_results} {what} "
                      f"bound(s)", open_)
    return m, operands


def parse_parallel(p: OpParser, loc: Location) -> Operation:
    p.expect("(", "to open the induction variables")
    ivs: list[Token] = [p.parse_value_def()]
    while p.accept(","):
        ivs.append(p.parse_value_def())
    p.expect(")", "to close the induction variables")
    p.expect("=", "after the induction variables")
    lm, lops = _bounds(p, len(ivs), "lower")
    p.expect("to", "between the bounds")
    um, uops = _bounds(p, len(ivs), "upper")
    steps = [1] * len(ivs)
    if p.accept("step"):
        p.expect("(", "after 'step'")
        steps = []
        while True:
            t = p.tok
            s = p.expect_int("a step")
            if s <= 0:
                raise p.error(f"affine.parallel steps must be positive, found {s}", t)
            steps.append(s)
            if not p.accept(","):
                break
        p.expect(")", "to close the steps")
        if len(steps) != len(ivs):
            raise p.error(f"affine.parallel has {len(ivs)} induction variable(s) but "
                          f"{len(steps)} step(s)")
    reductions: list[str] = []
    if p.accept("reduce"):
        p.expect("(", "after 'reduce'")
        while True:
            t = p.expect_kind("str", 'a reduction kind ("addf", "maxs", ...)')
            kind = t[1][1:-1]
            if kind not in REDUCTIONS:
                raise p.error(f"unsupported reduction '{kind}' (supported: "
                              f"{', '.join(REDUCTIONS)})", t)
            reductions.append(kind)
            if not p.accept(","):
                break
        p.expect(")", "to close the reductions")
    types: list[Type] = []
    if p.accept("->"):
        arrow = p.toks[p.i - 1]
        types = p.parse_result_types()
        if len(types) != len(reductions):
            raise p.error(f"affine.parallel has {len(reductions)} reduction(s) but {len(types)} "
                          "result type(s)", arrow)
    elif reductions:
        raise p.error("affine.parallel reductions need their result types ('-> (f32)')")
    op = AffineParallelOp(lm, lops, um, uops, steps, reductions, types, loc=loc)
    p.insert(op)
    p.scopes.append({})
    for t, a in zip(ivs, op.ivs, strict=True):
        p.define(t, [a])
    p.parse_region_body(op.body, "affine.yield")
    p.scopes.pop()
    return op


OPS: dict[str, OpParseFn] = {"affine.parallel": parse_parallel}
