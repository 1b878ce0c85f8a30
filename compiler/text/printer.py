"""Print a module in MLIR's custom syntax, the way `mlir-opt-19` prints it.

Maps used as attributes (loop bounds, affine.apply/min/max) and integer sets get `#map`/`#set`
aliases at the top of the file; index maps of loads, stores and DMA ops are written inline
(`%A[%i + 1, symbol(%n)]`). Values keep their name hints, uniquified per function
(`%c0`, `%c0_0`); unnamed results are numbered, unnamed block arguments are `%argN`.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Sequence

import numpy as np

from compiler.diagnostics import AccelsimError, Location
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, Operation, Value
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
    AllocaOp,
    AllocOp,
    BinaryOp,
    CallOp,
    CastOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DeallocOp,
    DimOp,
    FuncOp,
    ModuleOp,
    OpaqueOp,
    ReturnOp,
    SelectOp,
    TernaryOp,
    UnaryOp,
)
from compiler.ir.types import ElementType, float_bits, round_float
from compiler.text.affine_text import format_expr, format_map, format_set
from compiler.text.linalg_printer import DISPATCH as _LINALG_DISPATCH

_NAME_OK = re.compile(r"[A-Za-z_$.][\w$.\-]*\Z")


def print_module(module: ModuleOp, debug_locs: bool = False) -> str:
    """MLIR text for `module`; `debug_locs` appends `loc("file":line:col)` to every op."""
    return _Printer(debug_locs).module(module)


def print_op(op: Operation) -> str:
    """One op (with its regions) as MLIR text; aliases are inlined since there is no header."""
    p = _Printer(False, inline_attrs=True)
    p.namer.enter_function()
    if isinstance(op, ModuleOp):
        return p.module(op)
    if isinstance(op, FuncOp):
        p.func(op)
    else:
        p.op(op, 0)
    return "\n".join(p.lines)


def format_float(value: float, type: ElementType) -> str:
    """A float literal that MLIR accepts and that reads back to exactly `value`: the shortest
    decimal that does, or the raw bits in hex (`0x7FC0 : bf16`) for inf and NaN."""
    if type.bitwidth == 64:
        if not math.isfinite(value):
            return _hex_bits(value, type)
        text = repr(float(value))
    else:
        narrow = type.numpy_dtype.type(value)
        if not np.isfinite(np.float32(narrow)):
            return _hex_bits(float(narrow), type)
        text = str(narrow)
        if round_float(float(text), type) != float(narrow):
            text = repr(float(narrow))  # exact: every narrow float is a double
    if "e" in text and "." not in text:
        mant, _, exp = text.partition("e")
        text = f"{mant}.0e{exp}"
    elif "e" not in text and "." not in text:
        text += ".0"  # MLIR reads `448` as an integer literal
    return text


def _hex_bits(value: float, type: ElementType) -> str:
    if type.bitwidth == 64:
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        return f"0x{bits:016X}"
    return f"0x{float_bits(value, type):0{type.bitwidth // 4}X}"


def format_location(loc: Location) -> str:
    name = loc.file.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{name}":{loc.line}:{loc.col})'


class _Namer:
    """SSA names for one function: hints uniquified `%c0`, `%c0_0`; others `%0`, `%arg0`."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.next_num = 0
        self.next_arg = 0
        self.suffix: dict[str, int] = {}

    def enter_function(self) -> None:
        self.names.clear()
        self.used.clear()
        self.next_num = 0
        self.next_arg = 0
        self.suffix.clear()

    def _unique(self, base: str) -> str:
        if base not in self.used:
            return base
        k = self.suffix.get(base, 0)
        while f"{base}_{k}" in self.used:
            k += 1
        self.suffix[base] = k + 1
        return f"{base}_{k}"

    def define(self, v: Value, is_arg: bool) -> str:
        hint = v.name_hint
        if hint is not None and _NAME_OK.match(hint) and not hint[0].isdigit():
            name = self._unique(hint)
        elif is_arg:
            while f"arg{self.next_arg}" in self.used:
                self.next_arg += 1
            name = f"arg{self.next_arg}"
            self.next_arg += 1
        else:
            while str(self.next_num) in self.used:
                self.next_num += 1
            name = str(self.next_num)
            self.next_num += 1
        self.used.add(name)
        self.names[id(v)] = name
        return name

    def define_results(self, op: Operation) -> str:
        """Name of the result group (`%0` or `%0:2`); `#i` references follow from it."""
        if not op.results:
            return ""
        name = self.define(op.results[0], False)
        for r in op.results[1:]:
            self.names[id(r)] = name
        return name

    def ref(self, v: Value) -> str:
        name = self.names.get(id(v))
        if name is None:
            # Defined outside what is being printed (print_op on a nested op), or invalid IR.
            name = self.define(v, not hasattr(v, "owner"))
        owner = getattr(v, "owner", None)
        if owner is not None and len(owner.results) > 1:
            return f"%{name}#{v.index}"  # type: ignore[attr-defined]
        return f"%{name}"


