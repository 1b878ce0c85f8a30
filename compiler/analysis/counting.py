"""Exact op counts and access boxes of a kernel for given values of its index arguments.

The cost model needs, per call of a kernel, how many times each kind of op runs. islpy here
has no barvinok `card`, so counts are exact by construction instead: a loop whose body's
control does not depend on its induction variable contributes `trip * count(body)` (closed
form for rectangular nests); a loop whose inner bounds or conditions depend on it (triangular
nests, partial tiles) is walked value by value at that level only. `isl_count` gives an
independent isl cross-check (`Set.count_val`) for tests.

Access boxes (per memref argument, the per-dimension interval of the indices touched) come
from interval arithmetic over the same walk (compiler.ir.affine_eval) and bound hazards and
SRAM traffic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from compiler.diagnostics import DiagnosticError
from compiler.ir.affine_eval import Interval, compile_map, compile_set, map_intervals
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym, _linearize
from compiler.ir.affine_map import AffineMap
from compiler.ir.builder import IndexExpr
from compiler.ir.core import Block, Operation, OpResult, Value
from compiler.ir.ops import (
    AddFOp,
    AddIOp,
    AffineApplyOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    CastOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DivFOp,
    DivSIOp,
    ExpOp,
    FuncOp,
    IndexCastOp,
    LogOp,
    MaximumFOp,
    MinimumFOp,
    MulFOp,
    MulIOp,
    NegFOp,
    RemSIOp,
    SelectOp,
    SqrtOp,
    SubFOp,
    SubIOp,
)
from compiler.ir.ops.math_ops import CHEAP as MATH_CHEAP
from compiler.ir.ops.math_ops import LLVM as MATH_LLVM
from compiler.ir.types import ElementType, MemRefType

# ---- op classes ----------------------------------------------------------------------------

class CountError(ValueError):
    """The count cannot walk a nest: a loop bound or an `affine.if` condition depends on a
    value it does not know (a ValueError, as callers of `count_ops` have caught)."""


CLASSES = ("mac", "mul", "add", "special", "other", "load", "store")
# float and integer ops alike (an integer op on `index` values is address arithmetic, not
# data: never counted); casts are lane work, except a widening cast feeding a MAC's multiply
# (`extsi` of an i8 operand to i32: the array's PEs take the narrow operand as it is)
_ADD = (AddFOp, SubFOp, AddIOp, SubIOp)
_MUL = (MulFOp, MulIOp)
_SPECIAL = (DivFOp, ExpOp, LogOp, SqrtOp, DivSIOp, RemSIOp)
_OTHER = (MaximumFOp, MinimumFOp, CmpFOp, CmpIOp, SelectOp, NegFOp)


@dataclass(frozen=True, slots=True)
class OpCounts:
    """Dynamic op counts of one kernel call. `mac` = an add/sub fed by a multiply (fma-able)."""

    mac: int = 0
    mul: int = 0
    add: int = 0
    special: int = 0
    other: int = 0
    load: int = 0
    store: int = 0
    bytes_by_space: tuple[tuple[int, int], ...] = ()   # (memory space, bytes loaded+stored)
    accesses_by_space: tuple[tuple[int, int], ...] = ()
    matmul_like: bool = False
    max_depth: int = 0
    reduction: bool = False  # an `acc + a*b` reduction, at any depth (matmul_like: at depth >= 3)
    # the counts by precision: (class, element type, accumulator type or "", count); a MAC's
    # type is its multiply's operands' before any widening cast (i8 for `extsi i8 -> i32`),
    # its accumulator the add's; every other op's, its result's (`accelsim.cost.precision`)
    typed: tuple[tuple[str, str, str, int], ...] = ()

    def bytes_in(self, space: int) -> int:
        return dict(self.bytes_by_space).get(space, 0)

    def accesses_in(self, space: int) -> int:
        return dict(self.accesses_by_space).get(space, 0)


@dataclass(slots=True)
class _Static:
    """Per-function facts that do not depend on argument values."""

    op_class: dict[int, str] = field(default_factory=dict)  # id(op) -> class
    op_type: dict[int, tuple[str, str]] = field(default_factory=dict)  # id(op) -> (type, acc)
    iterate: set[int] = field(default_factory=set)           # id(for op) walked value by value
    matmul_like: bool = False
    max_depth: int = 0
    reduction: bool = False
    control_args: tuple[int, ...] = ()  # argument positions the op counts can depend on
    # id(for op) -> its bounds: (lower, upper) when both are constants, else the compiled
    # maps with their operands (filled on first count)
    bounds: dict[int, tuple[int, int] | tuple[Any, tuple[Value, ...], Any, tuple[Value, ...]]] \
        = field(default_factory=dict)


_STATIC: dict[int, tuple[FuncOp, _Static]] = {}


def _static(func: FuncOp) -> _Static:
    hit = _STATIC.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    st = _Static()
    paired: set[int] = set()
    free: set[int] = set()  # widening casts feeding a MAC's multiply
    for op in func.walk():
        if isinstance(op, _ADD) and _is_data(op):
            for v in op.operands:
                d = v.owner if isinstance(v, OpResult) else None
                if isinstance(d, _MUL) and id(d) not in paired:
                    paired.add(id(d))
                    st.op_class[id(op)] = "mac"
                    st.op_type[id(op)] = (_mac_type(d, free), _type_name(op))
                    if _is_reduction(op, v):
                        st.matmul_like = st.reduction = True
                    break
            else:
                st.op_class[id(op)] = "add"
        elif _is_data(op) and (isinstance(op, _SPECIAL)
                               or (op.NAME in MATH_LLVM and op.NAME not in MATH_CHEAP)):
            st.op_class[id(op)] = "special"   # a transcendental: the special-function rate
        elif op.NAME in MATH_CHEAP or isinstance(op, _OTHER):
            st.op_class[id(op)] = "other"
        elif isinstance(op, AffineLoadOp):
            st.op_class[id(op)] = "load"
        elif isinstance(op, AffineStoreOp):
            st.op_class[id(op)] = "store"
        elif op.NAME.startswith("arith.") and not isinstance(op, (ConstantOp, IndexCastOp, *_MUL)) \
                and op.results and _is_data(op):
            # an integer or float op no table names (a cast, a shift, and/or/xor, a cmp):
            # one lane-op, at its result's precision
            st.op_class[id(op)] = "other"
    feeds = _control_values(func)
    # id(loop) -> loops of more than one trip around it within `func`, itself too (a nest
    # costed in place, `nest_kernel.NestKernel`, has control loops around its root that its
    # outlined kernel would not)
    depth_of: dict[int, int] = {}
    root = getattr(func, "nest", None)
    for op in func.walk():
        if isinstance(op, _MUL) and id(op) not in paired and _is_data(op):
            st.op_class[id(op)] = "mul"
        if id(op) in free:
            st.op_class.pop(id(op), None)
        cls = st.op_class.get(id(op))
        if cls in ("mul", "add", "special", "other"):
            st.op_type[id(op)] = (_type_name(op), "")
        if isinstance(op, AffineForOp):
            # a loop of one trip (a tile loop over a whole extent) adds no depth
            depth = _loop_depth(op, depth_of, root)
            st.max_depth = max(st.max_depth, depth)
            if id(op.iv) in feeds:  # the IV reaches an inner bound or condition
                st.iterate.add(id(op))
    if st.max_depth < 3:
        st.matmul_like = False
    st.control_args = tuple(k for k, a in enumerate(func.args) if id(a) in feeds)
    if len(_STATIC) > 1000:  # entries keep their function (and module) alive: stay bounded
        _STATIC.clear()
    _STATIC[id(func)] = (func, st)
    return st


def _loop_depth(loop: AffineForOp, memo: dict[int, int], root: Operation | None) -> int:
    """How many of `loop` and its enclosing `affine.for`s up to `root` have other than one
    trip."""
    d = memo.get(id(loop))
    if d is not None:
        return d
    outer = loop.parent_op if loop is not root else None
    while outer is not None and not isinstance(outer, AffineForOp):
        outer = outer.parent_op if outer is not root else None
    d = (_loop_depth(outer, memo, root) if outer is not None else 0) \
        + (static_trip_count(loop) != 1)
    memo[id(loop)] = d
    return d


def _is_data(op: Operation) -> bool:
    """An op on data (float or integer values), not on `index` values (address arithmetic)."""
    t = op.results[0].type if op.results else None
    return isinstance(t, ElementType) and not t.is_index


def _type_name(op: Operation) -> str:
    return str(op.results[0].type)


def _source_type(v: Value, free: set[int]) -> ElementType | None:
    """The type of `v` before the widening casts it comes through (recorded in `free`)."""
    t = v.type
    while isinstance(v, OpResult) and isinstance(v.owner, CastOp) \
            and not isinstance(v.owner, IndexCastOp):
        src = v.owner.operands[0]
        st = src.type
        if not (isinstance(st, ElementType) and isinstance(t, ElementType)) or st.is_index \
                or st.bitwidth > t.bitwidth:
            break
        free.add(id(v.owner))
        v, t = src, st
    return t if isinstance(t, ElementType) else None


def _mac_type(mul: Operation, free: set[int]) -> str:
    """A MAC's precision: the wider of its multiply's operands before widening casts."""
    types = [_source_type(v, free) for v in mul.operands]
    known = [t for t in types if t is not None]
    if not known:
        return _type_name(mul)
    return max(known, key=lambda t: (t.bitwidth, t.is_float)).name


def static_trip_count(loop: AffineForOp) -> int | None:
    """Trip count of `loop` when `ub - lb` is a constant (single-result bounds, e.g.
    `0 to 400 step 400` or `%t to %t + 25`), else None."""
    lm, um = loop.lower_map, loop.upper_map
    if lm.num_results != 1 or um.num_results != 1:
        return None
    lo = _linear_bound(lm, loop.lower_operands)
    hi = _linear_bound(um, loop.upper_operands) if lo is not None else None
    if lo is not None and hi is not None:
        # the common case, without building expressions: sums of operands times constants
        terms, const = hi
        for v, c in lo[0].items():
            if terms.get(v, 0) != c:
                return None
        if len(terms) != len(lo[0]):
            return None
        return max(0, -(-(const - lo[1]) // loop.step))
    diff = _bound_expr(um, loop.upper_operands) - _bound_expr(lm, loop.lower_operands)
    if not isinstance(diff.expr, Const):
        return None
    return max(0, -(-diff.expr.value // loop.step))


def _linear_bound(m: AffineMap, operands: Sequence[Value]) -> tuple[dict[Value, int], int] | None:
    """The bound `m(operands)` as {operand value: coefficient} plus a constant, or None when
    it has a non-linear term (floordiv, mod, a product of operands)."""
    e = m.results[0]
    if isinstance(e, Const):
        return {}, e.value
    terms, const = _linearize(e)
    out: dict[Value, int] = {}
    nd = m.num_dims
    for t, c in terms.items():
        if isinstance(t, Dim):
            v = operands[t.pos]
        elif isinstance(t, Sym):
            v = operands[nd + t.pos]
        else:
            return None
        c += out.get(v, 0)
        if c:
            out[v] = c
        else:
            out.pop(v, None)
    return out, const


def _bound_expr(m: AffineMap, operands: Sequence[Value]) -> IndexExpr:
    subs_d = [Dim(i) for i in range(m.num_dims)]
    subs_s = [Dim(m.num_dims + j) for j in range(m.num_symbols)]
    return IndexExpr(m.results[0].substitute(subs_d, subs_s), tuple(operands))


def _control_values(func: FuncOp) -> set[int]:
    """ids of the values that flow (through index ops) into loop bounds or if conditions."""
    feeds: set[int] = set()
    index_ops: dict[int, Operation] = {}  # id(result) -> the index op defining it
    for op in func.walk():
        if isinstance(op, AffineForOp):
            n = len(op.operands) - len(op.inits)
            feeds.update(id(v) for v in op.operands[:n])
        elif isinstance(op, AffineIfOp):
            feeds.update(id(v) for v in op.operands)
        elif isinstance(op, AffineApplyOp | AffineMinOp | AffineMaxOp):
            index_ops[id(op.results[0])] = op
    # index ops whose results feed control make their operands control too
    work = [i for i in feeds if i in index_ops]
    while work:
        for v in index_ops[work.pop()].operands:
            if id(v) not in feeds:
                feeds.add(id(v))
                if id(v) in index_ops:
                    work.append(id(v))
    return feeds


def _control_args(func: FuncOp) -> tuple[int, ...]:
    """Arguments that flow (through index ops) into loop bounds or if conditions."""
    feeds = _control_values(func)
    return tuple(k for k, a in enumerate(func.args) if id(a) in feeds)


def control_key(func: FuncOp, args: Sequence[int | None]) -> tuple[int | None, ...]:
    """`args` with the values op counts cannot depend on blanked out (a cache key)."""
    ctl = _static(func).control_args
    return tuple(a if k in ctl else None for k, a in enumerate(args))


def _is_reduction(add: Operation, mul_value: Value) -> bool:
    """`acc + a*b` where acc is an iter_arg or a load of the memref the sum is stored to."""
    acc = next((v for v in add.operands if v is not mul_value), None)
    if acc is None:
        return False
    if not isinstance(acc, OpResult):
        return True  # block argument: an iter_arg accumulator
    ld = acc.owner
    if not isinstance(ld, AffineLoadOp) or add.parent_block is None:
        return False
    for op in add.parent_block.ops:
        if isinstance(op, AffineStoreOp) and op.value is add.results[0] and op.memref is ld.memref:
            return True
    return False


def _bounds(loop: AffineForOp, env: dict[Value, int], st: _Static) -> tuple[int, int] | None:
    b = st.bounds.get(id(loop))
    if b is None:
        lm, um = loop.lower_map, loop.upper_map
        if lm.num_inputs == 0 and um.num_inputs == 0:
            b = (max(compile_map(lm)(())), min(compile_map(um)(())))
        else:
            b = (compile_map(lm), tuple(loop.lower_operands),
                 compile_map(um), tuple(loop.upper_operands))
        st.bounds[id(loop)] = b
    if len(b) == 2:
        return b  # type: ignore[return-value]
    lo_fn, lo_ops, hi_fn, hi_ops = b  # type: ignore[misc]
    try:
        return max(lo_fn([env[v] for v in lo_ops])), min(hi_fn([env[v] for v in hi_ops]))
    except KeyError:
        return None


_COUNTS: dict[tuple[int, tuple[int | None, ...]], tuple[FuncOp, OpCounts]] = {}
_BOXES: dict[tuple[int, tuple[int | None, ...]], tuple[FuncOp, list[AccessBox]]] = {}


def count_ops(func: FuncOp, args: Sequence[int | None]) -> OpCounts:
    """Exact dynamic op counts of `func` called with index arguments `args` (None for memrefs).
    Memoized per (function, control-relevant arguments): sweeps re-use them across configs.
    A kernel is treated as immutable once counted (passes create new functions)."""
    key = (id(func), control_key(func, args))
    hit = _COUNTS.get(key)
    if hit is not None and hit[0] is func:
        return hit[1]
    out = _count_ops(func, args)
    if len(_COUNTS) > 20_000:
        _COUNTS.clear()
    _COUNTS[key] = (func, out)
    return out


def _count_ops(func: FuncOp, args: Sequence[int | None]) -> OpCounts:
    st = _static(func)
    env: dict[Value, int] = {a: v for a, v in zip(func.args, args, strict=True) if v is not None}
    acc: dict[str, int] = dict.fromkeys(CLASSES, 0)
    space_bytes: dict[int, int] = {}
    space_acc: dict[int, int] = {}
    typed: dict[tuple[str, str, str], int] = {}
    _count_block(func.body, env, 1, st, acc, space_bytes, space_acc, typed)
    return OpCounts(**acc, bytes_by_space=tuple(sorted(space_bytes.items())),
                    accesses_by_space=tuple(sorted(space_acc.items())),
                    matmul_like=st.matmul_like, max_depth=st.max_depth, reduction=st.reduction,
                    typed=tuple((c, t, a, n) for (c, t, a), n in sorted(typed.items())))


def _count_block(block: Block, env: dict[Value, int], mult: int, st: _Static, acc: dict[str, int],
                 space_bytes: dict[int, int], space_acc: dict[int, int],
                 typed: dict[tuple[str, str, str], int]) -> None:
    for op in block.ops:
        if isinstance(op, AffineForOp):
            b = _bounds(op, env, st)
            if b is None:
                raise CountError(f"loop bounds at {op.loc} depend on a value unknown to the count")
            lo, hi = b
            if hi <= lo:
                continue
            if id(op) in st.iterate:
                for i in range(lo, hi, op.step):
                    env[op.iv] = i
                    _count_block(op.body, env, mult, st, acc, space_bytes, space_acc, typed)
                env.pop(op.iv, None)
            else:
                trip = -((lo - hi) // op.step)
                _count_block(op.body, env, mult * trip, st, acc, space_bytes, space_acc, typed)
        elif isinstance(op, AffineIfOp):
            try:
                cond = compile_set(op.condition)([env[v] for v in op.operands])
            except KeyError:
                raise CountError(f"affine.if at {op.loc} depends on a value unknown to the count") from None
            _count_block(op.then_block if cond else op.else_block, env, mult, st, acc,
                         space_bytes, space_acc, typed)
        elif isinstance(op, AffineApplyOp | AffineMinOp | AffineMaxOp):
            try:
                r = compile_map(op.map)([env[v] for v in op.operands])
            except KeyError:
                continue
            env[op.results[0]] = (r[0] if isinstance(op, AffineApplyOp)
                                  else min(r) if isinstance(op, AffineMinOp) else max(r))
        elif isinstance(op, ConstantOp):
            if isinstance(op.value, int):
                env[op.results[0]] = op.value
        elif isinstance(op, AffineYieldOp):
            continue
        else:
            cls = st.op_class.get(id(op))
            if cls is None:
                continue
            acc[cls] += mult
            ty = st.op_type.get(id(op))
            if ty is not None:
                k = (cls, *ty)
                typed[k] = typed.get(k, 0) + mult
            if cls in ("load", "store"):
                mt = op.memref.type  # type: ignore[attr-defined]
                assert isinstance(mt, MemRefType)
                sp = mt.memory_space
                space_bytes[sp] = space_bytes.get(sp, 0) + mult * mt.element.byte_width
                space_acc[sp] = space_acc.get(sp, 0) + mult


# ---- access boxes --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccessBox:
    """Per-dimension inclusive index interval touched in one memref argument."""

    arg: int
    box: tuple[Interval, ...]
    read: bool
    written: bool


def access_boxes(func: FuncOp, args: Sequence[int | None]) -> list[AccessBox]:
    """Bounding boxes of the elements each memref argument's loads/stores can touch."""
    key = (id(func), tuple(args))
    hit = _BOXES.get(key)
    if hit is not None and hit[0] is func:
        return hit[1]
    out = _access_boxes(func, args)
    if len(_BOXES) > 20_000:
        _BOXES.clear()
    _BOXES[key] = (func, out)
    return out


