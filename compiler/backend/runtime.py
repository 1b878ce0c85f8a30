"""A compiled module and how Python calls into it with numpy arrays."""

from __future__ import annotations

import copy
import ctypes
import dataclasses
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from compiler.backend.checks import STATUS_WORDS, CheckSite, failure, needs_status
from compiler.backend.errors import ArgumentError
from compiler.backend.jit import Engine, jit
from compiler.backend.lower import LoweringOptions, lower_module, symbol_name
from compiler.backend.preflight import check_module
from compiler.backend.signature import Signature, ctype_of, default_function, signatures
from compiler.ir.ops import ModuleOp
from compiler.ir.types import ElementType, MemRefType, round_float

Args = Sequence[object] | Mapping[str, object]
_byref = ctypes.byref
_c_char = ctypes.c_char


class _StatusRecord(threading.local):
    """Each thread's status record (checks.py), zero between calls."""

    def __init__(self) -> None:
        self.words = (ctypes.c_int64 * STATUS_WORDS)()
        self.address = ctypes.addressof(self.words)


_STATUS = _StatusRecord()
# Code without checks only ever reads the record (after its internal calls): one for all.
_NEVER_WRITTEN = (ctypes.c_int64 * STATUS_WORDS)()
_NO_STATUS = ctypes.addressof(_NEVER_WRITTEN)


@dataclass(frozen=True, slots=True)
class _Native:
    """A ctypes entry point plus the engine that keeps its code alive, and the checks its
    module contains (empty: the call can never fail)."""

    fn: ctypes._CFuncPtr
    engine: Engine
    with_status: bool               # the code takes a status record (checks.needs_status)
    sites: tuple[CheckSite, ...]

    def __call__(self, cargs: list[object]) -> object:
        if not self.with_status:
            return self.fn(*cargs)
        if not self.sites:
            return self.fn(*cargs, _NO_STATUS)
        return self.checked(cargs)

    def checked(self, cargs: list[object]) -> object:
        status = _STATUS
        result = self.fn(*cargs, status.address)
        if status.words[0]:
            record = list(status.words)
            ctypes.memset(status.words, 0, ctypes.sizeof(status.words))
            raise failure(record, self.sites)
        return result


