"""Generated Python for the control program: memoized compilation, and the index code of a
DMA's or wait's sides (maps, bounds checks and row-major linearization as straight-line
statements), shared by the executor's plans and its fast path."""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
from collections.abc import Callable, Hashable, Mapping, Sequence
from types import CodeType, FunctionType

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


# ---- specializing a handler: its own AST, partially evaluated -----------------------------------
Literal = int | str | bool | float | None
_LITERALS = (int, str, bool, float, type(None))
_SPECIALIZED: dict[tuple[object, ...], CodeType] = {}


def specialize(template: Callable[..., None], bound: Mapping[str, object],
               splices: Mapping[str, list[ast.stmt]] | None = None,
               splice_key: Hashable = None,
               inline: Mapping[str, object] | None = None) -> Callable[[Vals], None]:
    """`fn(vals)`: `template` (a module-level function `template(vals, name=..., ...)`, real
    code a linter, type checker and coverage see) with its other parameters bound to `bound`.
    Made from the template's own syntax tree (`ast`), not from source text: every bound
    literal (int, str, bool, None) is written into the code and the branches it decides are
    dropped (`_Fold`); other values stay parameters with defaults (fast locals); a statement
    `x = name(vals)` whose `name` is in `splices` is replaced by those statements (e.g. a
    DMA's index code, `index_statements`; `splice_key` identifies them). The code keeps the
    template's file and line numbers (tracebacks, coverage). `inline`: a statement calling
    `name(...)` for a name here is replaced by the body of that bound method (`_inlined`:
    e.g. the machine's `start_dma`, whose `self` attributes become bound values). Compiled
    once per template, literals, splice key and inlined methods."""
    bound = dict(bound)
    splices = dict(splices or {})
    for name, method in (inline or {}).items():
        stmts, values = _inlined(name, method)
        splices[name] = stmts
        bound.update(values)
        splice_key = (splice_key, name, getattr(method, "__func__", method),
                      tuple(sorted((k, v) for k, v in values.items() if type(v) in _LITERALS)))
    literals = {k: v for k, v in bound.items() if type(v) in _LITERALS}
    objects = {k: v for k, v in bound.items() if k not in literals}
    key = (template, tuple(sorted(literals.items(), key=lambda kv: kv[0])), tuple(objects),
           splice_key)
    code = _SPECIALIZED.get(key)
    if code is None:
        if len(_SPECIALIZED) > 4096:
            _SPECIALIZED.clear()
        code = _SPECIALIZED[key] = _specialized_code(template, literals, list(objects),
                                                     splices or {})
    fn = FunctionType(code, template.__globals__, template.__name__,
                      tuple(objects.values()))
    return fn  # type: ignore[return-value]


def _specialized_code(template: Callable[..., None], literals: Mapping[str, Literal],
                      objects: list[str], splices: Mapping[str, list[ast.stmt]]) -> CodeType:
    source = inspect.getsource(template)
    first = template.__code__.co_firstlineno
    tree = ast.parse(textwrap.dedent(source))
    ast.increment_lineno(tree, first - 1)
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    params = [a.arg for a in fdef.args.args]
    missing = set(params[1:]) - set(literals) - set(objects)
    extra = {k for k in literals if not k.startswith("_m")} - set(params)
    if params[:1] != ["vals"] or missing or extra:
        raise TypeError(f"specialize {template.__name__}: parameters {params}, bound "
                        f"{sorted([*literals, *objects])}")
    fdef.decorator_list = []
    fdef.args = ast.arguments(posonlyargs=[], args=[ast.arg("vals"), *map(ast.arg, objects)],
                              kwonlyargs=[], kw_defaults=[], defaults=[
                                  ast.Constant(None) for _ in objects])
    fdef.body = _Fold(literals, splices).block(fdef.body)
    ast.fix_missing_locations(tree)
    module_code = compile(tree, template.__code__.co_filename, "exec")
    for c in module_code.co_consts:
        if isinstance(c, CodeType) and c.co_name == template.__name__:
            return c
    raise AssertionError(template.__name__)


class _Fold(ast.NodeTransformer):
    """Bound literals written in, the branches they decide dropped, splices made."""

    def __init__(self, literals: Mapping[str, Literal], splices: Mapping[str, list[ast.stmt]]):
        self.literals = literals
        self.splices = splices

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.literals:
            return ast.copy_location(ast.Constant(self.literals[node.id]), node)
        return node

    def block(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for st in body:
            spliced = self._splice(st)
            if spliced is not None:
                out += spliced
                continue
            if isinstance(st, ast.If):
                test = self.visit(st.test)
                known, value = _value(test)
                if known:
                    out += self.block(st.body if value else st.orelse)
                    continue
                st.test = test
                st.body = self.block(st.body) or [ast.Pass()]
                st.orelse = self.block(st.orelse)
                out.append(st)
                continue
            for name in ("body", "orelse"):  # loops
                if isinstance(getattr(st, name, None), list):
                    setattr(st, name, self.block(getattr(st, name)))
            for field, old in ast.iter_fields(st):
                if isinstance(old, ast.expr):
                    setattr(st, field, self.visit(old))
                elif isinstance(old, list) and field not in ("body", "orelse"):
                    setattr(st, field, [self.visit(x) if isinstance(x, ast.AST) else x
                                        for x in old])
            out.append(st)
        return out

    def _splice(self, st: ast.stmt) -> list[ast.stmt] | None:
        v = st.value if isinstance(st, (ast.Assign, ast.Expr)) else None
        if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                and v.func.id in self.splices):
            inlined = isinstance(st, ast.Expr)
            body = [_located(copy.deepcopy(s), st, inlined) for s in self.splices[v.func.id]]
            if isinstance(st, ast.Expr) and v.args:  # an inlined method: its arguments first
                body = self._arguments(v) + body
            return self.block(body)
        return None

    def _arguments(self, call: ast.Call) -> list[ast.stmt]:
        """`_m_<k> = <argument k>` for an inlined method's positional arguments."""
        return [ast.Assign([ast.Name(f"_m_arg{k}", ast.Store())], a, lineno=call.lineno)
                for k, a in enumerate(call.args)]

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        test = self.visit(node.test)
        known, value = _value(test)
        if known:
            return self.visit(node.body if value else node.orelse)  # type: ignore[no-any-return]
        node.test, node.body, node.orelse = test, self.visit(node.body), self.visit(node.orelse)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        values = [self.visit(v) for v in node.values]
        kept = []
        for v in values:
            known, value = _value(v)
            if not known:
                kept.append(v)
            elif isinstance(node.op, ast.And) and not value:
                return ast.copy_location(ast.Constant(False), node)
            elif isinstance(node.op, ast.Or) and value:
                return ast.copy_location(ast.Constant(True), node)
        if not kept:
            return ast.copy_location(ast.Constant(isinstance(node.op, ast.And)), node)
        if len(kept) == 1:
            return kept[0]
        node.values = kept
        return node


