"""The builder: how workloads and passes create IR.

Workload authors write plain Python::

    b = Builder()
    with b.func("gemm", A=memref((M, K)), B=memref((K, N)), C=memref((M, N))) as (A, B, C):
        for i in b.range(M):
            for j in b.range(N):
                for k in b.range(K):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]

Index values combine into `IndexExpr`s (no op is emitted; they become affine maps where they
are used); float and integer values emit `arith` ops on the active builder; `A[i, j]` loads
and `A[i, j] = v` stores. Every op records the Python line that built it.

Any element type works (`compiler.ir.types`: i4 ... i64, f8E4M3FN ... f64); casts are
explicit, as in MLIR (`b.extsi`, `b.truncf`, ... or `b.cast(x, T)` which picks the op)::

    with b.func("qgemm", A=memref((M, K), I8), B=memref((K, N), I4), C=memref((M, N), I32)) as (A, B, C):
        ...
                    C[i, j] = C[i, j] + b.extsi(A[i, k], I32) * b.extsi(B[k, j], I32)
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Union

from compiler.diagnostics import Location, caller_location
from compiler.ir.affine_expr import AffineExpr, Const, Dim, Sym, as_expr
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AddFOp,
    AddIOp,
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    AllocOp,
    CallOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DeallocOp,
    DivFOp,
    DivSIOp,
    ExpOp,
    FuncOp,
    LogOp,
    MaximumFOp,
    MinimumFOp,
    ModuleOp,
    MulFOp,
    MulIOp,
    NegFOp,
    ReturnOp,
    SelectOp,
    SqrtOp,
    SubFOp,
    SubIOp,
)
from compiler.ir.ops import arith as O
from compiler.ir.scope import is_valid_symbol
from compiler.ir.types import INDEX, ElementType, FunctionType, MemRefType, Type

_CURRENT: contextvars.ContextVar[Builder | None] = contextvars.ContextVar("builder", default=None)


def current_builder() -> Builder:
    b = _CURRENT.get()
    if b is None:
        raise RuntimeError("no active Builder: arithmetic on IR values needs `with b.func(...)`")
    return b


# ---- index expressions ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class IndexExpr:
    """An affine expression over index Values; `Dim(k)` stands for `operands[k]`."""

    expr: AffineExpr
    operands: tuple[Value, ...]

    @staticmethod
    def of(x: IndexLike) -> IndexExpr:
        if isinstance(x, IndexExpr):
            return x
        if isinstance(x, Value):
            if not getattr(x.type, "is_index", False):
                raise TypeError(f"affine index must be of type index, got {x.type}")
            return IndexExpr(Dim(0), (x,))
        return IndexExpr(as_expr(x), ())

    def _combine(self, other: IndexLike, fn) -> IndexExpr:  # type: ignore[no-untyped-def]
        o = IndexExpr.of(other)
        ops = list(self.operands)
        remap: list[AffineExpr] = []
        for v in o.operands:
            for k, w in enumerate(ops):
                if w is v:
                    remap.append(Dim(k))
                    break
            else:
                ops.append(v)
                remap.append(Dim(len(ops) - 1))
        return IndexExpr(fn(self.expr, o.expr.substitute(remap, ())), tuple(ops))

    def __add__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: a + b)

    def __radd__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: b + a)

    def __sub__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: a - b)

    def __rsub__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: b - a)

    def __mul__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: a * b)

    def __rmul__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: b * a)

    def __neg__(self) -> IndexExpr:
        return IndexExpr(-self.expr, self.operands)

    def __floordiv__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: a.floordiv(b))

    def ceildiv(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: a.ceildiv(b))

    def __mod__(self, o: IndexLike) -> IndexExpr:
        return self._combine(o, lambda a, b: a % b)

    # constraints for affine.if: `i >= 1`, `i < N`, `eq(i, j)`
    def __ge__(self, o: IndexLike) -> Constraint:
        return Constraint(self - o, False)

    def __le__(self, o: IndexLike) -> Constraint:
        return Constraint(IndexExpr.of(o) - self, False)

    def __gt__(self, o: IndexLike) -> Constraint:
        return Constraint(self - o - 1, False)

    def __lt__(self, o: IndexLike) -> Constraint:
        return Constraint(IndexExpr.of(o) - self - 1, False)

    def eq(self, o: IndexLike) -> Constraint:
        return Constraint(self - o, True)


IndexLike = Union[IndexExpr, Value, int]


@dataclass(frozen=True, slots=True)
class Constraint:
    """`expr >= 0`, or `expr == 0` when `is_eq`."""

    expr: IndexExpr
    is_eq: bool


def affine_map_of(exprs: Sequence[IndexLike]) -> tuple[AffineMap, list[Value]]:
    """Build one map over the union of the expressions' values: dims first, then symbols."""
    ies = [IndexExpr.of(e) for e in exprs]
    values: list[Value] = []
    for ie in ies:
        for v in ie.operands:
            if not any(v is w for w in values):
                values.append(v)
    dims = [v for v in values if not is_valid_symbol(v)]
    syms = [v for v in values if is_valid_symbol(v)]
    position: dict[int, AffineExpr] = {}
    for k, v in enumerate(dims):
        position[id(v)] = Dim(k)
    for k, v in enumerate(syms):
        position[id(v)] = Sym(k)
    results = [ie.expr.substitute([position[id(v)] for v in ie.operands], ()) for ie in ies]
    return AffineMap(len(dims), len(syms), tuple(results)), dims + syms


