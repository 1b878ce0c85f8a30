"""Print one IR function as the same loop nest in C (for gcc) and in Python (for numba @njit).

Bench-only: the peers must run exactly the loops our backend compiles, so both are generated
from the IR instead of written by hand. Covers what the benchmarked kernels use: loops with
max/min bounds, steps and iter_args, affine.if, loads/stores, affine.apply/min/max, constants,
arith/math scalar ops. Memrefs become `restrict` pointers in C (the same no-overlap promise the
backend's `noalias` makes) and C-contiguous arrays in numba.
"""

from __future__ import annotations

from compiler.ir import (
    AffineApplyOp,
    AffineExpr,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    Binary,
    Block,
    CmpFOp,
    CmpIOp,
    Const,
    ConstantOp,
    Dim,
    FuncOp,
    MemRefType,
    Operation,
    ReturnOp,
    SelectOp,
    Value,
)
from compiler.ir.types import ElementType

_C_TYPES = {"f32": "float", "f64": "double", "i32": "int32_t", "i64": "int64_t", "index": "int64_t",
            "i1": "int", "i8": "int8_t", "i16": "int16_t"}
_BIN = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/",
        "arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
_CMP = {"oeq": "==", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=",
        "eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">="}

C_PRELUDE = """#include <stdint.h>
#include <math.h>
static inline int64_t fdiv(int64_t a, int64_t b) {
    int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int64_t cdiv(int64_t a, int64_t b) {
    int64_t q = a / b; return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q; }
static inline int64_t pmod(int64_t a, int64_t b) {
    int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
"""


class _Emitter:
    def __init__(self, lang: str):
        self.lang = lang
        self.names: dict[int, str] = {}
        self.lines: list[str] = []
        self.depth = 1
        self._sym_base = 0

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            self.names[key] = f"v{len(self.names)}"
        return self.names[key]

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    # ---- expressions ----------------------------------------------------------------
    def expr(self, e: AffineExpr, ins: list[str]) -> str:
        if isinstance(e, Const):
            return str(e.value)
        if isinstance(e, Dim):
            return ins[e.pos]
        if not isinstance(e, Binary):  # a symbol: after the map's dims
            return ins[self._sym_base + e.pos]
        a, b = self.expr(e.lhs, ins), self.expr(e.rhs, ins)
        if e.kind == "add":
            return f"({a} + {b})"
        if e.kind == "mul":
            return f"({a} * {b})"
        if self.lang == "py":
            return {"floordiv": f"({a} // {b})", "ceildiv": f"(-((-{a}) // {b}))",
                    "mod": f"({a} % {b})"}[e.kind]
        return {"floordiv": f"fdiv({a}, {b})", "ceildiv": f"cdiv({a}, {b})", "mod": f"pmod({a}, {b})"}[e.kind]

    def map_values(self, m, operands: list[Value]) -> list[str]:  # type: ignore[no-untyped-def]
        ins = [self.name(v) for v in operands]
        self._sym_base = m.num_dims
        exprs = m.results if hasattr(m, "results") else m.constraints
        return [self.expr(e, ins) for e in exprs]

    def fold(self, vals: list[str], fn: str) -> str:
        acc = vals[0]
        for v in vals[1:]:
            acc = f"{fn}({acc}, {v})" if self.lang == "py" else f"i{fn}({acc}, {v})"
        return acc

    def access(self, memref: Value, m, indices: list[Value]) -> str:  # type: ignore[no-untyped-def]
        idx = self.map_values(m, indices)
        t = memref.type
        assert isinstance(t, MemRefType)
        if self.lang == "py":
            return f"{self.name(memref)}[{', '.join(idx) if idx else '0'}]"
        lin = idx[0] if idx else "0"
        for size, i in zip(t.shape[1:], idx[1:]):
            lin = f"({lin}) * {size} + {i}"
        return f"{self.name(memref)}[{lin}]"

    def const(self, value: float | int, t: ElementType) -> str:
        if not t.is_float:
            return str(int(value))
        if self.lang == "py":
            return f"np.{t.numpy_dtype.name}({float(value)!r})"
        return f"(({_C_TYPES[t.name]}){float(value).hex()})"

    # ---- statements -------------------------------------------------------------------
    def declare(self, v: Value, rhs: str) -> None:
        if self.lang == "py":
            self.line(f"{self.name(v)} = {rhs}")
        else:
            self.line(f"{_C_TYPES[v.type.name]} {self.name(v)} = {rhs};")  # type: ignore[union-attr]

    def assign(self, name: str, rhs: str) -> None:
        self.line(f"{name} = {rhs}" + ("" if self.lang == "py" else ";"))

    def block(self, blk: Block) -> list[Value]:
        for op in blk.ops:
            if isinstance(op, AffineYieldOp | ReturnOp):
                return list(op.operands)
            self.op(op)
        return []

    def op(self, op: Operation) -> None:
        py = self.lang == "py"
        if isinstance(op, AffineForOp):
            lb = self.fold(self.map_values(op.lower_map, op.lower_operands), "max")
            ub = self.fold(self.map_values(op.upper_map, op.upper_operands), "min")
            carried = [self.name(a) for a in op.region_iter_args]
            for r, a, init in zip(op.results, op.region_iter_args, op.inits, strict=True):
                self.declare(a, self.name(init))
                self.names[id(r)] = self.name(a)
            iv = self.name(op.iv)
            if py:
                self.line(f"for {iv} in range({lb}, {ub}, {op.step}):")
            else:
                self.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {op.step}) {{")
            self.depth += 1
            yielded = self.block(op.body)
            for c, y in zip(carried, yielded, strict=True):
                self.assign(c, self.name(y))
            if py and not op.body.ops[:-1] and not yielded:
                self.line("pass")
            self.depth -= 1
            if not py:
                self.line("}")
        elif isinstance(op, AffineIfOp):
            conds = [f"({c} {'==' if eq else '>='} 0)" for c, eq in
                     zip(self.map_values(op.condition, op.operands), op.condition.eq_flags, strict=True)]
            cond = (" and " if py else " && ").join(conds) or ("True" if py else "1")
            for r in op.results:
                self.declare(r, "0")
            self.line(f"if {cond}:" if py else f"if ({cond}) {{")
            self.depth += 1
            if py:
                self.line("pass")
            for r, y in zip(op.results, self.block(op.then_block)):
                self.assign(self.name(r), self.name(y))
            self.depth -= 1
            self.line("else:" if py else "} else {")
            self.depth += 1
            if py:
                self.line("pass")
            for r, y in zip(op.results, self.block(op.else_block)):
                self.assign(self.name(r), self.name(y))
            self.depth -= 1
            if not py:
                self.line("}")
        elif isinstance(op, AffineLoadOp):
            self.declare(op.result, self.access(op.memref, op.map, op.indices))
        elif isinstance(op, AffineStoreOp):
            self.assign(self.access(op.memref, op.map, op.indices), self.name(op.value))
        elif isinstance(op, AffineApplyOp):
            self.declare(op.result, self.map_values(op.map, op.operands)[0])
        elif isinstance(op, AffineMinOp | AffineMaxOp):
            fn = "min" if isinstance(op, AffineMinOp) else "max"
            self.declare(op.result, self.fold(self.map_values(op.map, op.operands), fn))
        elif isinstance(op, ConstantOp):
            self.declare(op.result, self.const(op.value, op.result.type))  # type: ignore[arg-type]
        elif op.NAME in _BIN:
            a, b = (self.name(v) for v in op.operands)
            self.declare(op.results[0], f"{a} {_BIN[op.NAME]} {b}")
        elif op.NAME in ("arith.maximumf", "arith.minimumf"):
            a, b = (self.name(v) for v in op.operands)
            cmp = ">" if op.NAME == "arith.maximumf" else "<"
            self.declare(op.results[0], f"({a} if {a} {cmp} {b} or {a} != {a} else {b})" if py
                         else f"(({a} {cmp} {b} || {a} != {a}) ? {a} : {b})")
        elif op.NAME in ("math.exp", "math.sqrt", "math.absf", "arith.negf"):
            a = self.name(op.operands[0])
            t = op.results[0].type
            if op.NAME == "arith.negf":
                rhs = f"-{a}"
            elif py:
                rhs = f"np.{ {'math.exp': 'exp', 'math.sqrt': 'sqrt', 'math.absf': 'abs'}[op.NAME]}({a})"
            else:
                suffix = "f" if t.name == "f32" else ""  # type: ignore[union-attr]
                fn = {"math.exp": "exp", "math.sqrt": "sqrt", "math.absf": "fabs"}[op.NAME]
                rhs = f"{fn}{suffix}({a})"
            self.declare(op.results[0], rhs)
        elif isinstance(op, CmpFOp | CmpIOp):
            a, b = (self.name(v) for v in op.operands)
            self.declare(op.result, f"({a} {_CMP[op.predicate]} {b})")
        elif isinstance(op, SelectOp):
            c, a, b = (self.name(v) for v in op.operands)
            self.declare(op.results[0], f"({a} if {c} else {b})" if py else f"({c} ? {a} : {b})")
        else:
            raise NotImplementedError(f"bench emitter: {op.NAME}")


def emit_c(func: FuncOp) -> str:
    """`void NAME(T *restrict a0, ...)` with the function's loops."""
    e = _Emitter("c")
    params = []
    for a, t in zip(func.args, func.function_type.inputs, strict=True):
        assert isinstance(t, MemRefType) and t.has_static_shape, f"bench emitter: {t}"
        params.append(f"{_C_TYPES[t.element.name]} *restrict {e.name(a)}")
    e.block(func.body)
    body = "\n".join(e.lines)
    return f"{C_PRELUDE}\nvoid {func.sym_name}({', '.join(params)}) {{\n{body}\n}}\n"


def emit_python(func: FuncOp) -> str:
    """`def NAME(a0, ...)` over numpy arrays with the function's loops (for numba.njit)."""
    e = _Emitter("py")
    params = [e.name(a) for a in func.args]
    e.block(func.body)
    body = "\n".join(e.lines) or "    pass"
    return f"import numpy as np\n\ndef {func.sym_name}({', '.join(params)}):\n{body}\n"
