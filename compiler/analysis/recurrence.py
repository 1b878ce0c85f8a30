"""The longest chain of flow dependences of a program (its dataflow critical path): a lower
bound on its run whatever the schedule, after the roofline and the latency floor
(`accelsim.report.roofline.critical_path`).

The program as written is run in program order on times instead of values (no data: the
loops' bounds and the subscripts are affine in the IVs; the function is turned into Python
source once, loops as loops, each memref a dict of element times): every float value is
ready at the latest time of its operands plus its op's latency, a load's value at the time
the store of that element made it (0 for inputs), and the chain is the latest time a stored
or carried value is ready.
So every statement's instances, however many statements and loops a recurrence passes
through (durbin's `alpha`, `beta` and `sum`; ludcmp's and trisolv's substitutions; a
stencil's sweeps), and scalars carried in iter_args, are followed exactly.

Latencies: an ordinary float op one step (`plain`), a special op — div, sqrt, exp and the
other transcendentals — one `special` step (the machine's `compute.special_op_cycles`); a
multiply feeding an add or subtract counts once (a fused multiply-add); loads, stores, index
arithmetic and selects of index values nothing. Only flow dependences count (a compiler may
rename storage), and a reduction — a value accumulated with one associative op
(`addf`, `mulf`, `maximumf`, `minimumf`; `subf` of the accumulator) into the same element or
iter_arg, its partial values used by nothing else — may be reassociated as a tree (the
simulator's cost model sums a reduction's terms over its lanes too): its sum is ready no
sooner than one step after its latest term and ceil(log2(leaves)) steps after its earliest.
Which chain is longest is decided with a special op weighing `REFERENCE_SPECIAL` steps; the
result is the length of that chain, a lower bound on any machine whose ops take at least
those latencies.

The run stops after `BUDGET` ops: dependences run forward in program order, so what ran is
a prefix whose chains are chains of the whole program, and the figure stays a lower bound
(`truncated`, the report says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.affine_eval import fold_source
from compiler.ir.affine_expr import AffineExpr
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AddFOp,
    AffineApplyOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    AllocOp,
    CmpFOp,
    ConstantOp,
    DeallocOp,
    DivFOp,
    ExpOp,
    FuncOp,
    MaximumFOp,
    MinimumFOp,
    MulFOp,
    NegFOp,
    ReturnOp,
    SelectOp,
    SqrtOp,
    SubFOp,
)
from compiler.ir.ops.math_ops import CHEAP as MATH_CHEAP
from compiler.ir.ops.math_ops import LLVM as MATH_LLVM
from compiler.ir.types import INDEX

BUDGET = 300_000        # ops run at most (a prefix of the program beyond that): ~0.15 s
REFERENCE_SPECIAL = 4   # the weight of a special op while choosing the longest chain

# A time is one int: (plain + REFERENCE_SPECIAL * special) << SHIFT | special, so `max` picks
# the longer chain and the special ops on it ride along.
SHIFT = 24
STEP = 1 << SHIFT                               # one ordinary op
SPECIAL_STEP = REFERENCE_SPECIAL * STEP + 1     # one special op
_ASSOC = (AddFOp, MulFOp, MaximumFOp, MinimumFOp)


@dataclass(frozen=True, slots=True)
class CriticalPath:
    """The longest chain of flow dependences found: `plain` ordinary and `special` special
    ops on it, ending in an element of `memref` (its name) or a loop's carried value;
    `ops` ops run, `truncated` when the run stopped at `BUDGET` (a prefix's chain: still a
    bound); `loc` the function's location."""

    plain: int
    special: int
    memref: str
    ops: int
    truncated: bool
    loc: object

    def cycles(self, special_op_cycles: int) -> int:
        return self.plain + self.special * special_op_cycles