def integer_set_of(constraints: Sequence[Constraint]) -> tuple[IntegerSet, list[Value]]:
    m, operands = affine_map_of([c.expr for c in constraints])
    return IntegerSet(m.num_dims, m.num_symbols, m.results, tuple(c.is_eq for c in constraints)), operands


# ---- the builder ----------------------------------------------------------------------

class Builder:
    """Inserts ops at a position: the end of a block, or before a given op."""

    def __init__(self, module: ModuleOp | None = None):
        self.module = module if module is not None else ModuleOp(loc=caller_location())
        self._block: Block = self.module.body
        self._before: Operation | None = None
        self._loc: Location | None = None

    # ---- insertion point and location ------------------------------------------
    def insert(self, op: Operation) -> Operation:
        if self._before is not None:
            self._block.insert_before(self._before, op)
        else:
            term = self._block.terminator
            if term is not None and not op.IS_TERMINATOR:
                self._block.insert_before(term, op)
            else:
                self._block.append(op)
        return op

    def loc(self) -> Location:
        return self._loc if self._loc is not None else caller_location()

    @contextmanager
    def at_end(self, block: Block) -> Iterator[Builder]:
        saved = (self._block, self._before)
        self._block, self._before = block, None
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)
            self._block, self._before = saved

    @contextmanager
    def before(self, op: Operation) -> Iterator[Builder]:
        assert op.parent_block is not None
        saved = (self._block, self._before)
        self._block, self._before = op.parent_block, op
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)
            self._block, self._before = saved

    @contextmanager
    def after(self, op: Operation) -> Iterator[Builder]:
        assert op.parent_block is not None
        blk = op.parent_block
        idx = blk.index_of(op)
        nxt = blk.ops[idx + 1] if idx + 1 < len(blk.ops) else None
        if nxt is None:
            with self.at_end(blk) as b:
                yield b
        else:
            with self.before(nxt) as b:
                yield b

    @contextmanager
    def located(self, loc: Location) -> Iterator[Builder]:
        """Ops created inside take `loc` (passes: the location of the op they came from)."""
        saved = self._loc
        self._loc = loc
        try:
            yield self
        finally:
            self._loc = saved

    # ---- functions -----------------------------------------------------------------
    @contextmanager
    def func(self, name: str, results: Sequence[Type] = (), private: bool = False,
             **args: Type) -> Iterator[tuple[Value, ...]]:
        ftype = FunctionType(tuple(args.values()), tuple(results))
        f = FuncOp(name, ftype, list(args.keys()), loc=self.loc(), private=private)
        self.module.body.append(f)
        with self.at_end(f.body):
            yield tuple(f.args)
            if f.body.terminator is None:
                self.insert(ReturnOp(loc=self.loc()))

    def ret(self, values: Sequence[Value] = ()) -> None:
        self.insert(ReturnOp(values, loc=self.loc()))

    def call(self, callee: str, args: Sequence[Value], result_types: Sequence[Type] = ()) -> CallOp:
        return self.insert(CallOp(callee, args, result_types, loc=self.loc()))  # type: ignore[return-value]

    # ---- loops and conditionals ------------------------------------------------------
    def for_op(self, lo: BoundLike, hi: BoundLike, step: int = 1,
               iter_args: Sequence[Value] = (), name: str | None = None) -> AffineForOp:
        lmap, lops = affine_map_of(lo if isinstance(lo, list) else [lo])
        umap, uops = affine_map_of(hi if isinstance(hi, list) else [hi])
        op = AffineForOp(lmap, lops, umap, uops, step, iter_args, loc=self.loc(), iv_name=name)
        self.insert(op)
        if not iter_args:
            op.body.append(AffineYieldOp(loc=op.loc))
        return op

    def range(self, lo: BoundLike, hi: BoundLike | None = None, step: int = 1,
              name: str | None = None) -> Iterator[Value]:
        """`for i in b.range(N, name="i")` builds an affine.for; the Python body runs once."""
        if hi is None:
            lo, hi = 0, lo
        op = self.for_op(lo, hi, step, name=name)
        with self.at_end(op.body):
            yield op.iv

    @contextmanager
    def loop(self, lo: BoundLike, hi: BoundLike, step: int = 1,
             iter_args: Sequence[Value] = (), name: str | None = None) -> Iterator[AffineForOp]:
        """A loop with iter_args: `with b.loop(0, K, iter_args=[z]) as l:` ... `b.yield_([...])`."""
        op = self.for_op(lo, hi, step, iter_args, name=name)
        with self.at_end(op.body):
            yield op

    def yield_(self, values: Sequence[Value] = ()) -> None:
        self.insert(AffineYieldOp(values, loc=self.loc()))

    @contextmanager
    def if_(self, *conds: Constraint, results: Sequence[Type] = ()) -> Iterator[AffineIfOp]:
        iset, operands = integer_set_of(conds)
        op = AffineIfOp(iset, operands, results, loc=self.loc())
        self.insert(op)
        if not results:
            op.then_block.append(AffineYieldOp(loc=op.loc))
        with self.at_end(op.then_block):
            yield op

    @contextmanager
    def else_(self, op: AffineIfOp) -> Iterator[AffineIfOp]:
        if not op.results and op.else_block.terminator is None:
            op.else_block.append(AffineYieldOp(loc=op.loc))
        with self.at_end(op.else_block):
            yield op

    # ---- index arithmetic ---------------------------------------------------------
    def apply(self, e: IndexLike) -> Value:
        m, ops = affine_map_of([e])
        return self.insert(AffineApplyOp(m, ops, loc=self.loc())).result

    def index(self, x: IndexLike) -> Value:
        """An index Value for `x`: itself, a constant, or an affine.apply."""
        if isinstance(x, Value):
            return x
        ie = IndexExpr.of(x)
        if isinstance(ie.expr, Const):
            return self.constant(ie.expr.value, INDEX)
        if isinstance(ie.expr, Dim) and len(ie.operands) == 1:
            return ie.operands[0]
        return self.apply(ie)

    # ---- memory -------------------------------------------------------------------------
    def alloc(self, type: MemRefType, name: str | None = None) -> Value:
        return self.insert(AllocOp(type, loc=self.loc(), name_hint=name)).result

    def dealloc(self, memref: Value) -> None:
        self.insert(DeallocOp(memref, loc=self.loc()))

    def load(self, memref: Value, indices: Sequence[IndexLike]) -> Value:
        m, ops = affine_map_of(list(indices))
        return self.insert(AffineLoadOp(memref, m, ops, loc=self.loc())).result

    def store(self, value: Value | float | int, memref: Value, indices: Sequence[IndexLike]) -> None:
        mt = memref.type
        assert isinstance(mt, MemRefType)
        v = self.coerce(value, mt.element)
        m, ops = affine_map_of(list(indices))
        self.insert(AffineStoreOp(v, memref, m, ops, loc=self.loc()))

    def dma_start(self, src: Value, src_idx: Sequence[IndexLike], dst: Value,
                  dst_idx: Sequence[IndexLike], tag: Value, tag_idx: Sequence[IndexLike],
                  num_elements: IndexLike, stride: IndexLike | None = None,
                  elements_per_stride: IndexLike | None = None) -> AffineDmaStartOp:
        sm, so = affine_map_of(list(src_idx))
        dm, do = affine_map_of(list(dst_idx))
        tm, to = affine_map_of(list(tag_idx))
        n = self.index(num_elements)
        s = self.index(stride) if stride is not None else None
        e = self.index(elements_per_stride) if elements_per_stride is not None else None
        op = AffineDmaStartOp(src, sm, so, dst, dm, do, tag, tm, to, n, s, e, loc=self.loc())
        return self.insert(op)  # type: ignore[return-value]

    def dma_wait(self, tag: Value, tag_idx: Sequence[IndexLike], num_elements: IndexLike) -> None:
        tm, to = affine_map_of(list(tag_idx))
        self.insert(AffineDmaWaitOp(tag, tm, to, self.index(num_elements), loc=self.loc()))

    # ---- scalars ------------------------------------------------------------------------
    def constant(self, value: float | int | bool, type: ElementType) -> Value:
        return self.insert(ConstantOp(value, type, loc=self.loc())).result

    def coerce(self, x: Value | float | int, type: ElementType) -> Value:
        if isinstance(x, Value):
            return x
        if isinstance(x, IndexExpr):
            return self.index(x)
        return self.constant(x, type)

    def binary(self, float_cls: type, int_cls: type | None, a: ScalarLike, b: ScalarLike) -> Value:
        t = _scalar_type(a, b)
        av, bv = self.coerce(a, t), self.coerce(b, t)
        cls = float_cls if t.is_float else int_cls
        if cls is None:
            raise TypeError(f"{float_cls.NAME} has no integer form")
        return self.insert(cls(av, bv, loc=self.loc())).result

    def add(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self.binary(AddFOp, AddIOp, a, b)

    def sub(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self.binary(SubFOp, SubIOp, a, b)

    def mul(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self.binary(MulFOp, MulIOp, a, b)

    def div(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self.binary(DivFOp, DivSIOp, a, b)

    def max(self, a: ScalarLike, b: ScalarLike) -> Value:
        """`maximumf`, or `maxsi` for integers (`maxu` for `maxui`)."""
        return self.binary(MaximumFOp, O.MaxSIOp, a, b)

    def min(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self.binary(MinimumFOp, O.MinSIOp, a, b)

    # integer-only ops: MLIR's integers are signless, the op says signed or unsigned
    def _int(self, cls: type, a: ScalarLike, b: ScalarLike) -> Value:
        t = _scalar_type(a, b)
        if t.is_float:
            raise TypeError(f"{cls.NAME} takes integers, found {t}")
        return self.insert(cls(self.coerce(a, t), self.coerce(b, t), loc=self.loc())).result

    def rem(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.RemSIOp, a, b)

    def divu(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.DivUIOp, a, b)

    def remu(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.RemUIOp, a, b)

    def maxu(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.MaxUIOp, a, b)

    def minu(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.MinUIOp, a, b)

    def shl(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.ShLIOp, a, b)

    def shrs(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.ShRSIOp, a, b)

    def shru(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.ShRUIOp, a, b)

    def and_(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.AndIOp, a, b)

    def or_(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.OrIOp, a, b)

    def xor(self, a: ScalarLike, b: ScalarLike) -> Value:
        return self._int(O.XOrIOp, a, b)

    # ---- casts ----------------------------------------------------------------------------
    def _cast(self, cls: type, x: Value, to: ElementType) -> Value:
        return self.insert(cls(x, to, loc=self.loc())).result

    def extsi(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.ExtSIOp, x, to)

    def extui(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.ExtUIOp, x, to)

    def trunci(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.TruncIOp, x, to)

    def extf(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.ExtFOp, x, to)

    def truncf(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.TruncFOp, x, to)

    def sitofp(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.SIToFPOp, x, to)

    def uitofp(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.UIToFPOp, x, to)

    def fptosi(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.FPToSIOp, x, to)

    def fptoui(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.FPToUIOp, x, to)

    def bitcast(self, x: Value, to: ElementType) -> Value:
        return self._cast(O.BitcastOp, x, to)

    def cast(self, x: Value, to: ElementType, unsigned: bool = False) -> Value:
        """`x` converted to `to` by the one arith cast that does it (`x` itself when it has
        that type): ext/trunc by width, int<->float (`unsigned`: `extui`/`uitofp`/`fptoui`
        read or write the integer unsigned), index<->integer by `index_cast`."""
        s = x.type
        if not isinstance(s, ElementType):
            raise TypeError(f"cast takes a scalar, found {s}")
        if s == to:
            return x
        if s.is_index or to.is_index:
            return self._cast(O.IndexCastOp, x, to)
        if s.is_float and to.is_float:
            if s.bitwidth == to.bitwidth:
                raise TypeError(f"no arith cast converts {s} to {to} (same width: go through "
                                "f32 with extf then truncf)")
            return self.extf(x, to) if to.bitwidth > s.bitwidth else self.truncf(x, to)
        if s.is_float:
            return self.fptoui(x, to) if unsigned else self.fptosi(x, to)
        if to.is_float:
            return self.uitofp(x, to) if unsigned else self.sitofp(x, to)
        if to.bitwidth > s.bitwidth:
            return self.extui(x, to) if unsigned else self.extsi(x, to)
        return self.trunci(x, to)

    def neg(self, a: Value) -> Value:
        return self.insert(NegFOp(a, loc=self.loc())).result

    def exp(self, a: Value) -> Value:
        return self.insert(ExpOp(a, loc=self.loc())).result

    def log(self, a: Value) -> Value:
        return self.insert(LogOp(a, loc=self.loc())).result

    def sqrt(self, a: Value) -> Value:
        return self.insert(SqrtOp(a, loc=self.loc())).result

    def cmp(self, predicate: str, a: ScalarLike, b: ScalarLike) -> Value:
        t = _scalar_type(a, b)
        av, bv = self.coerce(a, t), self.coerce(b, t)
        cls = CmpFOp if t.is_float else CmpIOp
        return self.insert(cls(predicate, av, bv, loc=self.loc())).result

    def select(self, cond: Value, a: ScalarLike, b: ScalarLike) -> Value:
        t = _scalar_type(a, b)
        return self.insert(SelectOp(cond, self.coerce(a, t), self.coerce(b, t), loc=self.loc())).result


BoundLike = Union[IndexLike, list]
ScalarLike = Union[Value, float, int]


def _scalar_type(a: ScalarLike, b: ScalarLike) -> ElementType:
    for x in (a, b):
        if isinstance(x, Value):
            assert isinstance(x.type, ElementType)
            return x.type
    raise TypeError("at least one operand must be an IR value")


# ---- operator sugar on Value -----------------------------------------------------------

def _is_index_value(v: object) -> bool:
    return isinstance(v, Value) and getattr(v.type, "is_index", False) is True


def _arith(name: str, reflected: bool = False):  # type: ignore[no-untyped-def]
    def method(self: Value, other: object) -> object:
        if _is_index_value(self) or isinstance(other, IndexExpr):
            a, b = IndexExpr.of(self), other
            if reflected:
                return getattr(IndexExpr.of(other), f"__{name}__")(self)  # type: ignore[arg-type]
            return getattr(a, f"__{name}__")(b)
        bld = current_builder()
        fn = {"add": bld.add, "sub": bld.sub, "mul": bld.mul, "truediv": bld.div}[name]
        return fn(other, self) if reflected else fn(self, other)  # type: ignore[arg-type]
    return method


def _getitem(self: Value, idx: object) -> Value:
    indices = idx if isinstance(idx, tuple) else (idx,)
    return current_builder().load(self, list(indices))  # type: ignore[arg-type]


def _setitem(self: Value, idx: object, value: object) -> None:
    indices = idx if isinstance(idx, tuple) else (idx,)
    current_builder().store(value, self, list(indices))  # type: ignore[arg-type]


def _cmp(kind: str):  # type: ignore[no-untyped-def]
    pred_f = {"ge": "oge", "le": "ole", "gt": "ogt", "lt": "olt"}[kind]
    pred_i = {"ge": "sge", "le": "sle", "gt": "sgt", "lt": "slt"}[kind]

    def method(self: Value, other: object) -> object:
        if _is_index_value(self):
            return getattr(IndexExpr.of(self), f"__{kind}__")(other)
        is_float = isinstance(self.type, ElementType) and self.type.is_float
        return current_builder().cmp(pred_f if is_float else pred_i, self, other)  # type: ignore[arg-type]
    return method


def _neg(self: Value) -> object:
    if _is_index_value(self):
        return -IndexExpr.of(self)
    return current_builder().neg(self)


def _floordiv(self: Value, other: object) -> IndexExpr:
    return IndexExpr.of(self) // other  # type: ignore[operator]


def _mod(self: Value, other: object) -> IndexExpr:
    return IndexExpr.of(self) % other  # type: ignore[operator]


def _ceildiv(self: Value, other: object) -> IndexExpr:
    return IndexExpr.of(self).ceildiv(other)  # type: ignore[arg-type]


for _n in ("add", "sub", "mul", "truediv"):
    setattr(Value, f"__{_n}__", _arith(_n))
    setattr(Value, f"__r{_n}__", _arith(_n, reflected=True))
for _k in ("ge", "le", "gt", "lt"):
    setattr(Value, f"__{_k}__", _cmp(_k))
def _bitwise(name: str, reflected: bool = False):  # type: ignore[no-untyped-def]
    """`&`, `|`, `^`, `<<`, `>>` (arithmetic: `shrsi`) on integer values."""
    def method(self: Value, other: object) -> object:
        bld = current_builder()
        fn = {"and": bld.and_, "or": bld.or_, "xor": bld.xor, "lshift": bld.shl,
              "rshift": bld.shrs}[name]
        return fn(other, self) if reflected else fn(self, other)  # type: ignore[arg-type]
    return method


for _n in ("and", "or", "xor", "lshift", "rshift"):
    setattr(Value, f"__{_n}__", _bitwise(_n))
    setattr(Value, f"__r{_n}__", _bitwise(_n, reflected=True))
Value.__neg__ = _neg  # type: ignore[attr-defined]
Value.__getitem__ = _getitem  # type: ignore[attr-defined]
Value.__setitem__ = _setitem  # type: ignore[attr-defined]
Value.__floordiv__ = _floordiv  # type: ignore[attr-defined]
Value.__mod__ = _mod  # type: ignore[attr-defined]
Value.ceildiv = _ceildiv  # type: ignore[attr-defined]
