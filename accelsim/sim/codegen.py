"""Generated Python for the control program: memoized compilation, and the index code of a
DMA's or wait's sides (maps, bounds checks and row-major linearization as straight-line
statements), shared by the executor's plans and its fast path."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import CodeType

from accelsim.sim.memory import RuntimeValue, Vals
from compiler.ir import ops as O
from compiler.ir.affine_eval import Folded, fold_source
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Value
from compiler.ir.types import MemRefType, Type, row_major_strides

IndexSide = tuple[AffineMap, Sequence[Value], Type]  # an access: its map, operands, memref type

_CODE: dict[tuple[str, str], CodeType] = {}


def compile_cached(source: str, filename: str) -> CodeType:
    """`compile(source, filename, "exec")`, memoized: the generated code of an op or a control
    program is the same in every run of a module (only the objects it is bound to differ), and
    compiling it costs more than a small run."""
    key = (source, filename)
    code = _CODE.get(key)
    if code is None:
        if len(_CODE) > 4096:
            _CODE.clear()
        code = _CODE[key] = compile(source, filename, "exec")
    return code


IndexCode = tuple[list[Value], list[str], list[str], list[bool]]  # what `index_code` returns


def lins_fn(sides: Sequence[IndexSide], code: IndexCode | None = None
            ) -> Callable[[Vals], int | tuple[int, ...]] | None:
    """`fn(vals) -> linear index per side` (a tuple for several sides), -1 for a side whose
    indices leave the memref: each side's map, bounds check and row-major linearization in
    one generated function reading its operands from `vals` (`index_code`, or `code`, its
    result for `sides`). None unless every side's memref has a static shape and the map one
    result per dimension."""
    if code is None:
        code = index_code(sides)
    if code is None:
        return None
    keys, lines, outs, _ = code
    head = "def f(vals" + "".join(f", _k{i}=_K[{i}]" for i in range(len(keys))) + "):"
    ret = f"    return {', '.join(outs)}" if len(outs) > 1 else f"    return {outs[0]}"
    ns: dict[str, object] = {"_K": keys}
    exec(compile_cached("\n".join([head, *lines, ret]), "<index function>"), ns)
    return ns["f"]  # type: ignore[return-value]


def index_code(sides: Sequence[IndexSide],
               outs: Sequence[str] | None = None) -> IndexCode | None:
    """Python statements (indented once) computing each side's linear index into `outs[j]`
    (default `x<j>`), -1 if its indices leave the memref; they read operand `k` as
    `vals[_k<k>]` (`keys[k]`) and use the local names `v<k>`, `e<k>` and the outputs.
    Constant operands and subexpressions are folded, repeated subexpressions computed
    once, and bounds checks dropped where the index's range is known to fit (e.g.
    `(i + 1) mod 2` in a dimension of 2). Returns
    (keys, lines, outputs, per output: may be -1), or None unless every side's memref has a
    static shape and its map one result per dimension."""
    keys: list[Value] = []
    where: dict[Value, Folded] = {}
    lines: list[str] = []
    names = list(outs) if outs is not None else [f"x{j}" for j in range(len(sides))]
    may_fail: list[bool] = []
    cse: dict[str, str] = {}
    for j, (m, operands, t) in enumerate(sides):
        if not isinstance(t, MemRefType) or not t.has_static_shape or m.num_results != t.rank:
            return None
        ops = []
        for v in operands:
            if v not in where:
                c = index_constant(v)
                if c is not None:
                    where[v] = (str(c), c, c)
                else:
                    where[v] = (f"v{len(keys)}", None, None)
                    lines.append(f"    v{len(keys)} = vals[_k{len(keys)}]")
                    keys.append(v)
            ops.append(where[v])
        shape = t.shape
        strides = row_major_strides(shape)  # type: ignore[arg-type]
        terms: list[str] = []
        conds: list[str] = []
        const = 0
        bad = False  # an index that is a constant outside its dimension
        for r, dim, st in zip(m.results, shape, strides):
            src, lo, hi = fold_source(r, ops, m.num_dims)
            if lo is not None and lo == hi:
                if not 0 <= lo < dim:  # type: ignore[operator]
                    bad = True
                const += lo * st
                continue
            if src.startswith("("):  # a compound expression: compute it once
                if src not in cse:
                    cse[src] = f"e{len(cse)}"
                    lines.append(f"    {cse[src]} = {src}")
                src = cse[src]
            if lo is None or hi is None or lo < 0 or hi >= dim:  # type: ignore[operator]
                conds.append(f"0 <= {src} < {dim}")
            terms.append(src if st == 1 else f"{src} * {st}")
        if const or not terms:
            terms.append(str(const))
        lin = " + ".join(terms)
        x = names[j]
        if bad:
            lines.append(f"    {x} = -1")
        elif conds:
            lines.append(f"    {x} = {lin} if {' and '.join(conds)} else -1")
        else:
            lines.append(f"    {x} = {lin}")
        may_fail.append(bad or bool(conds))
    return keys, lines, names, may_fail


def index_constant(v: Value) -> int | None:
    """The value of an index constant (the same every time it is read), else None."""
    owner = getattr(v, "owner", None)
    if isinstance(owner, O.ConstantOp) and isinstance(owner.value, int) \
            and not isinstance(owner.value, bool):
        return owner.value
    return None


def call_reader(operands: list[Value], is_buf: list[bool]
                ) -> Callable[[Vals], tuple[list[RuntimeValue], tuple[int | None, ...], bool]]:
    """A generated `fn(vals) -> (args, index-argument key, all buffers alive)` for a call."""
    n = len(operands)
    head = "def f(vals" + "".join(f", _k{i}=_K[{i}]" for i in range(n)) + "):"
    lines = [f"    a{i} = vals[_k{i}]" for i in range(n)]
    key = "".join("None, " if b else f"int(a{i}), " for i, b in enumerate(is_buf))
    alive = " and ".join(f"a{i}.alive" for i, b in enumerate(is_buf) if b) or "True"
    args = ", ".join(f"a{i}" for i in range(n))
    lines.append(f"    return [{args}], ({key}), {alive}")
    ns: dict[str, object] = {"_K": operands}
    exec(compile_cached("\n".join([head, *lines]), "<call arguments>"), ns)
    return ns["f"]  # type: ignore[return-value]
