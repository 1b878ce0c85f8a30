"""Generated Python for the control program: memoized compilation, and the index code of a
DMA's or wait's sides (maps, bounds checks and row-major linearization as straight-line
statements), shared by the executor's plans and its fast path."""

from __future__ import annotations

import ast
import hashlib
import inspect
import marshal
import os
import sys
import textwrap
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
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
_SOURCES: dict[object, tuple[str, int]] = {}  # function -> (its source, dedented; first line)
_OWN_SOURCE = Path(__file__).read_text(encoding="utf-8")
# (template, literals, objects' names, splice key) -> (code, the objects it reads)
_SPECIALIZED: dict[tuple[object, ...], tuple[CodeType, tuple[str, ...]]] = {}


Splice = Callable[[], list[ast.stmt]]  # statements to splice, made only when compiling


def specialize(template: Callable[..., None], bound: Mapping[str, object],
               splices: Mapping[str, Splice] | None = None,
               splice_key: Hashable = None,
               inline: Mapping[str, object] | None = None) -> Callable[[Vals], None]:
    """`fn(vals)`: `template` (a module-level function `template(vals, name=..., ...)`, real
    code a linter, type checker and coverage see) with its other parameters bound to `bound`.
    Made from the template's own syntax tree (`ast`), not from source text: every bound
    literal (int, str, bool, None) is written into the code and the branches it decides are
    dropped (`_Fold`); other values stay parameters with defaults (fast locals); a statement
    `x = name(...)` or `name(...)` whose `name` is in `splices` is replaced by the statements
    that splice makes (e.g. a DMA's index code, `index_statements`; `splice_key` identifies
    them: they are made only when the code is compiled). The code keeps the
    template's file and line numbers (tracebacks, coverage). `inline`: a statement calling
    `name(...)` for a name here is replaced by the body of that bound method (`_inlined`:
    e.g. the machine's `start_dma`, whose `self` attributes become bound values). Compiled
    once per template, literals, splice key and inlined methods."""
    bound = dict(bound)
    splices = dict(splices or {})
    inlined = set(inline or ())
    for name, method in (inline or {}).items():
        make, values = _inlined(name, method)
        splices[name] = make
        bound.update(values)
        func = getattr(method, "__func__", method)
        splice_key = (splice_key, name, func.__module__, func.__qualname__,
                      tuple(sorted((k, v) for k, v in values.items() if type(v) in _LITERALS)))
    literals = {k: v for k, v in bound.items() if type(v) in _LITERALS}
    objects = {k: v for k, v in bound.items() if k not in literals}
    key = (template, tuple(sorted(literals.items(), key=lambda kv: kv[0])), tuple(objects),
           splice_key)
    hit = _SPECIALIZED.get(key)
    if hit is None:
        if len(_SPECIALIZED) > 4096:
            _SPECIALIZED.clear()
        stored = _StoredCode(template, key, inline or {})
        hit = stored.load()
        if hit is None:
            hit = _specialized_code(template, literals, list(objects), splices, inlined)
            stored.save(hit)
        _SPECIALIZED[key] = hit
    code, used = hit
    fn = FunctionType(code, template.__globals__, template.__name__,
                      tuple([objects[k] for k in used]))
    return fn  # type: ignore[return-value]