class CompiledModule:
    """Native code for every function of a module.

    Two variants exist: the default declares memref parameters `noalias` (faster loops, no
    runtime alias checks), the other does not and is compiled only if a call passes
    overlapping arrays. Both are built from LLVM IR lowered once here.
    """

    def __init__(self, module: ModuleOp, key: str, options: LoweringOptions | None = None):
        options = options if options is not None else LoweringOptions()
        self.key = key
        self.options = options
        check_module(module)  # first: refusals are located errors, never a RecursionError
        self._with_status = needs_status(module, options.bounds_check)
        self.signatures: dict[str, Signature] = signatures(module)
        try:
            self.default_func: str | None = default_function(module).sym_name
        except ArgumentError as exc:
            self.default_func = None
            self._no_default = str(exc)
        t0 = time.perf_counter()
        self._sites: dict[bool, list[CheckSite]] = {options.noalias: []}
        self._ir: dict[bool, ir.Module] = {
            options.noalias: lower_module(module, options, f"m{key[:12]}", self._sites[options.noalias],
                                          preflight=False)}
        needs_safe = options.noalias and any(len(s.memref_args) > 1 for s in self.signatures.values())
        if needs_safe:
            safe = dataclasses.replace(options, noalias=False)  # (and so no interchange)
            self._sites[False] = []
            self._ir[False] = lower_module(module, safe, f"m{key[:12]}_alias", self._sites[False],
                                           preflight=False)
        self._engines: dict[bool, Engine] = {}
        self._natives: dict[tuple[str, bool], _Native] = {}
        self._plans: dict[str, object] = {}
        self._engine(options.noalias)
        self.compile_seconds = time.perf_counter() - t0

    def for_module(self, module: ModuleOp) -> CompiledModule:
        """This native code as seen through `module`'s argument names (a structurally equal
        module may name its arguments differently: the hash ignores names)."""
        sigs = signatures(module)
        if sigs == self.signatures:
            return self
        twin = copy.copy(self)  # shares engines and native entry points
        twin.signatures = sigs
        return twin

    # ---- compilation ----------------------------------------------------------------------
    def _engine(self, noalias: bool) -> Engine:
        if noalias not in self._engines:
            self._engines[noalias] = jit(self._ir[noalias])
        return self._engines[noalias]

    def _native(self, name: str, noalias: bool) -> _Native:
        key = (name, noalias)
        if key not in self._natives:
            sig = self.signatures[name]
            engine = self._engine(noalias)
            argtypes: list[type] = []
            for a in sig.args:
                if isinstance(a.type, MemRefType):
                    argtypes.append(ctypes.c_void_p)
                    argtypes += [ctypes.c_int64] * sum(d is None for d in a.type.shape)
                else:
                    argtypes.append(ctype_of(a.type))
            if self._with_status:
                argtypes.append(ctypes.c_void_p)  # the status record
            if len(sig.results) > 1:
                raise ArgumentError(f"@{name} returns {len(sig.results)} values; only functions "
                                    "with at most one result can be called from Python")
            restype = ctype_of(sig.results[0]) if sig.results else None
            proto = ctypes.CFUNCTYPE(restype, *argtypes)
            self._natives[key] = _Native(proto(engine.address(symbol_name(name))), engine,
                                         self._with_status, tuple(self._sites[noalias]))
        return self._natives[key]

    def optimized_ir(self, noalias: bool | None = None) -> str:
        return self._engine(self.options.noalias if noalias is None else noalias).optimized_ir

    # ---- calling ------------------------------------------------------------------------------
    def signature(self, func: str | None = None) -> Signature:
        name = func if func is not None else self.default_func
        if name is None:
            raise ArgumentError(self._no_default)
        if name not in self.signatures:
            known = ", ".join("@" + n for n in self.signatures) or "none"
            raise ArgumentError(f"no function @{name} in the module (functions: {known})")
        return self.signatures[name]

    def call(self, func: str | None, args: Args) -> object:
        """Run `func` in place on `args` (arrays for memrefs, numbers for scalars).

        Returns the function's scalar result, or None. A failed run-time check raises its
        HostRunError (OutOfBoundsError, IntegerDivisionError) located at the op."""
        sig = self.signature(func)
        ordered = _order_args(sig, args)
        fast = self._fast_args(sig, ordered)
        if fast is not None:  # (the hot path of a simulation's kernel calls: inlined)
            native = self._native(sig.name, fast[1])
            if not native.with_status:
                return native.fn(*fast[0])
            return native(fast[0])
        cargs: list[object] = []
        arrays: list[tuple[np.ndarray, bool]] = []
        for spec, value in zip(sig.args, ordered, strict=True):
            if isinstance(spec.type, MemRefType):
                arr = _check_array(sig, spec.name, spec.type, value, spec.written)
                arrays.append((arr, spec.written))
                cargs.append(arr.ctypes.data)
                cargs += [arr.shape[k] for k, d in enumerate(spec.type.shape) if d is None]
            else:
                cargs.append(_check_scalar(sig, spec.name, spec.type, value))
        noalias = self.options.noalias and not _overlap(arrays)
        return self._native(sig.name, noalias)(cargs)


    def _fast_args(self, sig: Signature, ordered: list[object]) -> tuple[list[object], bool] | None:
        """The common case (static shapes, right arrays, no scalars) checked cheaply; None sends
        the call down the slow path, which names what is wrong."""
        plan = self._plans.get(sig.name)
        if plan is None:
            plan = self._plans[sig.name] = _fast_plan(sig)
        if plan is False:
            return None
        cargs: list[object] = []
        any_written = False
        for (dtype, shape, is_written), value in zip(plan, ordered):  # type: ignore[arg-type]
            if type(value) is not np.ndarray or value.dtype != dtype or value.shape != shape:
                return None
            flags = value.flags
            if not flags.c_contiguous:
                return None
            if flags.writeable and value.size and dtype.isbuiltin == 1:
                # byref(from_buffer) is the cheapest way to a data pointer (about 1 us less
                # per array than `.ctypes.data`); it needs a writable, non-empty buffer of a
                # numpy dtype (ctypes cannot read ml_dtypes' buffer formats)
                cargs.append(_byref(_c_char.from_buffer(value)))
            elif is_written and not flags.writeable:
                return None
            else:
                cargs.append(value.ctypes.data)
            any_written = any_written or is_written
        noalias = self.options.noalias
        if noalias and any_written and len(ordered) > 1:
            noalias = not _overlap([(a, w) for a, (_, _, w) in zip(ordered, plan)])  # type: ignore[misc]
        return cargs, noalias