def longest_recurrence(func: FuncOp, budget: int = BUDGET) -> CriticalPath | None:
    """The critical path of `func` (None: something the run does not model — an op it does
    not know, a subscript that depends on data — or no chain of more than one op)."""
    try:
        gen = _Gen(func)
        src = gen.source()
    except _Unsupported:
        return None
    ns: dict[str, object] = {"_comb": _comb, "_Stop": _Stop, "_clog2": _clog2}
    try:
        code = compile(src, f"<critical path of @{func.sym_name}>", "exec")
    except (SyntaxError, RecursionError, MemoryError):
        # nests deeper than Python's block limits (statically nested blocks, indentation
        # levels): the run cannot be generated, so the program has no figure (not a zero)
        return None
    exec(code, ns)
    mems: list[dict] = [{} for _ in gen.memrefs]  # type: ignore[type-arg]
    state = [0, budget, 0]   # ops run, budget, longest carried value
    truncated = False
    try:
        ns["run"](mems, state)  # type: ignore[operator]
    except _Stop:
        truncated = True
    best, where = state[2], "a loop's carried value"
    for name, mem in zip(gen.memrefs, mems, strict=True):
        for t in mem.values():
            t = _comb(t) if t.__class__ is list else t
            if t > best:
                best, where = t, f"%{name}"
    special = best & (STEP - 1)
    plain = (best >> SHIFT) - REFERENCE_SPECIAL * special
    if plain + special <= 1:
        return None
    return CriticalPath(plain, special, where, min(state[0], budget), truncated, func.loc)


class _Unsupported(Exception):
    """An op or value the run does not model."""


class _Stop(Exception):
    """The budget is spent: the prefix run stands."""


def _clog2(n: int) -> int:
    return (n - 1).bit_length()


def _comb(p: list[int]) -> int:
    """A pending reduction [kind, base, latest term, earliest term, terms] summed as a tree:
    one step after its latest leaf, and ceil(log2(m)) steps after the earliest of any m of
    its leaves (a binary tree over m leaves has one at depth >= log2(m)): the n terms, or
    the n terms and the base when it is no earlier."""
    _, base, hi, lo, n = p
    t = max(max(hi, base) + STEP, lo + _clog2(n) * STEP)
    return max(t, lo + _clog2(n + 1) * STEP) if base >= lo else t


def _reduction_role(op: Operation, uses: dict[int, list[Operation]]
                    ) -> tuple[str, Operation, Value, Value] | None:
    """For an associative op `r = acc (+) x` (`subf`: acc - x) whose `acc` is a load of the
    element `r` is stored back to, or an iter_arg `r` is yielded to, each used once:
    ("store", the load, acc, x) or ("yield", the loop, acc, x); else None."""
    if not isinstance(op, (*_ASSOC, SubFOp)) or len(op.results) != 1:
        return None
    r = op.results[0]
    users = uses.get(id(r), [])
    if len(users) != 1:
        return None
    user = users[0]
    cands = [(op.operands[0], op.operands[1])]
    if not isinstance(op, SubFOp):
        cands.append((op.operands[1], op.operands[0]))
    for acc, x in cands:
        if acc is x or len(uses.get(id(acc), [])) != 1:
            continue
        src = getattr(acc, "owner", None)
        if isinstance(user, AffineStoreOp) and isinstance(src, AffineLoadOp) \
                and user.value is r and src.memref is user.memref and src.map == user.map \
                and len(src.indices) == len(user.indices) \
                and all(a is b for a, b in zip(src.indices, user.indices, strict=True)) \
                and src.parent_block is user.parent_block:
            return "store", src, acc, x
        loop = user.parent_op
        if isinstance(user, AffineYieldOp) and isinstance(loop, AffineForOp) \
                and getattr(acc, "block", None) is loop.body:
            k = next((j for j, b in enumerate(loop.body.args) if b is acc), -1)
            if k >= 1 and user.operands[k - 1] is r:
                return "yield", loop, acc, x
    return None


