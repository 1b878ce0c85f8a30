"""IR invariants, checked after parsing and after every pass.

`verify(module)` raises VerifyError at the first broken rule, with the offending op's Location:
structure (terminators, one function per symbol), dominance (every operand defined before its
use, in an enclosing block), affine rules (dim and symbol operands valid where they are used,
pure affine maps, index count equal to the memref rank), types (stores, arithmetic, yields,
calls, returns) and well-formed DMA operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compiler.diagnostics import VerifyError
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, BlockArgument, Operation, Value
from compiler.ir.linalg_verify import (
    generic_problem,
    index_problem,
    named_problem,
    yield_problem,
)
from compiler.ir.ops import (
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineParallelOp,
    AffineStoreOp,
    AffineYieldOp,
    AllocOp,
    BinaryOp,
    BitcastOp,
    CallOp,
    CastOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DeallocOp,
    DimOp,
    ExtFOp,
    ExtSIOp,
    ExtUIOp,
    FPToSIOp,
    FPToUIOp,
    FuncOp,
    IndexCastOp,
    ModuleOp,
    OpaqueOp,
    ReturnOp,
    SelectOp,
    SIToFPOp,
    TernaryOp,
    TruncFOp,
    TruncIOp,
    UIToFPOp,
    UnaryOp,
)
from compiler.ir.ops.linalg import GenericOp, LinalgIndexOp, LinalgYieldOp, NamedLinalgOp
from compiler.ir.scope import is_valid_dim, is_valid_symbol
from compiler.ir.types import I1, INDEX, ElementType, MemRefType, Type, VectorType


def verify(module: ModuleOp) -> None:
    """Raise VerifyError (with the op's Location) at the first invariant `module` breaks."""
    _Verifier(module).run()


def _name(v: Value) -> str:
    """How an error message refers to a value: its SSA name, else what defines it."""
    if v.name_hint:
        return f"%{v.name_hint}"
    if isinstance(v, BlockArgument):
        parent = v.block.parent_op
        if isinstance(parent, AffineForOp):
            what = "the induction variable" if v.index == 0 else f"iter_arg #{v.index - 1}"
            return f"{what} of the affine.for at {parent.loc}"
        if isinstance(parent, FuncOp):
            return f"argument #{v.index} of @{parent.sym_name}"
        return f"block argument #{v.index}"
    owner = getattr(v, "owner", None)
    if owner is None:
        return "a value"
    return f"result #{v.index} of the {owner.NAME} at {owner.loc}"  # type: ignore[attr-defined]


def _first_violation(e: AffineExpr, rule: Callable[[Binary], str | None]
                     ) -> tuple[AffineExpr, str] | None:
    """The first sub-expression (innermost first, left to right) that `rule` rejects, and why."""
    if not isinstance(e, Binary):
        return None
    for side in (e.lhs, e.rhs):
        found = _first_violation(side, rule)
        if found is not None:
            return found
    why = rule(e)
    return None if why is None else (e, why)


def _affine_rule(e: Binary) -> str | None:
    if e.kind == "add":
        return None
    if e.kind == "mul":
        if isinstance(e.lhs, Const) or isinstance(e.rhs, Const):
            return None
        ld, rd = _has_dim(e.lhs), _has_dim(e.rhs)
        if ld and rd:
            return "a product of two dims is not affine"
        if ld or rd:
            return "a product of a dim and a symbol is not affine"
        return "a product of two symbols is not affine"
    if not isinstance(e.rhs, Const):
        return f"'{e.kind}' by a non-constant is not affine"
    if e.rhs.value <= 0:
        return f"'{e.kind}' by a non-positive constant ({e.rhs.value}) is not affine"
    return None


def _semi_affine_rule(e: Binary) -> str | None:
    if e.kind == "add":
        return None
    if e.kind == "mul":
        return "a product of two dims is not affine" if _has_dim(e.lhs) and _has_dim(e.rhs) else None
    if _has_dim(e.rhs):
        return f"'{e.kind}' by an expression of dims is not affine"
    if isinstance(e.rhs, Const) and e.rhs.value <= 0:
        return f"'{e.kind}' by a non-positive constant ({e.rhs.value}) is not affine"
    return None


def non_affine_reason(e: AffineExpr) -> tuple[AffineExpr, str] | None:
    """The first sub-expression that is not pure affine, and why; None if `e` is affine."""
    return _first_violation(e, _affine_rule)


def semi_affine_reason(e: AffineExpr) -> tuple[AffineExpr, str] | None:
    """The first sub-expression that is not even semi-affine (MLIR's rule: one factor of a
    product, and the divisor of floordiv/ceildiv/mod, must be symbolic), and why."""
    return _first_violation(e, _semi_affine_rule)


def _has_dim(e: AffineExpr) -> bool:
    return any(isinstance(a, Dim) for a in e.atoms())


class _Verifier:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.funcs: dict[str, FuncOp] = {}
        self.visible: list[set[int]] = []

    def fail(self, op: Operation, message: str) -> VerifyError:
        return VerifyError(f"'{op.NAME}' op {message}", op.loc)

    # ---- structure and dominance -------------------------------------------------------
    def run(self) -> None:
        m = self.module
        if len(m.blocks) != 1:
            raise self.fail(m, f"must have exactly one body block, found {len(m.blocks)}")
        for op in m.body.ops:
            if isinstance(op, OpaqueOp) and op.NAME == "memref.global":
                continue
            if not isinstance(op, FuncOp):
                raise self.fail(op, "is not allowed at module level (only func.func and "
                                    "memref.global)")
            if op.sym_name in self.funcs:
                raise self.fail(op, f"redefines symbol '@{op.sym_name}'")
            self.funcs[op.sym_name] = op
        for f in m.funcs:
            self.verify_func(f)

    def verify_func(self, f: FuncOp) -> None:
        if f.is_declaration:
            return
        if len(f.blocks) != 1:
            raise self.fail(f, f"must have one body block, found {len(f.blocks)}")
        args = f.body.args
        ins = f.function_type.inputs
        if len(args) != len(ins) or any(a.type != t for a, t in zip(args, ins, strict=False)):
            raise self.fail(f, f"entry block arguments ({', '.join(str(a.type) for a in args)}) "
                               f"do not match the function type {f.function_type}")
        self.visible = []  # functions are isolated from above
        self.verify_block(f.body, f, ReturnOp)

    def verify_block(self, block: Block, parent: Operation, terminator: type) -> None:
        if block.parent_op is not parent:
            raise self.fail(parent, "owns a block whose parent link points elsewhere")
        self.visible.append({id(a) for a in block.args})
        try:
            if not block.ops or not isinstance(block.ops[-1], terminator):
                found = f"'{block.ops[-1].NAME}'" if block.ops else "an empty block"
                raise self.fail(parent, f"region must end with '{terminator.NAME}', found {found}")
            last = len(block.ops) - 1
            for k, op in enumerate(block.ops):
                if op.parent_block is not block:
                    raise self.fail(op, "has a parent link that does not match its block")
                if op.IS_TERMINATOR and k != last:
                    raise self.fail(op, "is a terminator but is not the last op of its block")
                for v in op.operands:
                    if not any(id(v) in scope for scope in self.visible):
                        raise self.fail(op, f"uses {_name(v)} ({v.type}) before its definition, or "
                                            f"outside the region that defines it")
                self.verify_op(op)
                for b in op.blocks:
                    self.verify_nested(op, b)
                self.visible[-1].update(id(r) for r in op.results)
        finally:
            self.visible.pop()

    def verify_nested(self, op: Operation, block: Block) -> None:
        if isinstance(op, AffineIfOp) and block is op.else_block and not block.ops:
            if op.results:
                raise self.fail(op, f"has {len(op.results)} result(s), so it needs an else block")
            return
        if isinstance(op, AffineForOp | AffineIfOp | AffineParallelOp):
            self.verify_block(block, op, AffineYieldOp)
        elif isinstance(op, GenericOp):
            self.verify_block(block, op, LinalgYieldOp)
        elif isinstance(op, FuncOp):
            raise self.fail(op, "nested functions are not supported")
        else:
            raise self.fail(op, "has an unexpected region")

    # ---- per-op rules ----------------------------------------------------------------------
    def verify_op(self, op: Operation) -> None:
        rule = _RULES.get(type(op))
        if rule is None:
            for cls in type(op).__mro__:
                rule = _RULES.get(cls)
                if rule is not None:
                    break
        if rule is None:
            raise self.fail(op, "has no verifier rule (unknown op class)")
        rule(self, op)

    # affine helpers
    def check_map_operands(self, op: Operation, m: AffineMap | IntegerSet, operands: Sequence[Value],
                           what: str) -> None:
        if len(operands) != m.num_inputs:
            raise self.fail(op, f"{what} takes {m.num_inputs} operand(s) ({m.num_dims} dims, "
                                f"{m.num_symbols} symbols) but has {len(operands)}")
        for k, v in enumerate(operands):
            if v.type != INDEX:
                raise self.fail(op, f"{what} operand {_name(v)} must have type index, found {v.type}")
            if k < m.num_dims:
                if not is_valid_dim(v):
                    raise self.fail(op, f"{what} operand {_name(v)} is used as a dim (d{k}) but is not "
                                        f"a valid dim (a loop induction variable, a top-level value, "
                                        f"or affine.apply of those)")
            elif not is_valid_symbol(v):
                raise self.fail(op, f"{what} operand {_name(v)} is used as a symbol "
                                    f"(s{k - m.num_dims}) but is not a valid symbol (a function "
                                    f"argument, a top-level value or a constant)")
        exprs = m.results if isinstance(m, AffineMap) else m.constraints
        for e in exprs:
            bad = non_affine_reason(e)
            if bad is not None and (what.endswith(" bound") or what == "condition"):
                # a loop bound or condition may be semi-affine, as MLIR's: products with a
                # symbol factor, divisions by a symbolic divisor (parametric tiling's bounds)
                bad = semi_affine_reason(e)
            if bad is not None:
                sub, why = bad
                names = ", ".join(
                    f"{'d' + str(i) if i < m.num_dims else 's' + str(i - m.num_dims)} = {_name(v)}"
                    for i, v in enumerate(operands))
                where = f" (where {names})" if names else ""
                raise self.fail(op, f"non-affine expression '{sub}' in {what}: {why}{where}")

    def check_access(self, op: Operation, mem: Value, m: AffineMap, indices: Sequence[Value],
                     what: str) -> MemRefType:
        mt = mem.type
        if not isinstance(mt, MemRefType):
            raise self.fail(op, f"{what} {_name(mem)} must be a memref, found {mt}")
        if m.num_results != mt.rank:
            raise self.fail(op, f"{what} has {m.num_results} index(es) but {_name(mem)} of type "
                                f"{mt} has rank {mt.rank}")
        self.check_map_operands(op, m, indices, f"{what} index map")
        return mt

    def r_for(self, op: AffineForOp) -> None:
        n_iter = len(op.body.args) - 1
        n_ops = op.lower_map.num_inputs + op.upper_map.num_inputs + n_iter
        if len(op.operands) != n_ops:
            raise self.fail(op, f"has {len(op.operands)} operands, expected {n_ops} (bound operands "
                                f"and {n_iter} iter_args)")
        for m, ops, which in ((op.lower_map, op.lower_operands, "lower bound"),
                              (op.upper_map, op.upper_operands, "upper bound")):
            if m.num_results == 0:
                raise self.fail(op, f"{which} map has no results")
            self.check_map_operands(op, m, ops, which)
        if op.step <= 0:
            raise self.fail(op, f"step must be positive, found {op.step}")
        if op.iv.type != INDEX:
            raise self.fail(op, f"induction variable must have type index, found {op.iv.type}")
        if len(op.results) != n_iter:
            raise self.fail(op, f"has {len(op.results)} result(s) but {n_iter} iter_args")
        for k, (init, arg, res) in enumerate(zip(op.inits, op.region_iter_args, op.results,
                                                 strict=True)):
            if not (init.type == arg.type == res.type):
                raise self.fail(op, f"iter_arg #{k}: init {init.type}, block argument {arg.type} "
                                    f"and result {res.type} must have one type")
        self.check_yield(op, op.body, [r.type for r in op.results])

    def r_parallel(self, op: AffineParallelOp) -> None:
        n = len(op.steps)
        if n == 0 or len(op.ivs) != n:
            raise self.fail(op, f"has {len(op.ivs)} induction variable(s) and {n} step(s)")
        for m, ops, which in ((op.lower_map, op.lower_operands, "lower bound"),
                              (op.upper_map, op.upper_operands, "upper bound")):
            if m.num_results != n:
                raise self.fail(op, f"{which} map has {m.num_results} result(s), expected {n}")
            self.check_map_operands(op, m, ops, which)
        if any(s <= 0 for s in op.steps):
            raise self.fail(op, f"steps must be positive, found {op.steps}")
        if len(op.reductions) != len(op.results):
            raise self.fail(op, f"has {len(op.results)} result(s) but {len(op.reductions)} "
                                "reduction(s)")
        for kind, r in zip(op.reductions, op.results, strict=True):
            t = r.type
            ok = isinstance(t, ElementType) and (t.is_float if kind.endswith("f") else t.is_int)
            if not ok:
                raise self.fail(op, f"reduction '{kind}' does not apply to {t}")
        self.check_yield(op, op.body, [r.type for r in op.results])

    def check_yield(self, op: Operation, block: Block, types: Sequence[Type]) -> None:
        y = block.ops[-1] if block.ops else None
        if not isinstance(y, AffineYieldOp):
            return  # reported by the terminator check
        got = [v.type for v in y.operands]
        if got != list(types):
            raise VerifyError(
                f"'affine.yield' op yields ({', '.join(map(str, got))}) but the enclosing "
                f"'{op.NAME}' expects ({', '.join(map(str, types))})", y.loc)

    def r_if(self, op: AffineIfOp) -> None:
        if len(op.blocks) != 2:
            raise self.fail(op, f"must have a then and an else block, found {len(op.blocks)} blocks")
        self.check_map_operands(op, op.condition, op.operands, "condition")
        types = [r.type for r in op.results]
        self.check_yield(op, op.then_block, types)
        if op.else_block.ops:
            self.check_yield(op, op.else_block, types)
        for b in op.blocks:
            if b.args:
                raise self.fail(op, "regions must not have block arguments")

    def r_yield(self, op: AffineYieldOp) -> None:
        parent = op.parent_op
        if not isinstance(parent, AffineForOp | AffineIfOp | AffineParallelOp):
            where = parent.NAME if parent is not None else "no op"
            raise self.fail(op, f"must be inside affine.for, affine.if or affine.parallel, found "
                                f"in {where}")

    def r_map_op(self, op: AffineApplyOp) -> None:
        if isinstance(op, AffineApplyOp) and op.map.num_results != 1:
            raise self.fail(op, f"map must have one result, found {op.map.num_results}")
        if op.map.num_results == 0:
            raise self.fail(op, "map must have at least one result")
        self.check_map_operands(op, op.map, op.operands, "map")
        self.check_result_types(op, [INDEX])

    def check_result_types(self, op: Operation, types: Sequence[Type]) -> None:
        got = [r.type for r in op.results]
        if got != list(types):
            raise self.fail(op, f"results ({', '.join(map(str, got))}) should be "
                                f"({', '.join(map(str, types))})")

    def r_load(self, op: AffineLoadOp) -> None:
        if not op.operands:
            raise self.fail(op, "needs a memref operand")
        mt = self.check_access(op, op.memref, op.map, op.indices, "memref")
        self.check_result_types(op, [mt.element])

    def r_store(self, op: AffineStoreOp) -> None:
        if len(op.operands) < 2:
            raise self.fail(op, "needs a value and a memref operand")
        mt = self.check_access(op, op.memref, op.map, op.indices, "memref")
        if op.value.type != mt.element:
            raise self.fail(op, f"stores a {op.value.type} value into {mt} (element type "
                                f"{mt.element})")
        self.check_result_types(op, [])

    def r_dma_start(self, op: AffineDmaStartOp) -> None:
        base = 1 + op.src_map.num_inputs + 1 + op.dst_map.num_inputs + 1 + op.tag_map.num_inputs + 1
        if len(op.operands) not in (base, base + 2):
            raise self.fail(op, f"has {len(op.operands)} operands; expected {base} (no stride) or "
                                f"{base + 2} (stride and elements per stride)")
        self.check_access(op, op.src, op.src_map, op.src_indices, "source")
        self.check_access(op, op.dst, op.dst_map, op.dst_indices, "destination")
        self.check_access(op, op.tag, op.tag_map, op.tag_indices, "tag")  # any element type, as upstream
        src_t, dst_t = op.src.type, op.dst.type
        assert isinstance(src_t, MemRefType) and isinstance(dst_t, MemRefType)
        if src_t.element != dst_t.element:
            raise self.fail(op, f"source and destination element types differ ({src_t.element} vs "
                                f"{dst_t.element})")
        extra = [("number of elements", op.num_elements)]
        if op.is_strided:
            extra += [("stride", op.stride), ("elements per stride", op.elements_per_stride)]  # type: ignore[list-item]
        for what, v in extra:
            if v.type != INDEX:
                raise self.fail(op, f"{what} {_name(v)} must have type index, found {v.type}")
        self.check_result_types(op, [])

    def r_dma_wait(self, op: AffineDmaWaitOp) -> None:
        if len(op.operands) != 2 + op.tag_map.num_inputs:
            raise self.fail(op, f"has {len(op.operands)} operands; expected "
                                f"{2 + op.tag_map.num_inputs}")
        self.check_access(op, op.tag, op.tag_map, op.tag_indices, "tag")  # any element type, as upstream
        if op.num_elements.type != INDEX:
            raise self.fail(op, f"number of elements {_name(op.num_elements)} must have type index, "
                                f"found {op.num_elements.type}")

    def r_alloc(self, op: AllocOp) -> None:
        if len(op.results) != 1 or not isinstance(op.results[0].type, MemRefType):
            raise self.fail(op, "must produce one memref")
        mt = op.memref_type
        dyn = sum(1 for d in mt.shape if d is None)
        if len(op.operands) != dyn:
            raise self.fail(op, f"{mt} has {dyn} dynamic dimension(s) but {len(op.operands)} size "
                                f"operand(s)")
        for v in op.operands:
            if v.type != INDEX:
                raise self.fail(op, f"size operand {_name(v)} must have type index, found {v.type}")

    def r_dealloc(self, op: DeallocOp) -> None:
        if len(op.operands) != 1 or not isinstance(op.memref.type, MemRefType):
            raise self.fail(op, "takes one memref operand")

    def r_constant(self, op: ConstantOp) -> None:
        t = op.results[0].type if len(op.results) == 1 else None
        if not isinstance(t, ElementType):
            raise self.fail(op, "must produce one scalar")
        if t.is_float and not isinstance(op.value, float):
            raise self.fail(op, f"value {op.value!r} is not a float for type {t}")
        if not t.is_float:
            if not isinstance(op.value, int):
                raise self.fail(op, f"value {op.value!r} is not an integer for type {t}")
            if t.is_int and t.bitwidth > 1 and not (
                    -(1 << (t.bitwidth - 1)) <= op.value < (1 << t.bitwidth)):
                raise self.fail(op, f"value {op.value} does not fit in {t}")
            if t == I1 and op.value not in (0, 1):
                raise self.fail(op, f"value {op.value} is not a boolean")

    def r_binary(self, op: BinaryOp) -> None:
        a, b = op.operands
        if a.type != b.type:
            raise self.fail(op, f"operand types differ: {a.type} and {b.type}")
        self.check_scalar_kind(op, a.type, float_op=op.FLOAT)
        self.check_result_types(op, [a.type])

    def check_scalar_kind(self, op: Operation, t: Type, float_op: bool) -> None:
        if not isinstance(t, ElementType):
            raise self.fail(op, f"operands must be scalars, found {t}")
        if float_op and not t.is_float:
            raise self.fail(op, f"operands must be floats, found {t}")
        if not float_op and t.is_float:
            raise self.fail(op, f"operands must be integers or index, found {t}")

    def r_unary(self, op: UnaryOp) -> None:
        if len(op.operands) != 1:
            raise self.fail(op, f"takes one operand, found {len(op.operands)}")
        self.check_scalar_kind(op, op.operand.type, float_op=True)
        self.check_result_types(op, [op.operand.type])

    def r_ternary(self, op: TernaryOp) -> None:
        if len(op.operands) != 3:
            raise self.fail(op, f"takes three operands, found {len(op.operands)}")
        if len({str(v.type) for v in op.operands}) != 1:
            raise self.fail(op, "operand types differ: " + ", ".join(str(v.type) for v in op.operands))
        self.check_scalar_kind(op, op.operands[0].type, float_op=True)
        self.check_result_types(op, [op.operands[0].type])

    def r_cmp(self, op: CmpFOp) -> None:
        a, b = op.operands
        if a.type != b.type:
            raise self.fail(op, f"operand types differ: {a.type} and {b.type}")
        self.check_scalar_kind(op, a.type, float_op=isinstance(op, CmpFOp))
        self.check_result_types(op, [I1])

    def r_select(self, op: SelectOp) -> None:
        c, a, b = op.operands
        if c.type != I1:
            raise self.fail(op, f"condition must be i1, found {c.type}")
        if a.type != b.type:
            raise self.fail(op, f"operand types differ: {a.type} and {b.type}")
        self.check_result_types(op, [a.type])

    def r_cast(self, op: CastOp) -> None:
        src, dst = op.operand.type, op.results[0].type
        if not isinstance(src, ElementType) or not isinstance(dst, ElementType):
            raise self.fail(op, f"casts scalars only, found {src} to {dst}")
        ok = _CASTS[type(op)](src, dst)
        if not ok:
            raise self.fail(op, f"operand type '{src}' and result type '{dst}' are cast "
                                f"incompatible ({_CAST_RULE[type(op)]})")

    def r_return(self, op: ReturnOp) -> None:
        f = op.parent_op
        if not isinstance(f, FuncOp):
            raise self.fail(op, "must be the terminator of a func.func body")
        got = [v.type for v in op.operands]
        want = list(f.function_type.results)
        if got != want:
            raise self.fail(op, f"returns ({', '.join(map(str, got))}) but @{f.sym_name} is "
                                f"declared to return ({', '.join(map(str, want))})")

    def r_call(self, op: CallOp) -> None:
        callee = self.funcs.get(op.callee)
        if callee is None:
            raise self.fail(op, f"calls '@{op.callee}', which is not defined in the module")
        ft = callee.function_type
        got = [v.type for v in op.operands]
        if got != list(ft.inputs):
            raise self.fail(op, f"passes ({', '.join(map(str, got))}) but @{op.callee} takes "
                                f"({', '.join(map(str, ft.inputs))})")
        res = [r.type for r in op.results]
        if res != list(ft.results):
            raise self.fail(op, f"expects results ({', '.join(map(str, res))}) but @{op.callee} "
                                f"returns ({', '.join(map(str, ft.results))})")

    def r_opaque(self, op: OpaqueOp) -> None:
        if op.blocks:
            raise self.fail(op, "has a region (unregistered ops are kept without regions)")

    def r_dim(self, op: DimOp) -> None:
        t = op.memref.type
        if len(op.operands) != 2 or not isinstance(t, MemRefType):
            raise self.fail(op, "needs a memref and an index operand")
        if op.index.type != INDEX:
            raise self.fail(op, f"dimension {_name(op.index)} must have type index, found {op.index.type}")
        k = op.constant_index()
        if k is not None and not 0 <= k < t.rank:
            raise self.fail(op, f"dimension {k} is out of range for {t} (rank {t.rank})")
        self.check_result_types(op, [INDEX])

    def r_func(self, op: FuncOp) -> None:
        raise self.fail(op, "nested functions are not supported")

    def r_linalg(self, op: Operation, rule: Callable[[Operation], str | None]) -> None:
        problem = rule(op)
        if problem is not None:
            raise self.fail(op, problem)


def _index_cast(s: ElementType, d: ElementType) -> bool:
    return (s.is_index and d.is_int) or (s.is_int and d.is_index)


def _int(t: ElementType) -> bool:
    return t.is_int and not isinstance(t, VectorType)


def _float(t: ElementType) -> bool:
    return t.is_float and not isinstance(t, VectorType)


# MLIR's arith cast rules (ArithOps.cpp: areCastCompatible), scalars only
_CASTS: dict[type, Callable[[ElementType, ElementType], bool]] = {
    IndexCastOp: _index_cast,
    SIToFPOp: lambda s, d: _int(s) and _float(d),
    UIToFPOp: lambda s, d: _int(s) and _float(d),
    FPToSIOp: lambda s, d: _float(s) and _int(d),
    FPToUIOp: lambda s, d: _float(s) and _int(d),
    ExtFOp: lambda s, d: _float(s) and _float(d) and d.bitwidth > s.bitwidth,
    TruncFOp: lambda s, d: _float(s) and _float(d) and d.bitwidth < s.bitwidth,
    ExtSIOp: lambda s, d: _int(s) and _int(d) and d.bitwidth > s.bitwidth,
    ExtUIOp: lambda s, d: _int(s) and _int(d) and d.bitwidth > s.bitwidth,
    TruncIOp: lambda s, d: _int(s) and _int(d) and d.bitwidth < s.bitwidth,
    BitcastOp: lambda s, d: ((_int(s) or _float(s)) and (_int(d) or _float(d))
                             and s.bitwidth == d.bitwidth),
}
_CAST_RULE: dict[type, str] = {
    IndexCastOp: "one side index, the other an integer",
    SIToFPOp: "integer to float", UIToFPOp: "integer to float",
    FPToSIOp: "float to integer", FPToUIOp: "float to integer",
    ExtFOp: "float to a wider float", TruncFOp: "float to a narrower float",
    ExtSIOp: "integer to a wider integer", ExtUIOp: "integer to a wider integer",
    TruncIOp: "integer to a narrower integer",
    BitcastOp: "integer or float to one of the same bit width",
}

_RULES: dict[type, Callable[[_Verifier, Operation], None]] = {
    AffineForOp: _Verifier.r_for,
    AffineIfOp: _Verifier.r_if,
    AffineParallelOp: _Verifier.r_parallel,
    AffineYieldOp: _Verifier.r_yield,
    AffineApplyOp: _Verifier.r_map_op,
    AffineMinOp: _Verifier.r_map_op,
    AffineMaxOp: _Verifier.r_map_op,
    AffineLoadOp: _Verifier.r_load,
    AffineStoreOp: _Verifier.r_store,
    AffineDmaStartOp: _Verifier.r_dma_start,
    AffineDmaWaitOp: _Verifier.r_dma_wait,
    AllocOp: _Verifier.r_alloc,
    DeallocOp: _Verifier.r_dealloc,
    ConstantOp: _Verifier.r_constant,
    BinaryOp: _Verifier.r_binary,
    UnaryOp: _Verifier.r_unary,
    TernaryOp: _Verifier.r_ternary,
    CmpFOp: _Verifier.r_cmp,
    CmpIOp: _Verifier.r_cmp,
    SelectOp: _Verifier.r_select,
    CastOp: _Verifier.r_cast,
    ReturnOp: _Verifier.r_return,
    CallOp: _Verifier.r_call,
    FuncOp: _Verifier.r_func,
    # linalg: the rules are in compiler.ir.linalg_verify
    GenericOp: lambda v, op: v.r_linalg(op, generic_problem),
    NamedLinalgOp: lambda v, op: v.r_linalg(op, named_problem),
    LinalgYieldOp: lambda v, op: v.r_linalg(op, yield_problem),
    LinalgIndexOp: lambda v, op: v.r_linalg(op, index_problem),
    OpaqueOp: _Verifier.r_opaque,
    DimOp: _Verifier.r_dim,
}  # type: ignore[dict-item]

__all__ = ["non_affine_reason", "verify"]
