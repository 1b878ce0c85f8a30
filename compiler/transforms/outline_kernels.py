"""`outline-kernels`: each maximal loop nest that contains no DMA op (and no call: a nest
around kernel calls, e.g. tile loops whose bodies were outlined one kernel per tile, is
control) becomes a private `func.func` kernel, replaced by a `func.call` passing the memrefs
and scalars it uses.

After this pass the control program holds only control (loops with DMA inside, ifs, index
arithmetic, alloc/dealloc, DMA start/wait, calls), which the simulator interprets, while the
kernels run natively. Constants used by a nest are cloned into its kernel rather than passed.
The kernel function and the call both keep the nest's location.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.affine_expr import AffineExpr, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, BlockArgument, Operation, OpResult, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    CallOp,
    ConstantOp,
    FuncOp,
    ModuleOp,
    ReturnOp,
)
from compiler.ir.scope import is_valid_symbol
from compiler.ir.types import FunctionType
from compiler.transforms.pass_base import Pass

_DMA = (AffineDmaStartOp, AffineDmaWaitOp)
_CONTROL = (AffineDmaStartOp, AffineDmaWaitOp, CallOp)  # a nest holding one stays control


@dataclass(frozen=True)
class Options:
    pass


def has_dma(op: Operation) -> bool:
    return any(isinstance(o, _DMA) for o in op.walk())


def _is_control(op: Operation) -> bool:
    return any(isinstance(o, _CONTROL) for o in op.walk())


def captured_values(op: Operation) -> list[Value]:
    """Values used inside `op` but defined outside it, in first-use order."""
    inside: set[int] = set()
    for o in op.walk():
        inside.update(id(r) for r in o.results)
        for b in o.blocks:
            inside.update(id(a) for a in b.args)
    seen: set[int] = set()
    out: list[Value] = []
    for o in op.walk():
        for v in o.operands:
            if id(v) not in inside and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


class OutlineKernelsPass(Pass):
    name = "outline-kernels"
    summary = "Outline every maximal DMA-free loop nest into a private kernel function"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        taken = {f.sym_name for f in module.funcs}
        for func in list(module.funcs):
            if func.is_declaration or func.private:
                continue
            counter = [0]
            self._walk(module, func, func.body, taken, counter)

    def _walk(self, module: ModuleOp, func: FuncOp, block: Block, taken: set[str],
              counter: list[int]) -> None:
        for op in list(block.ops):
            if isinstance(op, AffineForOp) and not _is_control(op):
                if any(_used_after(r) for r in op.results):
                    self.remark(op.loc, "loop nest returns values (iter_args) used outside it; "
                                "left inline")
                    continue
                self._outline(module, func, op, taken, counter)
            elif isinstance(op, AffineForOp | AffineIfOp):
                for b in op.blocks:
                    self._walk(module, func, b, taken, counter)

    def _outline(self, module: ModuleOp, func: FuncOp, nest: AffineForOp, taken: set[str],
                 counter: list[int]) -> None:
        captured = captured_values(nest)
        consts = [v for v in captured if isinstance(v, OpResult) and isinstance(v.owner, ConstantOp)]
        args = [v for v in captured if not any(v is c for c in consts)]
        name = _fresh(f"{func.sym_name}_kernel", taken, counter)
        names = _arg_names(args)
        kernel = FuncOp(name, FunctionType(tuple(v.type for v in args), ()), names, loc=nest.loc,
                        private=True)
        mapping: dict[Value, Value] = dict(zip(args, kernel.args, strict=True))
        for c in consts:
            cop = c.owner
            assert isinstance(cop, ConstantOp)
            clone = ConstantOp(cop.value, c.type, loc=cop.loc, name_hint=c.name_hint)  # type: ignore[arg-type]
            kernel.body.append(clone)
            mapping[c] = clone.results[0]
        kernel.body.append(nest.clone(mapping))
        kernel.body.append(ReturnOp(loc=nest.loc))
        for op in kernel.walk():
            _promote_symbols(op)
        body = module.body
        body.insert(body.index_of(func), kernel)
        parent = nest.parent_block
        assert parent is not None
        parent.insert_before(nest, CallOp(name, args, loc=nest.loc))
        nest.erase()


def outline_nest(module: ModuleOp, func: FuncOp, nest: AffineForOp) -> None:
    """Outline one given loop nest of `func` into a private kernel (the pass outlines the
    maximal DMA-free nests; this one a nest inside them, e.g. the intra-tile loops of a
    tiled nest with no copies, one kernel call per tile)."""
    OutlineKernelsPass()._outline(module, func, nest, {f.sym_name for f in module.funcs}, [0])


def _promote(m: AffineMap, operands: list[Value]) -> tuple[AffineMap, list[Value]]:
    """Dims whose operand is now a valid symbol (a kernel argument) become symbols, as MLIR's
    parser would classify them; keeps print -> parse -> print stable."""
    dim_ops, sym_ops = operands[: m.num_dims], operands[m.num_dims:]
    keep = [k for k, v in enumerate(dim_ops) if not is_valid_symbol(v)]
    move = [k for k, v in enumerate(dim_ops) if is_valid_symbol(v)]
    if not move:
        return m, operands
    new_dims: list[AffineExpr] = [Const(0)] * m.num_dims
    for n, k in enumerate(keep):
        new_dims[k] = Dim(n)
    for n, k in enumerate(move):
        new_dims[k] = Sym(len(sym_ops) + n)
    syms = [Sym(k) for k in range(len(sym_ops))]
    m2 = m.substitute(new_dims, syms, len(keep), len(sym_ops) + len(move))
    return m2, [dim_ops[k] for k in keep] + sym_ops + [dim_ops[k] for k in move]


def _promote_symbols(op: Operation) -> None:
    if isinstance(op, AffineForOp):
        op.set_lower_bound(*_promote(op.lower_map, op.lower_operands))
        op.set_upper_bound(*_promote(op.upper_map, op.upper_operands))
    elif isinstance(op, AffineLoadOp | AffineStoreOp):
        op.set_access(op.memref, *_promote(op.map, op.indices))
    elif isinstance(op, AffineApplyOp | AffineMinOp | AffineMaxOp):
        op.map, op.operands = _promote(op.map, list(op.operands))
    elif isinstance(op, AffineIfOp):
        c = op.condition
        m, ops = _promote(AffineMap(c.num_dims, c.num_symbols, c.constraints), list(op.operands))
        op.condition = IntegerSet(m.num_dims, m.num_symbols, m.results, c.eq_flags)
        op.operands = ops


def _used_after(v: Value) -> bool:
    assert isinstance(v, OpResult)
    blk = v.owner.parent_block
    if blk is None:
        return False
    root: Operation | Block = blk.parent_op if blk.parent_op is not None else blk
    return any(any(o is v for o in op.operands) for op in root.walk() if op is not v.owner)


def _fresh(base: str, taken: set[str], counter: list[int]) -> str:
    while True:
        name = f"{base}{counter[0]}"
        counter[0] += 1
        if name not in taken:
            taken.add(name)
            return name


def _arg_names(args: list[Value]) -> list[str | None]:
    used: set[str] = set()
    out: list[str | None] = []
    for k, v in enumerate(args):
        hint = v.name_hint
        if isinstance(v, BlockArgument) and isinstance(v.block.parent_op, AffineForOp) and not hint:
            hint = f"iv{k}"
        if hint is None or hint in used:
            hint = f"a{k}"
        used.add(hint)
        out.append(hint)
    return out


# ---- for the stages downstream: outline what is left, once --------------------------------

def needs_outlining(module: ModuleOp) -> bool:
    """A loop nest with no DMA op (nor call) anywhere inside it, outside any private kernel
    function."""
    for f in module.funcs:
        if f.private or f.is_declaration:
            continue
        if _dma_free_loop(f.body)[1]:
            return True
    return False


def _dma_free_loop(block: Block) -> tuple[bool, bool]:
    """(the block holds a DMA op or a call at any depth, it holds a loop with neither inside):
    one pass, so checking a module costs one walk however deep its nests are."""
    has_dma = free_loop = False
    for op in block.ops:
        if isinstance(op, _CONTROL):
            has_dma = True
            continue
        inner_dma = False
        for b in op.blocks:
            d, fl = _dma_free_loop(b)
            inner_dma = inner_dma or d
            free_loop = free_loop or fl
        if isinstance(op, AffineForOp) and not inner_dma:
            free_loop = True
        has_dma = has_dma or inner_dma
    return has_dma, free_loop


def ensure_outlined(module: ModuleOp) -> ModuleOp:
    outline_if_needed(module)
    return module


def outline_if_needed(module: ModuleOp) -> bool:
    """Outline the module's DMA-free loop nests in place; whether there were any."""
    if not needs_outlining(module):
        return False
    OutlineKernelsPass().run(module)
    return True
