"""Cluster programs that are one program with other affine parameters.

The programs of a many-cluster run (`accelsim.compile.clusters`) are usually the same code:
they differ only in the offsets of each cluster's share, i.e. in the maps of a few
`affine.apply` / `affine.min` / `affine.max` ops, loop bounds or `affine.if` conditions.
`parameter_ops(template, other)` finds out: when the two modules have the same ops in the
same order and nesting, with equal attributes, types, value names and locations and
operands that correspond one-to-one, except for those maps, it returns the ops of `other`
whose maps differ, keyed by the template's op. A cluster whose program matches an earlier
cluster's then runs the earlier one's IR with its own plans for those ops
(`parameter_plan`), and everything generated from the IR alone (plans, index code,
handler and control-program source) is made once for all of them
(`accelsim.sim.executor.Executor`, `shared_plans`).
"""

from __future__ import annotations

from accelsim.sim.plans import ForPlan, Plan
from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map, compile_set
from compiler.ir.core import Operation, Value

# the attributes that may differ, per op type: each cluster gets its own plan for them
_PARAMETERS: dict[type[Operation], tuple[str, ...]] = {
    O.AffineApplyOp: ("map",), O.AffineMinOp: ("map",), O.AffineMaxOp: ("map",),
    O.AffineForOp: ("lower_map", "upper_map"), O.AffineIfOp: ("condition",),
}


def parameter_ops(template: O.ModuleOp, other: O.ModuleOp) -> dict[Operation, Operation] | None:
    """{template op: the op of `other` in its place} for every op whose parameter maps
    differ, or None when the two modules are not the same program up to those maps."""
    numbers: tuple[dict[Value, int], dict[Value, int]] = ({}, {})
    params: dict[Operation, Operation] = {}
    try:
        same = _same(template, other, numbers, params)
    except (TypeError, ValueError):  # an attribute that does not compare: not shared
        return None
    return params if same else None


def _same(a: Operation, b: Operation, numbers: tuple[dict[Value, int], dict[Value, int]],
          params: dict[Operation, Operation]) -> bool:
    if type(a) is not type(b) or (a.loc is not b.loc and a.loc != b.loc) \
            or len(a.operands) != len(b.operands) or len(a.results) != len(b.results) \
            or len(a.blocks) != len(b.blocks):
        return False
    na, nb = numbers
    for x, y in zip(a.operands, b.operands):
        if x not in na or y not in nb or na[x] != nb[y]:
            return False  # (a value from outside the module: not compared)
    free = _PARAMETERS.get(type(a), ())
    differs = False
    for attr in a.ATTRS:
        u, v = getattr(a, attr), getattr(b, attr)
        if u is v or (type(u) is type(v) and u == v):  # (clones share their attributes)
            continue
        if attr not in free:
            return False
        if getattr(u, "num_inputs", None) != getattr(v, "num_inputs", None) \
                or getattr(u, "num_dims", None) != getattr(v, "num_dims", None):
            return False  # the operands must split the same way
        differs = True
    if differs:
        params[a] = b
    for x, y in zip(a.results, b.results):
        if not _same_value(x, y, numbers):
            return False
    for ba, bb in zip(a.blocks, b.blocks):
        if len(ba.args) != len(bb.args) or len(ba.ops) != len(bb.ops):
            return False
        for x, y in zip(ba.args, bb.args):
            if not _same_value(x, y, numbers):
                return False
        for oa, ob in zip(ba.ops, bb.ops):
            if not _same(oa, ob, numbers, params):
                return False
    return True


def _same_value(x: Value, y: Value, numbers: tuple[dict[Value, int], dict[Value, int]]) -> bool:
    if (x.type is not y.type and x.type != y.type) or x.name_hint != y.name_hint:
        return False
    na, nb = numbers
    na[x] = nb[y] = len(na)
    return True


def parameter_plan(op: Operation, own: Operation) -> Plan:
    """The plan of template op `op` for the cluster whose program has `own` in its place:
    `own`'s maps, reading the template's operands."""
    if isinstance(op, O.AffineForOp):
        assert isinstance(own, O.AffineForOp)
        return ForPlan(compile_map(own.lower_map), op.lower_operands,
                       compile_map(own.upper_map), op.upper_operands)
    if isinstance(op, O.AffineIfOp):
        assert isinstance(own, O.AffineIfOp)
        return compile_set(own.condition)
    assert isinstance(own, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp)
    return compile_map(own.map)