def _access_boxes(func: FuncOp, args: Sequence[int | None]) -> list[AccessBox]:
    ivs: dict[Value, Interval] = {a: (v, v) for a, v in zip(func.args, args, strict=True)
                                  if v is not None}
    found: dict[int, list] = {}
    arg_pos = {id(a): i for i, a in enumerate(func.args)}
    _box_block(func.body, ivs, found, arg_pos)
    out = []
    for pos, (box, rd, wr) in sorted(found.items()):
        out.append(AccessBox(pos, tuple(box), rd, wr))
    return out


def _box_block(block: Block, ivs: dict[Value, Interval], found: dict[int, list],
               arg_pos: dict[int, int]) -> None:
    for op in block.ops:
        if isinstance(op, AffineForOp):
            try:
                low = map_intervals(op.lower_map, [ivs[v] for v in op.lower_operands])
                up = map_intervals(op.upper_map, [ivs[v] for v in op.upper_operands])
            except ValueError as exc:   # a semi-affine bound dividing by a value <= 0 here
                raise DiagnosticError(f"affine.for: {exc} for these arguments (a division by a "
                                      "value that is not positive)", op.loc) from None
            lo = max(iv[0] for iv in low)   # lb = max(results): its smallest possible value
            hi = min(iv[1] for iv in up) - 1  # ub = min(results): its largest possible value
            if hi < lo:
                continue
            if op.step > 1 and all(a == b for a, b in low):  # exact start: last value on the step grid
                hi = lo + (hi - lo) // op.step * op.step
            ivs[op.iv] = (lo, hi)
            _box_block(op.body, ivs, found, arg_pos)
        elif isinstance(op, AffineIfOp):
            _box_block(op.then_block, ivs, found, arg_pos)
            _box_block(op.else_block, ivs, found, arg_pos)
        elif isinstance(op, AffineApplyOp | AffineMinOp | AffineMaxOp):
            r = map_intervals(op.map, [ivs[v] for v in op.operands])
            if isinstance(op, AffineApplyOp):
                ivs[op.results[0]] = r[0]
            elif isinstance(op, AffineMinOp):
                ivs[op.results[0]] = (min(x[0] for x in r), min(x[1] for x in r))
            else:
                ivs[op.results[0]] = (max(x[0] for x in r), max(x[1] for x in r))
        elif isinstance(op, ConstantOp):
            if isinstance(op.value, int):
                ivs[op.results[0]] = (op.value, op.value)
        elif isinstance(op, AffineLoadOp | AffineStoreOp):
            pos = arg_pos.get(id(op.memref))
            if pos is None:
                continue
            box = map_intervals(op.map, [ivs[v] for v in op.indices])
            is_store = isinstance(op, AffineStoreOp)
            cur = found.get(pos)
            if cur is None:
                found[pos] = [list(box), not is_store, is_store]
            else:
                cur[0] = [(min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(cur[0], box, strict=True)]
                cur[1] = cur[1] or not is_store
                cur[2] = cur[2] or is_store


# ---- isl cross-check -----------------------------------------------------------------------


def isl_count(loops: Sequence[AffineForOp], params: dict[Value, int]) -> int:
    """Points of the iteration domain of a perfect or imperfect chain of loops (outer first),
    counted by isl (`count_val`) with the given values for every non-IV operand."""
    import islpy as isl

    names: dict[int, str] = {}
    for k, lp in enumerate(loops):
        names[id(lp.iv)] = f"i{k}"
    for k, v in enumerate(params):
        names[id(v)] = f"p{k}"
    cons = []
    for lp in loops:
        iv = names[id(lp.iv)]
        for r in lp.lower_map.results:
            cons.append(f"{iv} >= {_isl_expr(r, lp.lower_map.num_dims, lp.lower_operands, names)}")
        for r in lp.upper_map.results:
            cons.append(f"{iv} < {_isl_expr(r, lp.upper_map.num_dims, lp.upper_operands, names)}")
        if lp.step != 1:
            lo = _isl_expr(lp.lower_map.results[0], lp.lower_map.num_dims, lp.lower_operands, names)
            cons.append(f"exists e: {iv} = {lo} + {lp.step} * e")
    pnames = [f"p{k}" for k in range(len(params))]
    dims = ", ".join(f"i{k}" for k in range(len(loops)))
    text = f"[{', '.join(pnames)}] -> {{ [{dims}] : {' and '.join(cons) or 'true'} }}"
    s = isl.Set(text)
    for k, val in enumerate(params.values()):
        s = s.fix_val(isl.dim_type.param, k, isl.Val(int(val)))
    return int(s.count_val().to_python())


def _isl_expr(e: AffineExpr, nd: int, operands: Sequence[Value], names: dict[int, str]) -> str:
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Dim):
        return names[id(operands[e.pos])]
    if isinstance(e, Sym):
        return names[id(operands[nd + e.pos])]
    assert isinstance(e, Binary)
    a, b = _isl_expr(e.lhs, nd, operands, names), _isl_expr(e.rhs, nd, operands, names)
    if e.kind == "add":
        return f"({a} + {b})"
    if e.kind == "mul":
        return f"({a} * {b})"
    if e.kind == "floordiv":
        return f"floor(({a}) / {b})"
    if e.kind == "ceildiv":
        return f"ceil(({a}) / {b})"
    return f"(({a}) mod {b})"