class _Printer:
    def __init__(self, debug_locs: bool, inline_attrs: bool = False):
        self.debug_locs = debug_locs
        self.inline_attrs = inline_attrs
        self.namer = _Namer()
        self.lines: list[str] = []
        self.map_alias: dict[AffineMap, str] = {}
        self.set_alias: dict[IntegerSet, str] = {}

    # ---- attributes -----------------------------------------------------------------
    def map_ref(self, m: AffineMap) -> str:
        if self.inline_attrs:
            return format_map(m)
        name = self.map_alias.get(m)
        if name is None:
            n = len(self.map_alias)
            name = "#map" if n == 0 else f"#map{n}"
            self.map_alias[m] = name
        return name

    def set_ref(self, s: IntegerSet) -> str:
        if self.inline_attrs:
            return format_set(s)
        name = self.set_alias.get(s)
        if name is None:
            n = len(self.set_alias)
            name = "#set" if n == 0 else f"#set{n}"
            self.set_alias[s] = name
        return name

    def loc_suffix(self, op: Operation) -> str:
        return f" {format_location(op.loc)}" if self.debug_locs else ""

    # ---- module / function ----------------------------------------------------------
    def module(self, module: ModuleOp) -> str:
        self.lines.append("module {")
        for op in module.body.ops:
            self.namer.enter_function()
            if isinstance(op, FuncOp):
                self.func(op, 1)
            else:
                self.op(op, 1)
        self.lines.append("}" + self.loc_suffix(module))
        header = [f"{name} = {format_map(m)}" for m, name in self.map_alias.items()]
        header += [f"{name} = {format_set(s)}" for s, name in self.set_alias.items()]
        return "\n".join(header + self.lines) + "\n"

    def func(self, f: FuncOp, depth: int = 0) -> None:
        pad = "  " * depth
        ftype = f.function_type
        vis = "private " if (f.private or f.is_declaration) else ""
        if f.is_declaration:
            args = ", ".join(str(t) for t in ftype.inputs)
        else:
            args = ", ".join(f"%{self.namer.define(a, True)}: {a.type}" for a in f.args)
        res = ""
        if len(ftype.results) == 1:
            res = f" -> {ftype.results[0]}"
        elif ftype.results:
            res = f" -> ({', '.join(map(str, ftype.results))})"
        head = f"{pad}func.func {vis}@{f.sym_name}({args}){res}"
        if f.is_declaration:
            self.lines.append(head + self.loc_suffix(f))
            return
        self.lines.append(head + " {")
        self.block(f.body, depth + 1, omit_empty_yield=False)
        self.lines.append(f"{pad}}}" + self.loc_suffix(f))

    def block(self, block: Block, depth: int, omit_empty_yield: bool = True) -> None:
        for op in block.ops:
            if omit_empty_yield and isinstance(op, AffineYieldOp) and not op.operands:
                continue
            self.op(op, depth)

    # ---- ops -----------------------------------------------------------------------
    def op(self, op: Operation, depth: int) -> None:
        printer = _DISPATCH.get(type(op))
        if printer is None:
            for cls in type(op).__mro__:
                if cls in _DISPATCH:
                    printer = _DISPATCH[cls]
                    break
        if printer is None:
            raise AccelsimError(f"cannot print op '{op.NAME}' ({type(op).__name__}) at {op.loc}: "
                                f"compiler.text has no syntax for it")
        pad = "  " * depth
        # Regions print their own lines; the op's text may span several lines.
        text = printer(self, op, depth)
        if text is not None:
            self.lines.append(pad + text + self.loc_suffix(op))

    def results_prefix(self, op: Operation) -> str:
        name = self.namer.define_results(op)
        if not name:
            return ""
        if len(op.results) > 1:
            return f"%{name}:{len(op.results)} = "
        return f"%{name} = "

    def refs(self, values: Sequence[Value]) -> str:
        return ", ".join(self.namer.ref(v) for v in values)

    def dim_sym_list(self, n_dims: int, operands: Sequence[Value]) -> str:
        text = "(" + self.refs(operands[:n_dims]) + ")"
        if len(operands) > n_dims:
            text += "[" + self.refs(operands[n_dims:]) + "]"
        return text

    def index_list(self, m: AffineMap, operands: Sequence[Value]) -> str:
        dims = [self.namer.ref(v) for v in operands[: m.num_dims]]
        syms = [f"symbol({self.namer.ref(v)})" for v in operands[m.num_dims:]]
        return "[" + ", ".join(format_expr(r, dims, syms) for r in m.results) + "]"

    def bound(self, m: AffineMap, operands: Sequence[Value], prefix: str) -> str:
        if m.num_results == 1:
            c = m.single_constant
            if c is not None and m.num_inputs == 0:
                return str(c)
            if m.num_dims == 0 and m.num_symbols == 1 and m.results[0] == _SYM0:
                return self.namer.ref(operands[0])
            head = ""
        else:
            head = f"{prefix} "
        return head + self.map_ref(m) + self.dim_sym_list(m.num_dims, operands)

    def region(self, block: Block, depth: int) -> None:
        self.block(block, depth + 1)

    # ---- per-op printers (return the one-line text, or None after printing lines) ----
    def p_for(self, op: AffineForOp, depth: int) -> None:
        pad = "  " * depth
        res = self.results_prefix(op)
        lb = self.bound(op.lower_map, op.lower_operands, "max")
        ub = self.bound(op.upper_map, op.upper_operands, "min")
        iv = self.namer.define(op.iv, True)
        text = f"{pad}{res}affine.for %{iv} = {lb} to {ub}"
        if op.step != 1:
            text += f" step {op.step}"
        if op.inits:
            pairs = ", ".join(f"%{self.namer.define(a, True)} = {self.namer.ref(v)}"
                              for a, v in zip(op.region_iter_args, op.inits, strict=True))
            text += f" iter_args({pairs}) -> ({', '.join(str(v.type) for v in op.inits)})"
        self.lines.append(text + " {")
        self.region(op.body, depth)
        self.lines.append(f"{pad}}}" + self.loc_suffix(op))

    def p_parallel(self, op: AffineParallelOp, depth: int) -> None:
        pad = "  " * depth
        res = self.results_prefix(op)
        lb = self.index_list(op.lower_map, op.lower_operands)[1:-1]
        ub = self.index_list(op.upper_map, op.upper_operands)[1:-1]
        ivs = ", ".join("%" + self.namer.define(a, True) for a in op.ivs)
        text = f"{pad}{res}affine.parallel ({ivs}) = ({lb}) to ({ub})"
        if any(s != 1 for s in op.steps):
            text += f" step ({', '.join(map(str, op.steps))})"
        if op.reductions:
            kinds = ", ".join(f'"{k}"' for k in op.reductions)
            text += f" reduce ({kinds}) -> ({', '.join(str(r.type) for r in op.results)})"
        self.lines.append(text + " {")
        self.region(op.body, depth)
        self.lines.append(f"{pad}}}" + self.loc_suffix(op))

    def p_if(self, op: AffineIfOp, depth: int) -> None:
        pad = "  " * depth
        res = self.results_prefix(op)
        cond = self.set_ref(op.condition) + self.dim_sym_list(op.condition.num_dims, op.operands)
        types = ""
        if op.results:
            types = " -> (" + ", ".join(str(r.type) for r in op.results) + ")"
        self.lines.append(f"{pad}{res}affine.if {cond}{types} {{")
        self.region(op.then_block, depth)
        if op.has_else:
            self.lines.append(f"{pad}}} else {{")
            self.region(op.else_block, depth)
        self.lines.append(f"{pad}}}" + self.loc_suffix(op))

    def p_map_op(self, op: AffineApplyOp, depth: int) -> str:
        args = self.dim_sym_list(op.map.num_dims, op.operands)
        return f"{self.results_prefix(op)}{op.NAME} {self.map_ref(op.map)}{args}"

    def p_yield(self, op: AffineYieldOp, depth: int) -> str:
        if not op.operands:
            return "affine.yield"
        types = ", ".join(str(v.type) for v in op.operands)
        return f"affine.yield {self.refs(op.operands)} : {types}"

    def p_load(self, op: AffineLoadOp, depth: int) -> str:
        idx = self.index_list(op.map, op.indices)
        return (f"{self.results_prefix(op)}affine.load {self.namer.ref(op.memref)}{idx} "
                f": {op.memref.type}")

    def p_store(self, op: AffineStoreOp, depth: int) -> str:
        idx = self.index_list(op.map, op.indices)
        return (f"affine.store {self.namer.ref(op.value)}, {self.namer.ref(op.memref)}{idx} "
                f": {op.memref.type}")

    def p_dma_start(self, op: AffineDmaStartOp, depth: int) -> str:
        parts = [self.namer.ref(op.src) + self.index_list(op.src_map, op.src_indices),
                 self.namer.ref(op.dst) + self.index_list(op.dst_map, op.dst_indices),
                 self.namer.ref(op.tag) + self.index_list(op.tag_map, op.tag_indices),
                 self.namer.ref(op.num_elements)]
        if op.is_strided:
            parts += [self.namer.ref(op.stride), self.namer.ref(op.elements_per_stride)]  # type: ignore[arg-type]
        types = f"{op.src.type}, {op.dst.type}, {op.tag.type}"
        return f"affine.dma_start {', '.join(parts)} : {types}"

    def p_dma_wait(self, op: AffineDmaWaitOp, depth: int) -> str:
        tag = self.namer.ref(op.tag) + self.index_list(op.tag_map, op.tag_indices)
        return f"affine.dma_wait {tag}, {self.namer.ref(op.num_elements)} : {op.tag.type}"

    def p_alloc(self, op: AllocOp, depth: int) -> str:
        attrs = f" {{alignment = {op.alignment} : i64}}" if op.alignment is not None else ""
        return (f"{self.results_prefix(op)}{op.NAME}({self.refs(op.operands)}){attrs} "
                f": {op.memref_type}")

    def p_dealloc(self, op: DeallocOp, depth: int) -> str:
        return f"memref.dealloc {self.namer.ref(op.memref)} : {op.memref.type}"

    def p_dim(self, op: DimOp, depth: int) -> str:
        return (f"{self.results_prefix(op)}memref.dim {self.namer.ref(op.memref)}, "
                f"{self.namer.ref(op.index)} : {op.memref.type}")

    def p_opaque(self, op: OpaqueOp, depth: int) -> str:
        """MLIR's generic form, the properties and attributes as they were written."""
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = [str(r.type) for r in op.results]
        res = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
        props = f" {op.prop_text}" if op.prop_text else ""
        attrs = f" {op.attr_text}" if op.attr_text else ""
        return (f'{self.results_prefix(op)}"{op.op_name}"({self.refs(op.operands)}){props}{attrs} '
                f": ({ins}) -> {res}")

    def p_constant(self, op: ConstantOp, depth: int) -> str:
        t = op.results[0].type
        assert isinstance(t, ElementType)
        if t.is_float:
            lit = format_float(op.value, t)
        elif t.bitwidth == 1 and t.is_int:
            return f"{self.results_prefix(op)}arith.constant {'true' if op.value else 'false'}"
        else:
            lit = str(int(op.value))
        return f"{self.results_prefix(op)}arith.constant {lit} : {t}"

    def p_binary(self, op: BinaryOp, depth: int) -> str:
        return f"{self.results_prefix(op)}{op.NAME} {self.refs(op.operands)} : {op.results[0].type}"

    def p_unary(self, op: UnaryOp, depth: int) -> str:
        return f"{self.results_prefix(op)}{op.NAME} {self.refs(op.operands)} : {op.results[0].type}"

    def p_cmp(self, op: CmpFOp, depth: int) -> str:
        return (f"{self.results_prefix(op)}{op.NAME} {op.predicate}, {self.refs(op.operands)} "
                f": {op.operands[0].type}")

    def p_select(self, op: SelectOp, depth: int) -> str:
        return f"{self.results_prefix(op)}arith.select {self.refs(op.operands)} : {op.results[0].type}"

    def p_cast(self, op: CastOp, depth: int) -> str:
        return (f"{self.results_prefix(op)}{op.NAME} {self.namer.ref(op.operand)} "
                f": {op.operand.type} to {op.results[0].type}")

    def p_return(self, op: ReturnOp, depth: int) -> str:
        if not op.operands:
            return "return"
        return f"return {self.refs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"

    def p_call(self, op: CallOp, depth: int) -> str:
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = [str(r.type) for r in op.results]
        res = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
        return f"{self.results_prefix(op)}func.call @{op.callee}({self.refs(op.operands)}) : ({ins}) -> {res}"

    def p_func(self, op: FuncOp, depth: int) -> None:
        self.func(op, depth)


