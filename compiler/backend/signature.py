"""What a compiled function expects from Python: argument names, types, and which it writes."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from compiler.backend.errors import ArgumentError
from compiler.ir.entry import entry_function
from compiler.ir.ops import AffineDmaStartOp, AffineStoreOp, CallOp, FuncOp, ModuleOp
from compiler.ir.types import ElementType, MemRefType

_CTYPES: dict[str, type] = {
    "i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "index": ctypes.c_int64, "f32": ctypes.c_float, "f64": ctypes.c_double,
    # held in a float register (compiler.backend.lower_floats)
    "bf16": ctypes.c_float, "f8E4M3FN": ctypes.c_float, "f8E5M2": ctypes.c_float,
}


def ctype_of(t: ElementType) -> type:
    try:
        return _CTYPES[t.name]
    except KeyError:
        raise ArgumentError(f"a {t} scalar cannot be passed between Python and native code") from None


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """One function argument as Python sees it. `written`: the function may store into it."""

    index: int
    name: str
    type: MemRefType | ElementType
    written: bool

    @property
    def is_memref(self) -> bool:
        return isinstance(self.type, MemRefType)


@dataclass(frozen=True, slots=True)
class Signature:
    name: str
    args: tuple[ArgSpec, ...]
    results: tuple[ElementType, ...]

    @property
    def memref_args(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.args if a.is_memref)

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args if a.is_memref and a.written)

    def lookup(self, key: str) -> ArgSpec | None:
        """By written name (`A`) or position (`arg0`); a written name wins over a position."""
        for a in self.args:
            if a.name == key:
                return a
        for a in self.args:
            if f"arg{a.index}" == key:
                return a
        return None


def written_args(module: ModuleOp) -> dict[str, set[int]]:
    """Per function, the memref arguments it may write (directly or through calls)."""
    funcs = {f.sym_name: f for f in module.funcs}
    written: dict[str, set[int]] = {name: set() for name in funcs}
    changed = True
    while changed:  # fixpoint over the call graph (calls may be recursive)
        changed = False
        for name, f in funcs.items():
            if f.is_declaration:
                continue
            arg_pos = {id(a): i for i, a in enumerate(f.args)}
            found: set[int] = set()
            for op in f.walk():
                targets = []
                if isinstance(op, AffineStoreOp):
                    targets = [op.memref]
                elif isinstance(op, AffineDmaStartOp):
                    targets = [op.dst]
                elif isinstance(op, CallOp) and op.callee in written:
                    targets = [op.operands[i] for i in written[op.callee] if i < len(op.operands)]
                found |= {arg_pos[id(v)] for v in targets if id(v) in arg_pos}
            if not found <= written[name]:
                written[name] |= found
                changed = True
    return written


def signatures(module: ModuleOp) -> dict[str, Signature]:
    written = written_args(module)
    out: dict[str, Signature] = {}
    for f in module.funcs:
        if f.is_declaration:
            continue
        names = f.arg_names()
        args = []
        for i, t in enumerate(f.function_type.inputs):
            assert isinstance(t, MemRefType | ElementType)
            args.append(ArgSpec(i, names[i], t, i in written[f.sym_name]))
        results = tuple(t for t in f.function_type.results if isinstance(t, ElementType))
        out[f.sym_name] = Signature(f.sym_name, tuple(args), results)
    return out


def default_function(module: ModuleOp) -> FuncOp:
    """The function to run when none is named (`compiler.ir.entry.entry_function`)."""
    return entry_function(module, None, ArgumentError)