def _fast_plan(sig: Signature) -> list[tuple[np.dtype, tuple[int, ...], bool]] | bool:
    plan = []
    for a in sig.args:
        if not isinstance(a.type, MemRefType) or not a.type.has_static_shape:
            return False
        plan.append((a.type.element.numpy_dtype, tuple(a.type.shape), a.written))
    return plan  # type: ignore[return-value]


def _order_args(sig: Signature, args: Args) -> list[object]:
    if isinstance(args, Mapping):
        by_index: dict[int, object] = {}
        for key, value in args.items():
            spec = sig.lookup(key)
            if spec is None:
                names = ", ".join(a.name for a in sig.args)
                raise ArgumentError(f"@{sig.name} has no argument {key!r} (arguments: {names})")
            if spec.index in by_index:
                raise ArgumentError(f"argument {spec.name!r} of @{sig.name} given twice "
                                    f"(as {spec.name!r} and arg{spec.index})")
            by_index[spec.index] = value
        missing = [a.name for a in sig.args if a.index not in by_index]
        if missing:
            raise ArgumentError(f"@{sig.name} is missing argument(s) {', '.join(map(repr, missing))}")
        return [by_index[a.index] for a in sig.args]
    values = list(args)
    if len(values) != len(sig.args):
        raise ArgumentError(f"@{sig.name} takes {len(sig.args)} arguments, got {len(values)}")
    return values


def _check_array(sig: Signature, name: str, t: MemRefType, value: object,
                 written: bool) -> np.ndarray:
    where = f"argument {name!r} of @{sig.name}"
    if not isinstance(value, np.ndarray):
        raise ArgumentError(f"{where}: expected a numpy array for {t}, got {type(value).__name__}")
    want = t.element.numpy_dtype
    if value.dtype != want:
        raise ArgumentError(f"{where}: expected dtype {want} for {t}, got {value.dtype}")
    if value.ndim != t.rank or any(d is not None and d != s for d, s in zip(t.shape, value.shape)):
        shape = "x".join("?" if d is None else str(d) for d in t.shape)
        raise ArgumentError(f"{where}: expected shape {shape} for {t}, got {'x'.join(map(str, value.shape))}"
                            if value.ndim else f"{where}: expected shape {shape}, got a 0-d array")
    if not value.flags.c_contiguous:
        raise ArgumentError(f"{where}: expected a C-contiguous array, got strides {value.strides}")
    if written and not value.flags.writeable:
        raise ArgumentError(f"{where}: the function writes this array but it is read-only")
    return value


def _check_scalar(sig: Signature, name: str, t: ElementType, value: object) -> object:
    where = f"argument {name!r} of @{sig.name}"
    if isinstance(value, np.ndarray):
        if value.size != 1:  # a 0-d or 1-element array (shape (1,)) is the scalar it holds
            raise ArgumentError(f"{where}: expected a {t} scalar, got an array of shape {value.shape}")
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if t.is_float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ArgumentError(f"{where}: expected a {t} number, got {type(value).__name__}")
        return round_float(float(value), t)
    if not isinstance(value, int | bool):
        raise ArgumentError(f"{where}: expected an integer for {t}, got {type(value).__name__}")
    return int(value)


def _overlap(arrays: list[tuple[np.ndarray, bool]]) -> bool:
    """Could two arrays, one of them written, share memory? (bounds check, cheap)."""
    for i, (a, wa) in enumerate(arrays):
        for b, wb in arrays[i + 1:]:
            if (wa or wb) and np.may_share_memory(a, b):
                return True
    return False
