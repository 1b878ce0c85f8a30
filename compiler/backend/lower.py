"""Lower an affine-IR module to LLVM IR with llvmlite.ir's builder.

Calling convention (one LLVM function per `func.func`, named `__accel_<sym>`):
- a memref argument is a bare pointer to its first element, followed by one i64 per dynamic
  (`?`) extent, in order; the layout is row-major and contiguous;
- index/integer/float scalars are passed as themselves (index = i64);
- when the module has run-time checks (checks.needs_status: a division by a non-constant,
  or bounds-checked mode), every function takes one more, last, parameter: a pointer to the
  status record (checks.py); a failed check fills it and returns, and each call site
  returns on a filled record;
- a function returns void, its single result, or a literal struct of its results.

Before lowering, preflight.py refuses recursion, nesting deeper than a documented limit and
integer literals outside their type (located errors).

Memory spaces mean nothing on the host: every `memref.alloc`/`memref.alloca` is zero-filled,
64-byte aligned heap memory (`aligned_alloc`), `memref.dealloc` is `free`, an alloca is freed
at the end of its block. `affine.dma_start` is the strided copy it describes (CONTRACTS.md),
`affine.dma_wait` does nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llvmlite import ir

from compiler.backend.checks import CheckSite, FunctionChecks, needs_status
from compiler.backend.errors import LoweringError
from compiler.backend.interchange import plan_interchanges
from compiler.backend.llvm_types import ALIGN, I1, I8, I64, PTR, MemRefHandle, i64, memory_type, scalar_type
from compiler.backend.lower_bounds import BoundsPlan, access_site
from compiler.backend.lower_dma import lower_dma_start
from compiler.backend.lower_floats import (
    from_bits,
    is_emulated,
    round_float_result,
    round_to,
    to_bits,
    to_double,
)
from compiler.backend.preflight import check_module
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, BlockArgument, Operation, Value
from compiler.ir.ops import (
    AbsFOp,
    AddFOp,
    AddIOp,
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    AllocaOp,
    AllocOp,
    AndIOp,
    BitcastOp,
    CallOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DeallocOp,
    DimOp,
    DivFOp,
    DivSIOp,
    DivUIOp,
    ExpOp,
    ExtFOp,
    ExtSIOp,
    ExtUIOp,
    FPToSIOp,
    FPToUIOp,
    FuncOp,
    IndexCastOp,
    LogOp,
    MaximumFOp,
    MaxSIOp,
    MaxUIOp,
    MinimumFOp,
    MinSIOp,
    MinUIOp,
    ModuleOp,
    MulFOp,
    MulIOp,
    NegFOp,
    OpaqueOp,
    OrIOp,
    RemSIOp,
    RemUIOp,
    ReturnOp,
    SelectOp,
    ShLIOp,
    ShRSIOp,
    ShRUIOp,
    SIToFPOp,
    SqrtOp,
    SubFOp,
    SubIOp,
    TruncFOp,
    TruncIOp,
    UIToFPOp,
    XOrIOp,
)
from compiler.ir.ops.math_ops import LLVM as MATH_LLVM
from compiler.ir.ops.math_ops import MATH_BINARY, MATH_TERNARY, MATH_UNARY
from compiler.ir.ops.opaque import BARRIER_OP
from compiler.ir.types import ElementType, FunctionType, MemRefType, Type, VectorType


def symbol_name(sym: str) -> str:
    """LLVM name of a func.func; prefixed so no kernel name can clash with a libc symbol."""
    return f"__accel_{sym}"


@dataclass(frozen=True, slots=True)
class LoweringOptions:
    """`noalias`: memref parameters are declared not to overlap (the caller checks this).
    `fast_math`: float ops get LLVM's `fast` flags (reassociation: results change bits).
    `interchange`: reorder legal rectangular bands so a unit-stride loop is innermost
    (interchange.py; results stay bit-identical).
    `bounds_check`: every load, store and DMA checks its indices against the memref's extents
    and stops the run with an OutOfBoundsError naming the op (checks.py).
    `prove_bounds`: in bounds-checked mode, leave out the checks isl proves can never fail
    (bounds_proof.py); off only to measure what the proofs save.
    `hoist_checks`: in bounds-checked mode, check an access affine in a loop band once before
    the band (check_hoist.py) instead of at every execution; off only to measure it."""

    noalias: bool = True
    fast_math: bool = False
    interchange: bool = True
    bounds_check: bool = False
    prove_bounds: bool = True
    hoist_checks: bool = True


def llvm_param_types(t: Type) -> list[ir.Type]:
    if isinstance(t, MemRefType):
        return [PTR] + [I64 for d in t.shape if d is None]
    if isinstance(t, ElementType):
        return [scalar_type(t)]
    raise LoweringError(f"cannot pass a value of type {t} to a host function")


def llvm_return_type(ft: FunctionType) -> ir.Type:
    """Scalar results only: a memref result is one of the function's memref arguments
    (`check_memref_returns`), which the caller already holds after the call."""
    types = []
    for t in ft.results:
        if isinstance(t, MemRefType):
            continue
        if not isinstance(t, ElementType) or isinstance(t, VectorType):
            raise LoweringError(f"host functions return scalars and memref arguments only, found "
                                f"a result of type {t}")
        types.append(scalar_type(t))
    if not types:
        return ir.VoidType()
    if len(types) == 1:
        return types[0]
    return ir.LiteralStructType(types)


def lower_module(module: ModuleOp, options: LoweringOptions | None = None,
                 name: str = "accelsim", sites: list[CheckSite] | None = None,
                 preflight: bool = True) -> ir.Module:
    """Build the LLVM module for every function of `module`. The run-time checks it emits are
    appended to `sites` (a status record names one by its position there). `preflight=False`:
    the caller has run `preflight.check_module` on this module already."""
    from compiler.backend.parallel_loops import parallel_as_loops

    module = parallel_as_loops(module)
    options = options if options is not None else LoweringOptions()
    if preflight:
        check_module(module)
    sites = sites if sites is not None else []
    with_status = needs_status(module, options.bounds_check)
    llmod = ir.Module(name=name)
    funcs: dict[str, tuple[FuncOp, ir.Function]] = {}
    for f in module.funcs:
        params: list[ir.Type] = []
        for t in f.function_type.inputs:
            params += llvm_param_types(t)
        if with_status:
            params.append(PTR)  # the status record
        fnty = ir.FunctionType(llvm_return_type(f.function_type), params)
        llf = ir.Function(llmod, fnty, name=symbol_name(f.sym_name))
        funcs[f.sym_name] = (f, llf)
    noalias_ok = _noalias_safe_params(module) if options.noalias else {}
    for sym, (f, llf) in funcs.items():
        if f.is_declaration:
            continue
        # Interchange reasons about distinct memrefs as distinct memory: only when they are.
        plan = plan_interchanges(f) if options.interchange and options.noalias else {}
        _FunctionLowering(llmod, f, llf, funcs, options, noalias_ok.get(sym, set()), plan,
                          sites=sites).run()
    for sym, (f, _) in funcs.items():
        if f.is_declaration:
            raise LoweringError(f"function @{sym} is only declared; the host backend needs its body",
                                f.loc)
    return llmod


def _noalias_safe_params(module: ModuleOp) -> dict[str, set[int]]:
    """Memref params that may be `noalias`: no call site in the module passes one SSA value to two
    memref params of the callee. Distinct SSA memrefs never overlap in the noalias variant
    (arguments are checked by the caller at run time, allocations are distinct)."""
    safe = {f.sym_name: {i for i, t in enumerate(f.function_type.inputs) if isinstance(t, MemRefType)}
            for f in module.funcs}
    for op in module.walk():
        if isinstance(op, CallOp) and op.callee in safe:
            seen: dict[int, int] = {}
            for i, v in enumerate(op.operands):
                if isinstance(v.type, MemRefType):
                    if id(v) in seen:
                        safe[op.callee].discard(i)
                        safe[op.callee].discard(seen[id(v)])
                    seen[id(v)] = i
    return safe


# ---- affine expressions with MLIR's exact integer semantics -------------------------------

# (the floor/ceil quotient, the divisor) -> the divisor, after whatever check it needs
DivisorGuard = Callable[[AffineExpr, ir.Value, ir.Value], ir.Value]


def safe_divisor(b: ir.IRBuilder, d: ir.Value) -> ir.Value:
    """For callers without run-time checks (the lowering guards divisors with checks.py): a
    zero divisor becomes 1, so it computes garbage rather than trap (SIGFPE). Constant
    divisors, the usual case, pass through untouched."""
    if isinstance(d, ir.Constant):
        return d
    zero = ir.Constant(d.type, 0)
    return b.select(b.icmp_signed("==", d, zero), ir.Constant(d.type, 1), d)


def emit_floordiv(b: ir.IRBuilder, a: ir.Value, d: ir.Value) -> ir.Value:
    """floor(a / d) for any signs: truncating quotient minus one when the remainder's sign
    differs from the divisor's. `d` is nonzero (guarded by the caller)."""
    q = b.sdiv(a, d)
    r = b.srem(a, d)
    zero = i64(0)
    adjust = b.and_(b.icmp_signed("!=", r, zero),
                    b.xor(b.icmp_signed("<", r, zero), b.icmp_signed("<", d, zero)))
    return b.sub(q, b.zext(adjust, I64))