def _value(node: ast.expr) -> tuple[bool, object]:
    """(known, value) of an expression of literals: a constant, `not`, `is` / `is not` /
    comparisons of constants; anything else unknown."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        known, v = _value(node.operand)
        return known, (not v) if known else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        (lk, lv), (rk, rv) = _value(node.left), _value(node.comparators[0])
        if lk and rk:
            op = node.ops[0]
            table = {ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
                     ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                     ast.Lt: lambda a, b: a < b, ast.Gt: lambda a, b: a > b,
                     ast.LtE: lambda a, b: a <= b, ast.GtE: lambda a, b: a >= b}
            f = table.get(type(op))
            if f is not None:
                return True, f(lv, rv)
    return False, None


def _located(node: ast.stmt, at: ast.stmt, force: bool) -> ast.stmt:
    """`node` at the line of `at` (`force`: an inlined method's statements, from another
    file) or where it has no line."""
    for n in ast.walk(node):
        if "lineno" in n._attributes and (force or not hasattr(n, "lineno")):
            n.lineno = n.end_lineno = at.lineno  # type: ignore[attr-defined]
    return node


_INLINE: dict[object, tuple[list[ast.stmt], tuple[str, ...], tuple[str, ...]]] = {}


def _inlined(name: str, method: object) -> tuple[list[ast.stmt], dict[str, object]]:
    """The statements of bound method `method` (no return value) for a call `name(args)`:
    its parameters read `_m_arg<k>` (assigned by the splice), its locals renamed `_m_<x>`,
    its module's globals bound as `_mg_<x>`, `self.<attr>` a bound value `_ms_<attr>` (the
    object's attribute when the handler is made: a literal one is written into the code, so
    only attributes fixed after construction may be read this way); its docstring dropped.
    The statements are made once per method's function."""
    func = getattr(method, "__func__", None)
    owner = getattr(method, "__self__", None)
    if func is None or owner is None:
        raise TypeError(f"inline {name}: not a bound method")
    hit = _INLINE.get(func)
    if hit is None:
        hit = _INLINE[func] = _inline_body(name, func)
    body, attrs, names = hit
    values: dict[str, object] = {f"_ms_{a}": getattr(owner, a) for a in attrs}
    values.update({f"_mg_{g}": func.__globals__[g] for g in names})
    return body, values


def _inline_body(name: str, func: FunctionType) -> tuple[list[ast.stmt], tuple[str, ...],
                                                         tuple[str, ...]]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    ast.increment_lineno(tree, func.__code__.co_firstlineno - 1)
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    params = [a.arg for a in fdef.args.args]
    locals_ = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)
               and isinstance(n.ctx, ast.Store)} - set(params)
    if any(isinstance(n, (ast.Return, ast.Yield, ast.Lambda, ast.FunctionDef))
           for n in ast.walk(fdef) if n is not fdef):
        raise TypeError(f"inline {name}: returns or nests a function")
    arg_of = {p: f"_m_arg{k}" for k, p in enumerate(params[1:])}
    attrs: dict[str, None] = {}
    names: dict[str, None] = {}

    class Rename(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
            if isinstance(node.value, ast.Name) and node.value.id == params[0]:
                attrs[node.attr] = None
                return ast.copy_location(ast.Name(f"_ms_{node.attr}", node.ctx), node)
            self.generic_visit(node)
            return node

        def visit_Name(self, node: ast.Name) -> ast.Name:
            if node.id in arg_of:
                node.id = arg_of[node.id]
            elif node.id in locals_:
                node.id = f"_m_{node.id}"
            elif node.id in func.__globals__:  # the method's module's name, bound
                names[node.id] = None
                node.id = f"_mg_{node.id}"
            return node

    body = [Rename().visit(st) for st in fdef.body
            if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    return body, tuple(attrs), tuple(names)


_INDEX_TREES: dict[tuple[str, ...], list[ast.stmt]] = {}


def index_statements(code: IndexCode) -> list[ast.stmt]:
    """`index_code`'s statements as syntax trees, for `specialize`'s splices (the affine
    expressions' Python form is the affine evaluator's, `compiler.ir.affine_eval.fold_source`;
    `specialize` copies what it splices). Made once per index code."""
    lines = tuple(code[1])
    hit = _INDEX_TREES.get(lines)
    if hit is None:
        if len(_INDEX_TREES) > 4096:
            _INDEX_TREES.clear()
        hit = _INDEX_TREES[lines] = ast.parse(textwrap.dedent("\n".join(lines))).body
    return hit