class _StoredCode:
    """A specialized handler's code on disk, as Python keeps a module's bytecode: under
    `$ACCELSIM_CACHE_DIR/handlers/` (default `~/.cache/accelsim`), named by the hash of
    everything it is made from — this module's and the template's and inlined methods'
    source, the literals, the bound names, the splice key, the Python build — so a new
    process (a CLI run, a sweep's worker) does not build the syntax trees again. A missing,
    unreadable or stale file is made again; `ACCELSIM_HANDLER_CACHE=0` turns it off."""

    def __init__(self, template: Callable[..., None], key: tuple[object, ...],
                 inline: Mapping[str, object]):
        self.path: str | None = None
        if os.environ.get("ACCELSIM_HANDLER_CACHE", "1") == "0":
            return
        parts = [sys.version, _OWN_SOURCE, template.__code__.co_filename,
                 _source_of(template), repr(key[1:])]
        parts += [_source_of(getattr(m, "__func__", m)) for m in inline.values()]
        digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]
        base = os.environ.get("ACCELSIM_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "accelsim")
        self.path = os.path.join(base, "handlers", digest + ".marshal")

    def load(self) -> tuple[CodeType, tuple[str, ...]] | None:
        if self.path is None:
            return None
        try:
            with open(self.path, "rb") as fh:
                code, used = marshal.load(fh)
        except (OSError, EOFError, ValueError, TypeError):
            return None
        if not isinstance(code, CodeType) or not isinstance(used, tuple):
            return None
        return code, used

    def save(self, made: tuple[CodeType, tuple[str, ...]]) -> None:
        if self.path is None:
            return
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = f"{self.path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                marshal.dump(made, fh)
            os.replace(tmp, self.path)  # atomic: a concurrent reader sees all or nothing
        except OSError:
            pass  # a read-only cache directory: made again next time


def _source_of(func: object) -> str:
    hit = _SOURCES.get(func)
    if hit is None:
        hit = _SOURCES[func] = (textwrap.dedent(inspect.getsource(func)),  # type: ignore[arg-type]
                                func.__code__.co_firstlineno)  # type: ignore[attr-defined]
    return f"{hit[1]}:{hit[0]}"


def _specialized_code(template: Callable[..., None], literals: Mapping[str, Literal],
                      objects: list[str], splices: Mapping[str, Splice],
                      inlined: set[str]) -> tuple[CodeType, tuple[str, ...]]:
    """The specialized code and the bound objects it reads (its parameters after `vals`: a
    parameter costs every call)."""
    fdef = _function_tree(template)
    tree = ast.Module([fdef], [])
    params = [a.arg for a in fdef.args.args]
    missing = set(params[1:]) - set(literals) - set(objects)
    extra = {k for k in literals if not k.startswith("_m")} - set(params)
    if params[:1] != ["vals"] or missing or extra:
        raise TypeError(f"specialize {template.__name__}: parameters {params}, bound "
                        f"{sorted([*literals, *objects])}")
    fdef.decorator_list = []
    fdef.returns = None
    fdef.body = _Fold(literals, splices, inlined).block(fdef.body)
    read = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
    used = tuple(k for k in objects if k in read)
    fdef.args = ast.arguments(posonlyargs=[], args=[ast.arg("vals"), *map(ast.arg, used)],
                              kwonlyargs=[], kw_defaults=[], defaults=[
                                  ast.Constant(None) for _ in used])
    ast.fix_missing_locations(tree)
    module_code = compile(tree, template.__code__.co_filename, "exec")
    for c in module_code.co_consts:
        if isinstance(c, CodeType) and c.co_name == template.__name__:
            return c, used
    raise AssertionError(template.__name__)


class _Fold(ast.NodeTransformer):
    """Bound literals written in, the branches they decide dropped, splices made."""

    def __init__(self, literals: Mapping[str, Literal], splices: Mapping[str, Splice],
                 inlined: set[str]):
        self.literals = literals
        self.splices = splices
        self.inlined = inlined

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
            inlined = v.func.id in self.inlined
            body = [_located(s, st, inlined) for s in self.splices[v.func.id]()]
            if inlined:  # an inlined method: its arguments bound
                body = self._arguments(v, body)
            return self.block(body)
        return None

    @staticmethod
    def _arguments(call: ast.Call, body: list[ast.stmt]) -> list[ast.stmt]:
        """An inlined method's body reading its positional arguments: a name or a constant
        written where the body reads `_m_arg<k>`, anything else assigned to it first."""
        first: list[ast.stmt] = []
        direct: dict[str, ast.expr] = {}
        for k, a in enumerate(call.args):
            if isinstance(a, (ast.Name, ast.Constant)):
                direct[f"_m_arg{k}"] = a
            else:
                first.append(ast.Assign([ast.Name(f"_m_arg{k}", ast.Store())], a,
                                        lineno=call.lineno))

        class Args(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.expr:
                a = direct.get(node.id)
                return node if a is None else ast.copy_location(_fresh(a), node)

        return first + [Args().visit(st) for st in body]

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




def _function_tree(func: Callable[..., object]) -> ast.FunctionDef:
    """A fresh syntax tree of module-level function (or method) `func`, at its lines."""
    _source_of(func)
    hit = _SOURCES[func]
    tree = ast.parse(hit[0])
    ast.increment_lineno(tree, hit[1] - 1)
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    return fdef


_INLINE: dict[object, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _inlined(name: str, method: object) -> tuple[Splice, dict[str, object]]:
    """The statements of bound method `method` (no return value) for a call `name(args)`,
    as a splice: its parameters read `_m_arg<k>` (bound by the splice), its locals renamed
    `_m_<x>`, its module's globals bound as `_mg_<x>`, `self.<attr>` a bound value
    `_ms_<attr>` (the object's attribute when the handler is made: a literal one is written
    into the code, so only attributes fixed after construction may be read this way); its
    docstring dropped. Returns (the splice, the values it binds)."""
    func = getattr(method, "__func__", None)
    owner = getattr(method, "__self__", None)
    if func is None or owner is None:
        raise TypeError(f"inline {name}: not a bound method")
    hit = _INLINE.get(func)
    if hit is None:
        _, attrs, names = _inline_body(name, func)
        hit = _INLINE[func] = (attrs, names)
    attrs, names = hit
    values: dict[str, object] = {f"_ms_{a}": getattr(owner, a) for a in attrs}
    values.update({f"_mg_{g}": func.__globals__[g] for g in names})
    return (lambda: _inline_body(name, func)[0]), values


def _inline_body(name: str, func: FunctionType) -> tuple[list[ast.stmt], tuple[str, ...],
                                                         tuple[str, ...]]:
    fdef = _function_tree(func)
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


def inline_function(func: Callable[..., None]) -> list[ast.stmt]:
    """The body of module-level function `func` as fresh syntax trees (its docstring
    dropped), at its lines, for `substitute`."""
    return [st for st in _function_tree(func).body
            if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]


def substitute(body: list[ast.stmt], names: Mapping[str, ast.Name | ast.Constant]
               ) -> list[ast.stmt]:
    """`body` (changed in place) with each name of `names` read as that name or constant."""
    class Names(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            e = names.get(node.id)
            return node if e is None else ast.copy_location(_fresh(e), node)

    return [Names().visit(st) for st in body]


def _fresh(e: ast.expr) -> ast.expr:
    """A new node for a name read or a constant."""
    if isinstance(e, ast.Name):
        return ast.Name(e.id, ast.Load())
    if isinstance(e, ast.Constant):
        return ast.Constant(e.value)
    raise TypeError(f"only names and constants are substituted, not {ast.dump(e)}")


def index_statements(code: IndexCode) -> list[ast.stmt]:
    """`index_code`'s statements as syntax trees, for `specialize`'s splices (the affine
    expressions' Python form is the affine evaluator's, `compiler.ir.affine_eval.fold_source`;
    fresh trees each call)."""
    return ast.parse(textwrap.dedent("\n".join(code[1]))).body