def emit_ceildiv(b: ir.IRBuilder, a: ir.Value, d: ir.Value) -> ir.Value:
    q = b.sdiv(a, d)
    r = b.srem(a, d)
    zero = i64(0)
    same_sign = b.icmp_unsigned("==", b.icmp_signed("<", r, zero), b.icmp_signed("<", d, zero))
    adjust = b.and_(b.icmp_signed("!=", r, zero), same_sign)
    return b.add(q, b.zext(adjust, I64))


def emit_mod(b: ir.IRBuilder, a: ir.Value, d: ir.Value) -> ir.Value:
    """Remainder with the divisor's sign (non-negative for a positive divisor), as MLIR."""
    r = b.srem(a, d)
    zero = i64(0)
    fix = b.and_(b.icmp_signed("!=", r, zero),
                 b.xor(b.icmp_signed("<", r, zero), b.icmp_signed("<", d, zero)))
    return b.select(fix, b.add(r, d), r)


def emit_expr(b: ir.IRBuilder, e: AffineExpr, dims: Sequence[ir.Value],
              syms: Sequence[ir.Value], guard: DivisorGuard | None = None) -> ir.Value:
    if isinstance(e, Const):
        return i64(e.value)
    if isinstance(e, Dim):
        return dims[e.pos]
    if isinstance(e, Sym):
        return syms[e.pos]
    assert isinstance(e, Binary)
    lhs = emit_expr(b, e.lhs, dims, syms, guard)
    rhs = emit_expr(b, e.rhs, dims, syms, guard)
    if e.kind == "add":
        return b.add(lhs, rhs, flags=("nsw",))
    if e.kind == "mul":
        return b.mul(lhs, rhs, flags=("nsw",))
    rhs = guard(e, lhs, rhs) if guard is not None else safe_divisor(b, rhs)
    if e.kind == "floordiv":
        return emit_floordiv(b, lhs, rhs)
    if e.kind == "ceildiv":
        return emit_ceildiv(b, lhs, rhs)
    return emit_mod(b, lhs, rhs)


