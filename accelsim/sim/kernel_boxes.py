"""A kernel's access boxes as generated code: which values of its index arguments decide them.

`compiler.analysis.counting.access_boxes(func, args)` walks the kernel's body with interval
arithmetic, once per tuple of index arguments: a tiled program calls each kernel with a new
tuple every time (the tile's offsets), so a per-tuple cache grows with the program and every
call pays the walk. Most of that arithmetic cancels: in `A[%i - %a0]` with `%i` in
`[%a0, %a0 + 63]` the box is `[0, 63]` whatever `%a0` is. `box_key(func)` does the walk
once, symbolically: each interval bound is a linear form over the index arguments and over
temporaries (a value the generated code computes, e.g. `(a2 // 64) % 3`), with exactly the
rules `access_boxes` applies at run time (`compiler.ir.affine_eval.map_intervals`: linear
results by their coefficients, the rest by `binary_range` on the expression tree; loop
bounds as max / min of their results, the step grid of an exact start). Bounds that differ by
a known constant are decided while generating; the rest become code.

The generated `key(args)` returns the values of the variables the final boxes depend on: two
argument tuples with the same key have the same boxes (the race checks of a call depend on
nothing else). It returns None where the walk cannot be followed symbolically at that call (a
loop that may be empty), and `box_key` returns None for a kernel it cannot follow at all (an
operand the walk does not know, a divisor that is not a constant): the caller then keys by the
whole argument tuple, as before. `boxes(args)` evaluates the same forms into `access_boxes`'
result (what the tests compare it with).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from accelsim.cost.kernel import cost_args
from accelsim.sim.codegen import compile_cached
from compiler.analysis.counting import AccessBox
from compiler.ir import ops as O
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym, apply_binary
from compiler.ir.affine_map import AffineMap
from compiler.ir.analysis_cache import ObjectCache
from compiler.ir.core import Block, Value
from compiler.ir.types import ElementType, MemRefType

# c0 + sum(coefficient * variable): variables are arguments `a<k>` and temporaries `_b<n>`
Form = tuple[int, tuple[tuple[str, int], ...]]
Bounds = tuple[Form, Form]  # inclusive [lo, hi]
ArgTuple = tuple[int | None, ...]


class _Unsupported(Exception):
    """The walk cannot be followed symbolically (the caller keys by the argument tuple)."""


@dataclass(frozen=True, slots=True)
class BoxKey:
    """The generated key of one kernel: `lines` (statements over the argument locals `a<k>`,
    indented once; they may `return None`), `expr` (the key from those locals), `fallible`
    (the lines can return None), `spans` (each box's argument and whether it is read and
    written: the same for every call when not `fallible`), and the compiled functions
    `key(args tuple)` and `boxes(args tuple)`."""

    lines: tuple[str, ...]
    expr: str
    fallible: bool
    spans: tuple[tuple[int, bool, bool], ...]  # (argument, read, written) of each box, in order
    key: Callable[[ArgTuple], object]
    boxes: Callable[[ArgTuple], list[AccessBox] | None]


def _const(c: int) -> Form:
    return (c, ())


def _var(name: str) -> Form:
    return (0, ((name, 1),))


def _add(f: Form, g: Form) -> Form:
    terms = dict(f[1])
    for v, c in g[1]:
        terms[v] = terms.get(v, 0) + c
    return (f[0] + g[0], tuple(sorted((v, c) for v, c in terms.items() if c)))


def _scale(f: Form, k: int) -> Form:
    if k == 0:
        return _const(0)
    return (f[0] * k, tuple((v, c * k) for v, c in f[1]))


def _constant_of(f: Form) -> int | None:
    return f[0] if not f[1] else None


def _difference(f: Form, g: Form) -> int | None:
    """f - g when it is a constant."""
    return _constant_of(_add(f, _scale(g, -1)))


def _source(f: Form) -> str:
    parts = [v if c == 1 else f"{c} * {v}" for v, c in f[1]]
    if f[0] or not parts:
        parts.append(str(f[0]))
    return parts[0] if len(parts) == 1 else "(" + " + ".join(parts) + ")"


class _Walk:
    """One symbolic walk of a kernel body (the mirror of `counting._box_block`)."""

    def __init__(self, func: O.FuncOp):
        self.lines: list[str] = []
        self.fallible = False
        self._temps: dict[str, Form] = {}  # expression source -> its temporary
        self.ivs: dict[Value, Bounds] = {}
        self.found: dict[int, list] = {}  # type: ignore[type-arg]  # pos -> [box, read, written]
        self.arg_pos = {id(a): i for i, a in enumerate(func.args)}
        for k, a in enumerate(func.args):
            if not _is_buffer(a):
                self.ivs[a] = (_var(f"a{k}"), _var(f"a{k}"))

    # ---- values the generated code computes -------------------------------------------------
    def temp(self, src: str) -> Form:
        f = self._temps.get(src)
        if f is None:
            name = f"_b{len(self._temps)}"
            self.lines.append(f"    {name} = {src}")
            f = self._temps[src] = _var(name)
        return f

    def extreme(self, forms: Sequence[Form], pick: str) -> Form:
        """max (`pick` = "max") or min of `forms`: decided where differences are constants."""
        keep: list[Form] = []
        for f in forms:
            if any(_dominates(g, f, pick) for g in keep):
                continue
            keep = [g for g in keep if not _dominates(f, g, pick)] + [f]
        if len(keep) == 1:
            return keep[0]
        return self.temp(f"{pick}({', '.join(_source(f) for f in keep)})")

    # ---- interval arithmetic (affine_eval.map_intervals / binary_range) -------------------------
    def map_bounds(self, m: AffineMap, operands: Sequence[Value]) -> list[Bounds]:
        ops = [self.operand(v) for v in operands]
        out = []
        for r in m.results:
            lin = r.linear_coeffs(m.num_dims, m.num_symbols)
            if lin is None:
                out.append(self.tree(r, ops[: m.num_dims], ops[m.num_dims:]))
                continue
            dc, sc, c0 = lin
            lo = hi = _const(c0)
            for pos, c in enumerate([*dc, *sc]):
                if c > 0:
                    lo, hi = _add(lo, _scale(ops[pos][0], c)), _add(hi, _scale(ops[pos][1], c))
                elif c < 0:
                    lo, hi = _add(lo, _scale(ops[pos][1], c)), _add(hi, _scale(ops[pos][0], c))
            out.append((lo, hi))
        return out

    def operand(self, v: Value) -> Bounds:
        b = self.ivs.get(v)
        if b is None:
            raise _Unsupported  # access_boxes raises KeyError here: keep its path
        return b

    def tree(self, e: AffineExpr, dims: Sequence[Bounds], syms: Sequence[Bounds]) -> Bounds:
        """`interval_of`: the expression tree with `binary_range` at each node."""
        if isinstance(e, Const):
            return (_const(e.value), _const(e.value))
        if isinstance(e, Dim):
            return dims[e.pos]
        if isinstance(e, Sym):
            return syms[e.pos]
        assert isinstance(e, Binary)
        a, b = self.tree(e.lhs, dims, syms), self.tree(e.rhs, dims, syms)
        if e.kind == "add":
            return (_add(a[0], b[0]), _add(a[1], b[1]))
        if e.kind == "mul":
            return self.product(a, b)
        d = _constant_of(b[0])
        if d is None or b[0] != b[1] or d <= 0:
            raise _Unsupported  # interval_of raises ValueError: keep its path
        return self.division(e.kind, a, d)

    def product(self, a: Bounds, b: Bounds) -> Bounds:
        for x, y in ((a, b), (b, a)):
            k = _constant_of(y[0])
            if k is not None and y[0] == y[1]:  # a constant factor: lo <= hi is kept
                lo, hi = _scale(x[0], k), _scale(x[1], k)
                return (lo, hi) if k >= 0 else (hi, lo)
        c = [f"{_source(p)} * {_source(q)}" for p in a for q in b]
        return (self.temp(f"min({', '.join(c)})"), self.temp(f"max({', '.join(c)})"))

    def division(self, kind: str, a: Bounds, d: int) -> Bounds:
        lo, hi = _source(a[0]), _source(a[1])
        if kind != "mod":  # floordiv, ceildiv: monotone
            return (self.value(kind, a[0], d), self.value(kind, a[1], d))
        # mod: monotone within one period of d, else the whole period
        if a[0] == a[1]:
            r = self.value(kind, a[0], d)
            return (r, r)
        width = _difference(a[1], a[0])
        if width is not None and width >= d:
            return (_const(0), _const(d - 1))
        same = f"{lo} // {d} == {hi} // {d}"
        return (self.temp(f"{lo} % {d} if {same} else 0"),
                self.temp(f"{hi} % {d} if {same} else {d - 1}"))

    def value(self, kind: str, f: Form, d: int) -> Form:
        """`f <kind> d` (floordiv, ceildiv, mod): folded when `f` is a constant."""
        c = _constant_of(f)
        if c is not None:
            return _const(apply_binary(kind, c, d))
        x = _source(f)
        return self.temp(f"{x} // {d}" if kind == "floordiv" else f"-((-{x}) // {d})"
                         if kind == "ceildiv" else f"{x} % {d}")

    # ---- the walk ------------------------------------------------------------------------
    def block(self, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, O.AffineForOp):
                self.loop(op)
            elif isinstance(op, O.AffineIfOp):
                self.block(op.then_block)
                self.block(op.else_block)
            elif isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp):
                r = self.map_bounds(op.map, op.operands)
                if isinstance(op, O.AffineApplyOp):
                    self.ivs[op.results[0]] = r[0]
                else:
                    pick = "min" if isinstance(op, O.AffineMinOp) else "max"
                    self.ivs[op.results[0]] = (self.extreme([x[0] for x in r], pick),
                                               self.extreme([x[1] for x in r], pick))
            elif isinstance(op, O.ConstantOp):
                if isinstance(op.value, int):
                    self.ivs[op.results[0]] = (_const(int(op.value)), _const(int(op.value)))
            elif isinstance(op, O.AffineLoadOp | O.AffineStoreOp):
                self.access(op)

    def loop(self, op: O.AffineForOp) -> None:
        low = self.map_bounds(op.lower_map, op.lower_operands)
        up = self.map_bounds(op.upper_map, op.upper_operands)
        lo = self.extreme([x[0] for x in low], "max")
        hi = _add(self.extreme([x[1] for x in up], "min"), _const(-1))
        width = _difference(hi, lo)
        if width is None:  # may be empty at some call: that call takes the exact walk
            self.lines.append(f"    if {_source(hi)} < {_source(lo)}:")
            self.lines.append("        return None")
            self.fallible = True
        elif width < 0:
            return
        if op.step > 1:
            exact = [self.same(x[0], x[1]) for x in low]
            if all(e is True for e in exact):
                hi = self.on_grid(lo, hi, op.step)
            elif not any(e is False for e in exact):
                cond = " and ".join(f"{_source(x[0])} == {_source(x[1])}"
                                    for x, e in zip(low, exact, strict=True) if e is None)
                grid = _source(self.on_grid(lo, hi, op.step))
                hi = self.temp(f"{grid} if {cond} else {_source(hi)}")
        self.ivs[op.iv] = (lo, hi)
        self.block(op.body)

    @staticmethod
    def same(f: Form, g: Form) -> bool | None:
        """Whether f == g always (True), never (False) or depending on the arguments (None)."""
        d = _difference(f, g)
        return None if d is None else d == 0

    def on_grid(self, lo: Form, hi: Form, step: int) -> Form:
        """`lo + (hi - lo) // step * step`: the last value of the step grid from `lo`."""
        width = _difference(hi, lo)
        if width is not None:
            return _add(lo, _const(width // step * step))
        return self.temp(f"{_source(lo)} + ({_source(hi)} - {_source(lo)}) // {step} * {step}")

    def access(self, op: O.AffineLoadOp | O.AffineStoreOp) -> None:
        pos = self.arg_pos.get(id(op.memref))
        if pos is None:
            return
        box = self.map_bounds(op.map, op.indices)
        is_store = isinstance(op, O.AffineStoreOp)
        cur = self.found.get(pos)
        if cur is None:
            self.found[pos] = [list(box), not is_store, is_store]
            return
        cur[0] = [(self.extreme([a[0], b[0]], "min"), self.extreme([a[1], b[1]], "max"))
                  for a, b in zip(cur[0], box, strict=True)]
        cur[1] = cur[1] or not is_store
        cur[2] = cur[2] or is_store


def _dominates(g: Form, f: Form, pick: str) -> bool:
    """`g` is always >= `f` (pick max) or always <= `f` (pick min)."""
    d = _difference(g, f)
    return d is not None and (d >= 0 if pick == "max" else d <= 0)


def _is_buffer(v: Value) -> bool:
    return isinstance(v.type, MemRefType)


def _int_arg(func: O.FuncOp, k: int) -> str:
    """Argument `k` as the call's tuple of index arguments has it (`int(...)`)."""
    t = func.args[k].type
    return f"a{k}" if isinstance(t, ElementType) and t.is_index else f"int(a{k})"