class _Gen:
    """Python source of the function run on times: `run(mems, state)`."""

    def __init__(self, func: FuncOp):
        self.func = func
        self.names: dict[int, str] = {}
        self.index: set[int] = set()          # values that are index ints, not times
        self.memrefs: list[str] = []
        self.mem_of: dict[int, str] = {}
        self.uses: dict[int, list[Operation]] = {}
        for op in func.walk():
            for v in op.operands:
                self.uses.setdefault(id(v), []).append(op)
        self.roles: dict[int, tuple[str, Operation, Value, Value]] = {}
        self.skip: set[int] = set()           # reduction loads: their element stays pending
        self.red_args: dict[int, type] = {}   # iter_args carried as pending reductions
        for op in func.walk():
            role = _reduction_role(op, self.uses)
            if role is None:
                continue
            self.roles[id(op)] = role
            if role[0] == "store":
                self.skip.add(id(role[1]))
            else:
                self.red_args[id(role[2])] = AddFOp if isinstance(op, SubFOp) else type(op)
        self.lines: list[str] = []
        self.n = 0

    def fresh(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def name(self, v: Value) -> str:
        k = id(v)
        if k not in self.names:
            raise _Unsupported()
        return self.names[k]

    def idx(self, v: Value) -> str:
        if id(v) not in self.index:
            raise _Unsupported()   # a subscript or bound that depends on data
        return self.names[id(v)]

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def source(self) -> str:
        for k, a in enumerate(self.func.body.args):
            self.names[id(a)] = f"a{k}"
            if a.type == INDEX:
                raise _Unsupported()   # a size argument: no value to run with
            if hasattr(a.type, "shape"):
                self.mem_of[id(a)] = f"m{len(self.memrefs)}"
                self.memrefs.append(a.name_hint or f"arg{k}")
        head = ["def run(mems, state):",
                # the arguments' memories (an alloc's comes later in `mems`: `AllocOp` below)
                "    " + "".join(f"{m}, " for m in self.mem_of.values())
                + f"= mems[:{len(self.mem_of)}]"
                if self.mem_of else "    pass",
                "    ops = 0", "    budget = state[1]", "    carried = 0", "    try:"]
        self.block(self.func.body, 2)
        tail = ["    finally:", "        state[0] = ops", "        state[2] = carried"]
        return "\n".join([*head, *self.lines, "        pass", *tail]) + "\n"

    def expr(self, e: AffineExpr, operands: list[Value], nd: int) -> str:
        return f"({fold_source(e, [(self.idx(v), None, None) for v in operands], nd)[0]})"

    def map_results(self, m: object, operands: list[Value]) -> list[str]:
        return [self.expr(r, operands, m.num_dims) for r in m.results]  # type: ignore[attr-defined]

    def block(self, block: Block, d: int) -> list[Value]:
        for op in block.ops:
            if isinstance(op, AffineYieldOp):
                return list(op.operands)
            if isinstance(op, ReturnOp):
                return []
            self.op(op, d)
        return []

    def op(self, op: Operation, d: int) -> None:
        if isinstance(op, AffineForOp):
            self.loop(op, d)
        elif isinstance(op, AffineIfOp):
            if op.results:
                raise _Unsupported()
            cond = " and ".join(
                f"{self.expr(c, list(op.operands), op.condition.num_dims)} {'==' if eq else '>='} 0"
                for c, eq in zip(op.condition.constraints, op.condition.eq_flags, strict=True)) or "True"
            self.emit(d, f"if {cond}:")
            self.block(op.then_block, d + 1)
            self.emit(d + 1, "pass")
            if op.has_else:
                self.emit(d, "else:")
                self.block(op.else_block, d + 1)
                self.emit(d + 1, "pass")
        elif isinstance(op, AffineApplyOp | AffineMinOp | AffineMaxOp):
            res = self.map_results(op.map, list(op.operands))
            v = self.fresh()
            fn = "min" if isinstance(op, AffineMinOp) else "max"
            self.emit(d, f"{v} = " + (res[0] if len(res) == 1 else f"{fn}({', '.join(res)})"))
            self.names[id(op.results[0])] = v
            self.index.add(id(op.results[0]))
        elif isinstance(op, ConstantOp):
            v = self.fresh()
            r = op.results[0]
            if r.type == INDEX and isinstance(op.value, int):
                self.emit(d, f"{v} = {int(op.value)}")
                self.index.add(id(r))
            else:
                self.emit(d, f"{v} = 0")
            self.names[id(r)] = v
        elif isinstance(op, AffineLoadOp):
            self.load(op, d)
        elif isinstance(op, AffineStoreOp):
            self.store(op, d)
        elif isinstance(op, AllocOp):
            m = f"m{len(self.memrefs)}"
            self.memrefs.append(op.result.name_hint or "alloc")
            self.mem_of[id(op.result)] = m
            self.names[id(op.result)] = m
            self.emit(d, f"{m} = mems[{len(self.memrefs) - 1}]")
        elif isinstance(op, DeallocOp):
            pass
        elif isinstance(op, (*_ASSOC, SubFOp, DivFOp, NegFOp, CmpFOp, SelectOp, ExpOp, SqrtOp)) \
                or op.NAME in MATH_LLVM:
            self.arith(op, d)
        else:
            raise _Unsupported()

    def loop(self, op: AffineForOp, d: int) -> None:
        lo = self.map_results(op.lower_map, list(op.lower_operands))
        hi = self.map_results(op.upper_map, list(op.upper_operands))
        lo_s = lo[0] if len(lo) == 1 else f"max({', '.join(lo)})"
        hi_s = hi[0] if len(hi) == 1 else f"min({', '.join(hi)})"
        carried = []
        for a, init in zip(op.body.args[1:], op.inits, strict=True):
            c = self.fresh("c")
            t = self.name(init)
            if id(a) in self.index or id(init) in self.index:
                raise _Unsupported()
            kind = self.red_args.get(id(a))
            if kind is not None:
                self.emit(d, f"{c} = [{kind.__name__!r}, {t}, 0, 1 << 62, 0]")
            else:
                self.emit(d, f"{c} = {t}")
            self.names[id(a)] = c
            carried.append(c)
        iv = self.fresh("i")
        self.names[id(op.iv)] = iv
        self.index.add(id(op.iv))
        n_ops = sum(1 for o in op.body.ops if not isinstance(o, AffineForOp | AffineIfOp))
        self.emit(d, f"for {iv} in range({lo_s}, {hi_s}, {op.step}):")
        self.emit(d + 1, f"ops += {max(n_ops, 1)}")
        self.emit(d + 1, "if ops > budget:")
        self.emit(d + 2, "raise _Stop()")
        ys = self.block(op.body, d + 1)
        for c, y in zip(carried, ys, strict=True):
            self.emit(d + 1, f"{c} = {self.name(y)}")
        for a, r, c in zip(op.body.args[1:], op.results, carried, strict=True):
            v = self.fresh()
            if id(a) in self.red_args:
                self.emit(d, f"{v} = _comb({c}) if {c}[4] else {c}[1]")
            else:
                self.emit(d, f"{v} = {c}")
            self.emit(d, f"if {v} > carried:")
            self.emit(d + 1, f"carried = {v}")
            self.names[id(r)] = v

    def key(self, op: AffineLoadOp | AffineStoreOp) -> str:
        res = self.map_results(op.map, list(op.indices))
        return f"({''.join(f'{x}, ' for x in res)})"

    def mem(self, v: Value) -> str:
        m = self.mem_of.get(id(v))
        if m is None:
            raise _Unsupported()
        return m

    def load(self, op: AffineLoadOp, d: int) -> None:
        v = self.fresh()
        self.names[id(op.result)] = v
        if op.result.type == INDEX:
            raise _Unsupported()
        if id(op) in self.skip:
            self.emit(d, f"{v} = 0")     # the accumulator: its element stays pending
            return
        m, k = self.mem(op.memref), self.fresh("k")
        self.emit(d, f"{k} = {self.key(op)}")
        self.emit(d, f"{v} = {m}.get({k}, 0)")
        self.emit(d, f"if {v}.__class__ is list:")
        self.emit(d + 1, f"{v} = {m}[{k}] = _comb({v})")

    def store(self, op: AffineStoreOp, d: int) -> None:
        m, k = self.mem(op.memref), self.fresh("k")
        self.emit(d, f"{k} = {self.key(op)}")
        val = op.value
        owner = getattr(val, "owner", None)
        role = self.roles.get(id(owner)) if owner is not None else None
        if role is not None and role[0] == "store":
            kind = (AddFOp if isinstance(owner, SubFOp) else type(owner)).__name__
            t, p = self.name(val), self.fresh("p")
            self.emit(d, f"{p} = {m}.get({k}, 0)")
            self.emit(d, f"if {p}.__class__ is not list or {p}[0] != {kind!r}:")
            self.emit(d + 1, f"{m}[{k}] = [{kind!r}, _comb({p}) if {p}.__class__ is list else {p}, "
                             f"{t}, {t}, 1]")
            self.emit(d, "else:")
            self.emit(d + 1, f"if {t} > {p}[2]:")
            self.emit(d + 2, f"{p}[2] = {t}")
            self.emit(d + 1, f"if {t} < {p}[3]:")
            self.emit(d + 2, f"{p}[3] = {t}")
            self.emit(d + 1, f"{p}[4] += 1")
            return
        if id(val) in self.index:
            raise _Unsupported()
        self.emit(d, f"{m}[{k}] = {self.name(val)}")

    def fused(self, v: Value) -> bool:
        owner = getattr(v, "owner", None)
        return isinstance(owner, MulFOp) and len(self.uses.get(id(v), [])) == 1

    def arith(self, op: Operation, d: int) -> None:
        r = op.results[0]
        v = self.fresh()
        self.names[id(r)] = v
        role = self.roles.get(id(op))
        if role is not None:
            _, _, acc, x = role
            t = self.name(x)
            term = f"({t} - {STEP} if {t} >= {STEP} else {t})" if self.fused(x) else t
            if role[0] == "store":
                self.emit(d, f"{v} = {term}")      # the term the store adds to the element
            else:
                a = self.name(acc)
                self.emit(d, f"if {term} > {a}[2]:")
                self.emit(d + 1, f"{a}[2] = {term}")
                self.emit(d, f"if {term} < {a}[3]:")
                self.emit(d + 1, f"{a}[3] = {term}")
                self.emit(d, f"{a}[4] += 1")
                self.emit(d, f"{v} = {a}")
            return
        if isinstance(op, SelectOp) and id(op.operands[1]) in self.index:
            c, a, b = (self.name(x) for x in op.operands)
            self.emit(d, f"{v} = {a} if {c} else {b}")   # never: index selects need data
            raise _Unsupported()
        if any(id(x) in self.index for x in op.operands):
            raise _Unsupported()
        ts = [self.name(x) for x in op.operands]
        t = ts[0] if len(ts) == 1 else f"max({', '.join(ts)})"
        if isinstance(op, DivFOp | ExpOp | SqrtOp) or (op.NAME in MATH_LLVM and op.NAME not in MATH_CHEAP):
            self.emit(d, f"{v} = {t} + {SPECIAL_STEP}")
        elif isinstance(op, AddFOp | SubFOp) and any(self.fused(x) for x in op.operands):
            self.emit(d, f"{v} = {t}")     # the add of a multiply-add: the multiply took the step
        else:
            self.emit(d, f"{v} = {t} + {STEP}")