def fold_minmax(b: ir.IRBuilder, values: Sequence[ir.Value], pred: str) -> ir.Value:
    """Signed min (`pred="<"`) or max (`pred=">"`) of one or more i64 values."""
    acc = values[0]
    for v in values[1:]:
        acc = b.select(b.icmp_signed(pred, v, acc), v, acc)
    return acc


# ---- one function ---------------------------------------------------------------------------

_CMPF = {"oeq": ("o", "=="), "ogt": ("o", ">"), "oge": ("o", ">="), "olt": ("o", "<"),
         "ole": ("o", "<="), "one": ("o", "!="), "ord": ("o", "ord"), "ueq": ("u", "=="),
         "ugt": ("u", ">"), "uge": ("u", ">="), "ult": ("u", "<"), "ule": ("u", "<="),
         "une": ("u", "!="), "uno": ("u", "uno")}
_CMPI = {"eq": (True, "=="), "ne": (True, "!="), "slt": (True, "<"), "sle": (True, "<="),
         "sgt": (True, ">"), "sge": (True, ">="), "ult": (False, "<"), "ule": (False, "<="),
         "ugt": (False, ">"), "uge": (False, ">=")}
_FLOAT_SUFFIX = {ir.HalfType(): "f16", ir.FloatType(): "f32", ir.DoubleType(): "f64"}