_MEMO: ObjectCache[tuple[BoxKey | None]] = ObjectCache("kernel_boxes keys")


def kernel_box_key(func: O.FuncOp) -> BoxKey | None:
    """`box_key(func)` with the index arguments the kernel's cost depends on
    (`accelsim.cost.kernel.cost_args`) added to the key: a call's race checks and its cost
    are then the same for every argument tuple with the same key. Memoized per function."""
    hit = _MEMO.get(id(func))
    if hit is None:
        extra = [k for k in sorted(cost_args(func)) if not _is_buffer(func.args[k])]
        hit = _MEMO.put(func, (box_key(func, extra),))
    return hit[0]


def box_key(func: O.FuncOp, extra_args: Sequence[int] = ()) -> BoxKey | None:
    """The generated key of `func`'s access boxes (module docstring); the index arguments at
    positions `extra_args` are added to the key (as ints). None when the walk cannot be
    followed symbolically."""
    walk = _Walk(func)
    try:
        walk.block(func.body)
    except _Unsupported:
        return None
    boxes = sorted(walk.found.items())
    variables: list[str] = []
    for _, (box, _, _) in boxes:
        for lo, hi in box:
            for f in (lo, hi):
                variables += [v for v, _ in f[1] if v not in variables]
    keyed = variables + [_int_arg(func, k) for k in extra_args if f"a{k}" not in variables]
    expr = "(" + "".join(f"{v}, " for v in keyed) + ")"
    boxes_src = "[" + ", ".join(
        f"_AccessBox({pos}, ({''.join(f'({_source(lo)}, {_source(hi)}), ' for lo, hi in box)}), "
        f"{rd}, {wr})" for pos, (box, rd, wr) in boxes) + "]"
    nargs = len(func.args)
    unpack = f"    {', '.join(f'a{k}' for k in range(nargs))}, = args" if nargs else ""
    ns: dict[str, object] = {"_AccessBox": AccessBox}
    src = "\n".join(["def key(args):", unpack, *walk.lines, f"    return {expr}",
                     "def boxes(args):", unpack, *walk.lines, f"    return {boxes_src}"])
    exec(compile_cached(src, "<access boxes of a kernel>"), ns)
    spans = tuple((pos, bool(rd), bool(wr)) for pos, (_, rd, wr) in boxes)
    return BoxKey(tuple(walk.lines), expr, walk.fallible, spans, ns["key"], ns["boxes"])  # type: ignore[arg-type]