_SYM0 = AffineMap.single_symbol().results[0]

_DISPATCH: dict[type, Callable[[_Printer, Operation, int], str | None]] = {
    AffineForOp: _Printer.p_for,
    AffineIfOp: _Printer.p_if,
    AffineParallelOp: _Printer.p_parallel,
    AffineApplyOp: _Printer.p_map_op,
    AffineMinOp: _Printer.p_map_op,
    AffineMaxOp: _Printer.p_map_op,
    AffineYieldOp: _Printer.p_yield,
    AffineLoadOp: _Printer.p_load,
    AffineStoreOp: _Printer.p_store,
    AffineDmaStartOp: _Printer.p_dma_start,
    AffineDmaWaitOp: _Printer.p_dma_wait,
    AllocOp: _Printer.p_alloc,
    AllocaOp: _Printer.p_alloc,
    DeallocOp: _Printer.p_dealloc,
    DimOp: _Printer.p_dim,
    OpaqueOp: _Printer.p_opaque,
    ConstantOp: _Printer.p_constant,
    BinaryOp: _Printer.p_binary,
    UnaryOp: _Printer.p_unary,
    TernaryOp: _Printer.p_unary,   # `math.fma %a, %b, %c : f32`: the operands, then the type
    CmpFOp: _Printer.p_cmp,
    CmpIOp: _Printer.p_cmp,
    SelectOp: _Printer.p_select,
    CastOp: _Printer.p_cast,
    ReturnOp: _Printer.p_return,
    CallOp: _Printer.p_call,
    FuncOp: _Printer.p_func,
    **_LINALG_DISPATCH,
}  # type: ignore[dict-item]