class _FunctionLowering:
    """Walks one func.func's ops in order, emitting LLVM IR at the builder's position."""

    def __init__(self, llmod: ir.Module, func: FuncOp, llfunc: ir.Function,
                 funcs: dict[str, tuple[FuncOp, ir.Function]], options: LoweringOptions,
                 noalias_params: set[int], plan: dict[AffineForOp, list[AffineForOp]] | None = None,
                 *, sites: list[CheckSite] | None = None):
        self.llmod = llmod
        self.sites: list[CheckSite] = sites if sites is not None else []
        self._checks: FunctionChecks | None = None
        self.bounds: BoundsPlan | None = None  # bounds-checked mode: which checks go where
        self.plan = plan or {}
        self.func = func
        self.llfunc = llfunc
        self.funcs = funcs
        self.options = options
        self.noalias_params = noalias_params
        self.values: dict[Value, object] = {}
        self.b = ir.IRBuilder(llfunc.append_basic_block("entry"))
        self.fmf: tuple[str, ...] = ("fast",) if options.fast_math else ()
        self.dispatch: dict[type, Callable[[Operation], None]] = {
            ConstantOp: self.constant, AffineForOp: self.for_, AffineIfOp: self.if_,
            AffineApplyOp: self.apply, AffineMinOp: self.minmax, AffineMaxOp: self.minmax,
            AffineLoadOp: self.load, AffineStoreOp: self.store,
            AffineDmaStartOp: self.dma_start, AffineDmaWaitOp: self.dma_wait,
            AllocOp: self.alloc, AllocaOp: self.alloc, DeallocOp: self.dealloc,
            DimOp: self.dim, OpaqueOp: self.opaque,
            CallOp: self.call, CmpFOp: self.cmpf, CmpIOp: self.cmpi, SelectOp: self.select,
            NegFOp: self.negf, ExpOp: self.intrinsic1, LogOp: self.intrinsic1, SqrtOp: self.intrinsic1,
            AbsFOp: self.intrinsic1,
            IndexCastOp: self.int_cast, ExtSIOp: self.int_cast, TruncIOp: self.int_cast,
            ExtUIOp: self.zext, SIToFPOp: self.int_to_float, UIToFPOp: self.int_to_float,
            FPToSIOp: self.float_to_int, FPToUIOp: self.float_to_int,
            ExtFOp: self.float_cast, TruncFOp: self.float_cast, BitcastOp: self.bitcast,
        }
        float_bin = {AddFOp: "fadd", SubFOp: "fsub", MulFOp: "fmul", DivFOp: "fdiv"}
        for cls, meth in float_bin.items():
            self.dispatch[cls] = self._float_binary(meth)
        int_bin = {AddIOp: "add", SubIOp: "sub", MulIOp: "mul", DivSIOp: "sdiv", RemSIOp: "srem",
                   DivUIOp: "udiv", RemUIOp: "urem", AndIOp: "and_", OrIOp: "or_", XOrIOp: "xor"}
        for cls, meth in int_bin.items():
            self.dispatch[cls] = self._int_binary(meth)
        for cls, meth in {ShLIOp: "shl", ShRSIOp: "ashr", ShRUIOp: "lshr"}.items():
            self.dispatch[cls] = self._shift(meth)
        for table in (MATH_UNARY, MATH_BINARY, MATH_TERNARY):
            for cls in table.values():
                self.dispatch[cls] = self.math_op
        self.dispatch[MaximumFOp] = self._float_intrinsic2("llvm.maximum")
        self.dispatch[MinimumFOp] = self._float_intrinsic2("llvm.minimum")
        self.dispatch[MaxSIOp] = self._int_minmax(">", True)
        self.dispatch[MinSIOp] = self._int_minmax("<", True)
        self.dispatch[MaxUIOp] = self._int_minmax(">", False)
        self.dispatch[MinUIOp] = self._int_minmax("<", False)

    # ---- driver -----------------------------------------------------------------------
    def run(self) -> None:
        args = iter(self.llfunc.args)
        for k, (arg, t) in enumerate(zip(self.func.args, self.func.function_type.inputs, strict=True)):
            if isinstance(t, MemRefType):
                ptr = next(args)
                ptr.name = _llvm_name(arg.name_hint, k)
                if k in self.noalias_params:
                    ptr.add_attribute("noalias")
                sizes = [i64(d) if d is not None else next(args) for d in t.shape]
                self.values[arg] = MemRefHandle(ptr, tuple(sizes), t)
            else:
                v = next(args)
                v.name = _llvm_name(arg.name_hint, k)
                self.values[arg] = v
        status = next(args, None)
        if status is not None:
            status.name = "status"
        self._checks = FunctionChecks(self.b, self.llfunc, status, self.sites)
        if self.options.bounds_check:
            permuted = {loop for head, order in self.plan.items() for loop in order if loop is not head}
            self.bounds = BoundsPlan(self.func, self.options.prove_bounds, self.options.hoist_checks,
                                     permuted)
        self.block(self.func.body)
        if not self.b.block.is_terminated:  # a body without func.return (verifier would say)
            if self.func.function_type.results:
                raise LoweringError(f"@{self.func.sym_name} has results but no func.return", self.func.loc)
            self.b.ret_void()

    def block(self, block: Block) -> list[ir.Value]:
        """Lower a block's ops; return the operands of its terminator (yield/return)."""
        allocas: list[ir.Value] = []
        for op in block.ops:
            if isinstance(op, AffineYieldOp):
                self._free(allocas)
                return [self.scalar(v) for v in op.operands]
            if isinstance(op, ReturnOp):
                self._free(allocas)
                self.ret(op)
                return []
            handler = self.dispatch.get(type(op))
            if handler is None:
                raise LoweringError(f"the host backend cannot lower '{op.NAME}'", op.loc)
            handler(op)
            if isinstance(op, AllocaOp):
                allocas.append(self.memref(op.result).ptr)
        self._free(allocas)
        return []

    def _free(self, ptrs: list[ir.Value]) -> None:
        for p in ptrs:
            self.b.call(self._libc("free", ir.VoidType(), [PTR]), [p])
        ptrs.clear()

    def scalar(self, v: Value) -> ir.Value:
        x = self.values[v]
        assert isinstance(x, ir.Value), f"{v} is not a scalar"
        return x

    def memref(self, v: Value) -> MemRefHandle:
        x = self.values[v]
        assert isinstance(x, MemRefHandle), f"{v} is not a memref"
        return x

    def _libc(self, name: str, ret: ir.Type, params: list[ir.Type]) -> ir.Function:
        fn = self.llmod.globals.get(name)
        if fn is None:
            fn = ir.Function(self.llmod, ir.FunctionType(ret, params), name=name)
        return fn  # type: ignore[return-value]

    def _intrinsic(self, name: str, ret: ir.Type, params: list[ir.Type]) -> ir.Function:
        return self._libc(name, ret, params)

    # ---- affine --------------------------------------------------------------------------
    @property
    def checks(self) -> FunctionChecks:
        assert self._checks is not None, "checks are emitted from run()"
        return self._checks

    def map_results(self, m: AffineMap | IntegerSet, operands: Sequence[Value],
                    at: Operation) -> list[ir.Value]:
        """`m` applied to `operands`; a non-constant divisor is checked, located at `at`."""
        ins = [self.scalar(v) for v in operands]
        exprs = m.results if isinstance(m, AffineMap) else m.constraints
        return [self.eval_expr(e, m.num_dims, ins, at) for e in exprs]

    def eval_expr(self, e: AffineExpr, num_dims: int, values: Sequence[ir.Value],
                  at: Operation) -> ir.Value:
        """`e` over `values` (its dims, then its symbols); divisors checked, located at `at`."""
        def guard(sub: AffineExpr, a: ir.Value, d: ir.Value) -> ir.Value:
            def site() -> int:
                return self.checks.site(CheckSite(at.NAME, at.loc, f"the affine expression {sub}", "index"))
            return self.checks.divisor(site, a, d)
        return emit_expr(self.b, e, values[:num_dims], values[num_dims:], guard)

    def for_(self, op: Operation) -> None:
        assert isinstance(op, AffineForOp)
        if self.bounds is not None:
            self.bounds.emit_before(self, op)
        order = self.plan.get(op)
        if order is not None:
            self.permuted_band(op, order)
            return
        results = self.loop(op, [self.scalar(v) for v in op.inits],
                            lambda carried: self._bind_and_lower(op, carried))
        for r, v in zip(op.results, results, strict=True):
            self.values[r] = v

    def _bind_and_lower(self, op: AffineForOp, carried: list[ir.Value]) -> list[ir.Value]:
        for v, phi in zip(op.region_iter_args, carried, strict=True):
            self.values[v] = phi
        return self.block(op.body)

    def permuted_band(self, head: AffineForOp, order: list[AffineForOp]) -> None:
        """A rectangular perfect band (no iter_args) emitted in `order` (see interchange.py)."""
        innermost = head  # the band's innermost loop in the original order
        for _ in range(len(order) - 1):
            innermost = next(o for o in innermost.body.ops if isinstance(o, AffineForOp))

        def nest(k: int) -> list[ir.Value]:
            if k == len(order):
                return self.block(innermost.body)
            return self.loop(order[k], [], lambda _: nest(k + 1))
        nest(0)

    def loop(self, op: AffineForOp, inits: list[ir.Value],
             body: Callable[[list[ir.Value]], list[ir.Value]]) -> list[ir.Value]:
        """Emit `op`'s loop skeleton; `body(carried phis)` lowers the body and returns the
        yielded values. Returns the loop's results (the carried values at exit)."""
        b = self.b
        lb = fold_minmax(b, self.map_results(op.lower_map, op.lower_operands, op), ">")
        ub = fold_minmax(b, self.map_results(op.upper_map, op.upper_operands, op), "<")
        pre = b.block
        header = self.llfunc.append_basic_block("for.header")
        body_bb = self.llfunc.append_basic_block("for.body")
        exit_ = self.llfunc.append_basic_block("for.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(I64, name="iv")
        iv.add_incoming(lb, pre)
        carried = []
        for init in inits:
            phi = b.phi(init.type)
            phi.add_incoming(init, pre)
            carried.append(phi)
        b.cbranch(b.icmp_signed("<", iv, ub), body_bb, exit_)
        b.position_at_end(body_bb)
        self.values[op.iv] = iv
        yielded = body(carried)
        nxt = b.add(iv, i64(op.step), name="iv.next", flags=("nsw",))
        latch = b.block
        b.branch(header)
        iv.add_incoming(nxt, latch)
        for phi, y in zip(carried, yielded, strict=True):
            phi.add_incoming(y, latch)
        b.position_at_end(exit_)
        return list(carried)

    def if_(self, op: Operation) -> None:
        assert isinstance(op, AffineIfOp)
        b = self.b
        cond: ir.Value = ir.Constant(I1, 1)
        exprs = self.map_results(op.condition, op.operands, op)
        for e, is_eq in zip(exprs, op.condition.eq_flags, strict=True):
            c = b.icmp_signed("==" if is_eq else ">=", e, i64(0))
            cond = b.and_(cond, c)
        then_bb = self.llfunc.append_basic_block("if.then")
        else_bb = self.llfunc.append_basic_block("if.else")
        merge = self.llfunc.append_basic_block("if.end")
        b.cbranch(cond, then_bb, else_bb)
        b.position_at_end(then_bb)
        then_vals = self.block(op.then_block)
        then_end = b.block
        b.branch(merge)
        b.position_at_end(else_bb)
        else_vals = self.block(op.else_block) if op.else_block.ops else []
        else_end = b.block
        b.branch(merge)
        b.position_at_end(merge)
        if op.results and len(else_vals) != len(op.results):
            raise LoweringError("affine.if with results needs an else block yielding them", op.loc)
        for r, tv, ev in zip(op.results, then_vals, else_vals):
            phi = b.phi(tv.type)
            phi.add_incoming(tv, then_end)
            phi.add_incoming(ev, else_end)
            self.values[r] = phi

    def dim(self, op: Operation) -> None:
        """`memref.dim`: the extent the memref carries (a constant, or its size argument)."""
        assert isinstance(op, DimOp)
        h = self.memref(op.memref)
        if not h.sizes:
            raise LoweringError("memref.dim of a rank-0 memref", op.loc)
        k = op.constant_index()
        if k is not None:
            self.values[op.result] = h.sizes[k]
            return
        idx = self.scalar(op.index)
        v = h.sizes[-1]
        for j in range(len(h.sizes) - 2, -1, -1):
            v = self.b.select(self.b.icmp_signed("==", idx, i64(j)), h.sizes[j], v)
        self.values[op.result] = v

    def opaque(self, op: Operation) -> None:
        assert isinstance(op, OpaqueOp)
        if op.op_name == BARRIER_OP:
            return  # one cluster's program alone on the host: nothing to wait for
        raise LoweringError(f"the host backend cannot lower '{op.NAME}'", op.loc)

    def apply(self, op: Operation) -> None:
        assert isinstance(op, AffineApplyOp)
        (v,) = self.map_results(op.map, op.operands, op)
        self.values[op.result] = v

    def minmax(self, op: Operation) -> None:
        assert isinstance(op, AffineMinOp | AffineMaxOp)
        vals = self.map_results(op.map, op.operands, op)
        self.values[op.result] = fold_minmax(self.b, vals, "<" if isinstance(op, AffineMinOp) else ">")

    def element_ptr(self, h: MemRefHandle, indices: Sequence[ir.Value]) -> ir.Value:
        """Row-major address of `h[indices]` (Horner form over the extents)."""
        return self.b.gep(h.ptr, [self.linear_index(h, indices)], inbounds=True,
                          source_etype=memory_type(h.type.element))

    def linear_index(self, h: MemRefHandle, indices: Sequence[ir.Value]) -> ir.Value:
        if len(indices) != len(h.sizes):
            raise LoweringError(f"{len(indices)} indices for a rank-{len(h.sizes)} memref")
        if not indices:
            return i64(0)
        lin = indices[0]
        for size, idx in zip(h.sizes[1:], indices[1:]):
            lin = self.b.add(self.b.mul(lin, size, flags=("nsw",)), idx, flags=("nsw",))
        return lin

    def access_indices(self, op: Operation, memref: Value, m: AffineMap, operands: Sequence[Value],
                       subject: str, provable: bool = True) -> list[ir.Value]:
        """The indices `op` accesses `memref` at; in bounds-checked mode checked against the
        extents: a load/store (`provable`) where lower_bounds.BoundsPlan leaves a check at the
        access, anything else (a DMA side, a tag) in every dimension."""
        h = self.memref(memref)
        idx = self.map_results(m, operands, op)
        if self.bounds is None or not idx:
            return idx
        dims = self.bounds.dims_at(op) if provable else tuple(range(len(idx)))
        if dims:
            self.checks.index(self.checks.site(access_site(op, subject, memref, h.type)), idx, h.sizes, dims)
        return idx

    def load(self, op: Operation) -> None:
        assert isinstance(op, AffineLoadOp)
        h = self.memref(op.memref)
        ptr = self.element_ptr(h, self.access_indices(op, op.memref, op.map, op.indices, "from"))
        et = h.type.element
        v = self.b.load(ptr, typ=memory_type(et))
        if et.bitwidth == 1 and not et.is_float:
            v = self.b.icmp_unsigned("!=", v, ir.Constant(I8, 0))
        elif et.bitwidth < 8 and et.is_int:
            v = self.b.trunc(v, scalar_type(et))
        elif is_emulated(et):
            v = from_bits(self.b, self.llmod, v, et)
        self.values[op.result] = v

    def store(self, op: Operation) -> None:
        assert isinstance(op, AffineStoreOp)
        h = self.memref(op.memref)
        v = self.scalar(op.value)
        et = h.type.element
        if et.bitwidth < 8 and et.is_int:  # i1 as 0/1, i4 as its nibble (ml_dtypes' layout)
            v = self.b.zext(v, I8)
        elif is_emulated(et):
            v = to_bits(self.b, self.llmod, v, et)
        self.b.store(v, self.element_ptr(h, self.access_indices(op, op.memref, op.map, op.indices, "into")))

    def dma_start(self, op: Operation) -> None:
        assert isinstance(op, AffineDmaStartOp)
        lower_dma_start(self, op, self.options.bounds_check)

    def dma_wait(self, op: Operation) -> None:
        """Copies are synchronous on the host: only the tag index is checked (checked mode)."""
        assert isinstance(op, AffineDmaWaitOp)
        if self.bounds is not None:
            self.access_indices(op, op.tag, op.tag_map, op.tag_indices, "tag", provable=False)

    # ---- memory ---------------------------------------------------------------------------
    def alloc(self, op: Operation) -> None:
        assert isinstance(op, AllocOp)
        t = op.memref_type
        dyn = iter(self.scalar(v) for v in op.operands)
        sizes = tuple(i64(d) if d is not None else next(dyn) for d in t.shape)
        b = self.b
        # aligned_alloc wants a multiple of the alignment; never ask for 0 bytes.
        rounded: ir.Value
        if t.has_static_shape:
            nb = t.size_bytes
            rounded = i64(max(ALIGN, -(-nb // ALIGN) * ALIGN))
        else:
            nbytes: ir.Value = i64(t.element.byte_width)
            for s in sizes:
                nbytes = b.mul(nbytes, s)
            rounded = b.mul(b.udiv(b.add(nbytes, i64(ALIGN - 1)), i64(ALIGN)), i64(ALIGN))
            rounded = b.select(b.icmp_unsigned("==", rounded, i64(0)), i64(ALIGN), rounded)
        fn = self._libc("aligned_alloc", PTR, [I64, I64])
        ptr = b.call(fn, [i64(ALIGN), rounded], name=op.result.name_hint or "")
        memset = self.llmod.declare_intrinsic("llvm.memset", [PTR, I64])
        b.call(memset, [ptr, ir.Constant(I8, 0), rounded, ir.Constant(I1, 0)])
        self.values[op.result] = MemRefHandle(ptr, sizes, t)

    def dealloc(self, op: Operation) -> None:
        assert isinstance(op, DeallocOp)
        self.b.call(self._libc("free", ir.VoidType(), [PTR]), [self.memref(op.memref).ptr])

    # ---- calls ----------------------------------------------------------------------------
    def call(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        if op.callee not in self.funcs:
            raise LoweringError(f"call to unknown function @{op.callee}", op.loc)
        callee, llcallee = self.funcs[op.callee]
        args: list[ir.Value] = []
        for v, t in zip(op.operands, callee.function_type.inputs, strict=True):
            if isinstance(t, MemRefType):
                h = self.memref(v)
                args.append(h.ptr)
                args += [s for s, d in zip(h.sizes, t.shape) if d is None]
            else:
                args.append(self.scalar(v))
        if self.checks.status is not None:
            args.append(self.checks.status)
        res = self.b.call(llcallee, args)
        self.checks.after_call()
        if len(op.results) == 1:
            self.values[op.results[0]] = res
        else:
            for i, r in enumerate(op.results):
                self.values[r] = self.b.extract_value(res, i)

    def ret(self, op: ReturnOp) -> None:
        for v in op.operands:
            if isinstance(v.type, MemRefType) and not (isinstance(v, BlockArgument)
                                                       and isinstance(v.block.parent_op, FuncOp)):
                raise LoweringError(f"the host returns a memref only when it is an argument of the "
                                    f"function; this {v.type} is allocated inside", op.loc)
        vals = [self.scalar(v) for v in op.operands if not isinstance(v.type, MemRefType)]
        if not vals:
            self.b.ret_void()
        elif len(vals) == 1:
            self.b.ret(vals[0])
        else:
            agg: ir.Value = ir.Constant(self.llfunc.function_type.return_type, ir.Undefined)
            for i, v in enumerate(vals):
                agg = self.b.insert_value(agg, v, i)
            self.b.ret(agg)

    # ---- arith / math ------------------------------------------------------------------
    def constant(self, op: Operation) -> None:
        assert isinstance(op, ConstantOp)
        t = op.result.type
        assert isinstance(t, ElementType)
        self.values[op.result] = ir.Constant(scalar_type(t), op.value)

    def _float_binary(self, meth: str) -> Callable[[Operation], None]:
        def lower(op: Operation) -> None:
            fn = getattr(self.b, meth)
            t = op.results[0].type
            assert isinstance(t, ElementType)
            r = fn(self.scalar(op.operands[0]), self.scalar(op.operands[1]), flags=self.fmf)
            self.values[op.results[0]] = round_float_result(self.b, self.llmod, r, t)
        return lower

    def _int_binary(self, meth: str) -> Callable[[Operation], None]:
        def lower(op: Operation) -> None:
            fn = getattr(self.b, meth)
            lhs, rhs = self.scalar(op.operands[0]), self.scalar(op.operands[1])
            if meth in ("sdiv", "srem", "udiv", "urem"):
                def site() -> int:
                    subject = ", ".join(value_text(v) for v in op.operands)
                    return self.checks.site(CheckSite(op.NAME, op.loc, subject, str(op.operands[1].type)))
                rhs = self.checks.divisor(site, lhs, rhs, signed=meth[0] == "s")
            self.values[op.results[0]] = fn(lhs, rhs)
        return lower

    def _shift(self, meth: str) -> Callable[[Operation], None]:
        """An amount >= the width (poison in MLIR) gives 0, or the sign for `shrsi`."""
        def lower(op: Operation) -> None:
            a, n = self.scalar(op.operands[0]), self.scalar(op.operands[1])
            w = a.type.width
            top = ir.Constant(a.type, w - 1)
            big = self.b.icmp_unsigned(">", n, top)
            r = getattr(self.b, meth)(a, self.b.select(big, top, n))
            if meth != "ashr":
                r = self.b.select(big, ir.Constant(a.type, 0), r)
            self.values[op.results[0]] = r
        return lower

    def _float_intrinsic2(self, base: str) -> Callable[[Operation], None]:
        def lower(op: Operation) -> None:
            a, c = self.scalar(op.operands[0]), self.scalar(op.operands[1])
            t = op.results[0].type
            assert isinstance(t, ElementType)
            fn = self._intrinsic(f"{base}.{_FLOAT_SUFFIX[a.type]}", a.type, [a.type, a.type])
            self.values[op.results[0]] = self.b.call(fn, [a, c])
        return lower

    def _int_minmax(self, pred: str, signed: bool) -> Callable[[Operation], None]:
        def lower(op: Operation) -> None:
            a, c = self.scalar(op.operands[0]), self.scalar(op.operands[1])
            cmp = self.b.icmp_signed if signed else self.b.icmp_unsigned
            self.values[op.results[0]] = self.b.select(cmp(pred, a, c), a, c)
        return lower

    def intrinsic1(self, op: Operation) -> None:
        base = {ExpOp: "llvm.exp", LogOp: "llvm.log", SqrtOp: "llvm.sqrt", AbsFOp: "llvm.fabs"}[type(op)]
        a = self.scalar(op.operands[0])
        t = op.results[0].type
        assert isinstance(t, ElementType)
        fn = self._intrinsic(f"{base}.{_FLOAT_SUFFIX[a.type]}", a.type, [a.type])
        r = self.b.call(fn, [a], fastmath=self.fmf)
        self.values[op.results[0]] = round_float_result(self.b, self.llmod, r, t)

    def math_op(self, op: Operation) -> None:
        """A `math` op of `compiler.ir.ops.math_ops`: its LLVM intrinsic, or the C library's
        function (`f` suffix for f32; f16 goes through f32); rsqrt 1 / sqrt. The value's
        register type decides (bf16/fp8 live in float registers), the result is rounded to
        the op's element type (`round_float_result`)."""
        name, intrinsic = MATH_LLVM[op.NAME]
        args = [self.scalar(v) for v in op.operands]
        t = op.results[0].type
        assert isinstance(t, ElementType)
        ty = args[0].type
        f32 = ir.FloatType()
        if name == "rsqrt":
            fn = self._intrinsic(f"llvm.sqrt.{_FLOAT_SUFFIX[ty]}", ty, [ty])
            root = self.b.call(fn, args, fastmath=self.fmf)
            got = self.b.fdiv(ir.Constant(ty, 1.0), root, flags=self.fmf)
        elif intrinsic:
            fn = self._intrinsic(f"{name}.{_FLOAT_SUFFIX[ty]}", ty, [ty] * len(args))
            got = self.b.call(fn, args, fastmath=self.fmf)
        elif ty == ir.DoubleType():
            got = self.b.call(self._libc(name, ty, [ty] * len(args)), args)
        else:
            wide = [a if ty == f32 else self.b.fpext(a, f32) for a in args]
            got = self.b.call(self._libc(f"{name}f", f32, [f32] * len(args)), wide)
            got = got if ty == f32 else self.b.fptrunc(got, ty)
        self.values[op.results[0]] = round_float_result(self.b, self.llmod, got, t)

    def negf(self, op: Operation) -> None:
        self.values[op.results[0]] = self.b.fneg(self.scalar(op.operands[0]), flags=self.fmf)

    def cmpf(self, op: Operation) -> None:
        assert isinstance(op, CmpFOp)
        a, c = self.scalar(op.operands[0]), self.scalar(op.operands[1])
        if op.predicate in ("false", "true"):
            self.values[op.result] = ir.Constant(I1, int(op.predicate == "true"))
            return
        kind, pred = _CMPF[op.predicate]
        fn = self.b.fcmp_ordered if kind == "o" else self.b.fcmp_unordered
        self.values[op.result] = fn(pred, a, c)

    def cmpi(self, op: Operation) -> None:
        assert isinstance(op, CmpIOp)
        signed, pred = _CMPI[op.predicate]
        fn = self.b.icmp_signed if signed else self.b.icmp_unsigned
        self.values[op.result] = fn(pred, self.scalar(op.operands[0]), self.scalar(op.operands[1]))

    def select(self, op: Operation) -> None:
        c, x, y = (self.scalar(v) for v in op.operands)
        self.values[op.results[0]] = self.b.select(c, x, y)

    def _result_type(self, op: Operation) -> ir.Type:
        t = op.results[0].type
        assert isinstance(t, ElementType)
        return scalar_type(t)

    def int_cast(self, op: Operation) -> None:
        v = self.scalar(op.operands[0])
        to = self._result_type(op)
        if to.width > v.type.width:
            r = self.b.sext(v, to)
        elif to.width < v.type.width:
            r = self.b.trunc(v, to)
        else:
            r = v
        self.values[op.results[0]] = r

    def zext(self, op: Operation) -> None:
        self.values[op.results[0]] = self.b.zext(self.scalar(op.operands[0]), self._result_type(op))

    def _types(self, op: Operation) -> tuple[ElementType, ElementType]:
        s, t = op.operands[0].type, op.results[0].type
        assert isinstance(s, ElementType) and isinstance(t, ElementType)
        return s, t

    def int_to_float(self, op: Operation) -> None:
        """`sitofp`/`uitofp`: the integer to double (rounded to nearest even, exact up to
        2**53), then rounded to the result type."""
        _, t = self._types(op)
        v = self.scalar(op.operands[0])
        d = (self.b.sitofp if isinstance(op, SIToFPOp) else self.b.uitofp)(v, ir.DoubleType())
        self.values[op.results[0]] = round_to(self.b, self.llmod, d, t)

    def float_to_int(self, op: Operation) -> None:
        """`fptosi`/`fptoui`: toward zero, saturating out of range, NaN to 0 (LLVM's
        `fptosi.sat`; MLIR leaves an out-of-range result poison)."""
        _, t = self._types(op)
        d = to_double(self.b, self.scalar(op.operands[0]))
        to = self._result_type(op)
        base = "llvm.fptosi.sat" if isinstance(op, FPToSIOp) else "llvm.fptoui.sat"
        fn = self._intrinsic(f"{base}.i{t.bitwidth}.f64", to, [ir.DoubleType()])
        self.values[op.results[0]] = self.b.call(fn, [d])

    def float_cast(self, op: Operation) -> None:
        """`extf` (exact) and `truncf` (to nearest even, once, from double)."""
        _, t = self._types(op)
        d = to_double(self.b, self.scalar(op.operands[0]))
        self.values[op.results[0]] = round_to(self.b, self.llmod, d, t)

    def bitcast(self, op: Operation) -> None:
        s, t = self._types(op)
        bits = to_bits(self.b, self.llmod, self.scalar(op.operands[0]), s)
        self.values[op.results[0]] = from_bits(self.b, self.llmod, bits, t)


def value_text(v: Value) -> str:
    """How a message names an SSA value: `%A` (its name in the source), else `%?`."""
    return f"%{v.name_hint}" if v.name_hint else "%?"


def _llvm_name(hint: str | None, k: int) -> str:
    if hint and hint.replace("_", "").isalnum():
        return hint
    return f"arg{k}"
