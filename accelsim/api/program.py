"""What a run is given: the program (a module, its entry function, the workload it came
from) and the arrays of its arguments.

`load_program` reads a `.mlir` file (`-` for stdin) or a workload spec; `load_inputs` reads an
`.npz` archive or generates the arguments from a seed; `check_outputs` compares a workload's
outputs with its numpy reference. `accelsim run` and `accelsim.run` both start here.
"""

from __future__ import annotations

import hashlib
import math
import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from accelsim.errors import InputError
from compiler.ir.entry import entry_function
from compiler.ir.ops import FuncOp, ModuleOp
from compiler.ir.types import ElementType, MemRefType, from_file_array


@dataclass(frozen=True)
class Program:
    """What to run: a module, the function in it, and the workload it came from (if any)."""

    source: str
    module: ModuleOp
    func: FuncOp
    workload: Any = None  # workloads.BoundWorkload when INPUT was a spec
    lowered: tuple[str, ...] = ()  # passes the front door ran on load (linalg input)

    @property
    def func_name(self) -> str:
        return self.func.sym_name


def load_program(source: str, func: str | None = None) -> Program:
    """INPUT is a `.mlir` file (or `-` for stdin) or a workload spec `gemm:M=64,N=64,K=64`."""
    import workloads

    workload = None
    lowered: tuple[str, ...] = ()
    if source == "-" or source.endswith(".mlir") or os.path.exists(source):
        from compiler.text import parse_file

        module = parse_file(source)
        _verify(module)
        from accelsim.compile.frontend import lower_linalg

        lowered = tuple(lower_linalg(module))  # linalg enters as its affine loops, for every target
    elif workloads.is_workload_spec(source):
        workload = workloads.get(source)
        module = workload.module()
    else:
        name = source.partition(":")[0]
        if ":" in source or not os.path.splitext(source)[1]:
            workloads.get(source)  # raises a WorkloadError naming what exists
        raise InputError(f"INPUT {name!r} is neither an existing .mlir file nor a workload spec "
                         f"(workloads: {', '.join(workloads.names())})")
    if func is None and workload is not None:
        func = workload.func_name
    return Program(source, module, pick_function(module, func), workload, lowered)


def _verify(module: ModuleOp) -> None:
    from compiler.ir.verifier import verify

    verify(module)


def pick_function(module: ModuleOp, name: str | None) -> FuncOp:
    """The function to run (`compiler.ir.entry`); `--func` named where it would help."""
    try:
        return entry_function(module, name, InputError)
    except InputError as exc:
        if name is None and sum(1 for f in module.funcs if not f.is_declaration) > 1:
            raise InputError(f"{exc}; use --func") from None
        raise


def load_inputs(program: Program, npz: str | None, seed: int | None,
                data: bool = True) -> dict[str, np.ndarray]:
    """Arrays for every argument of the function, keyed by argument name.

    From `npz` (keys: argument names as written, or arg0, arg1, ...), else generated from
    `seed` (default 0): a workload's own generator, or uniform [-1, 1) floats. With
    `data=False` (a run that moves no data) nothing is generated when every argument is a
    memref of static shape: the run needs no values at all."""
    func = program.func
    if npz is None:
        seed = 0 if seed is None else seed
        args = func.function_type.inputs
        if not data and all(isinstance(t, MemRefType) and t.has_static_shape for t in args):
            return {}
        check_fits_in_memory(func)
        if program.workload is not None:
            return program.workload.random_inputs(seed)
        from compiler.backend import random_inputs

        return random_inputs(func, seed)
    if seed is not None:
        raise InputError("give either --inputs or --seed, not both")
    try:
        with open(npz, "rb") as fh:
            magic = fh.read(6)
        if not magic:
            raise EOFError
        if not (magic.startswith(b"PK") or magic == b"\x93NUMPY"):
            raise ValueError("not an .npz archive (no zip header)")
        data = np.load(npz, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):  # a bare .npy array has no names
            raise ValueError("a single array (.npy), not an .npz archive of named arrays")
        with data:
            raw = {k: data[k] for k in data.files}
    except EOFError:
        raise InputError(f"cannot read inputs from {npz}: the file is empty") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"cannot read inputs from {npz}: {reason} (expected an .npz archive "
                         "written by numpy.savez)") from None
    return match_inputs(func, raw, npz)


def check_fits_in_memory(func: FuncOp) -> None:
    """Generated inputs for every memref argument must fit in this machine's memory."""
    sizes = {name: (t, math.prod(t.shape) * t.element.byte_width)  # type: ignore[arg-type]
             for name, t in zip(func.arg_names(), func.function_type.inputs, strict=True)
             if isinstance(t, MemRefType) and t.has_static_shape}
    total = sum(n for _, n in sizes.values())
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if total > memory:
        name, (t, n) = max(sizes.items(), key=lambda kv: kv[1][1])
        raise InputError(f"the inputs of @{func.sym_name} need {total:,} bytes (argument %{name}: "
                         f"{t} alone {n:,} bytes), more than this machine's memory ({memory:,} "
                         "bytes); --target sim --timing-only runs without data")


def match_inputs(func: FuncOp, raw: Mapping[str, np.ndarray], where: str) -> dict[str, np.ndarray]:
    names = func.arg_names()
    by_key: dict[str, str] = {f"arg{i}": n for i, n in enumerate(names)}
    by_key.update({n: n for n in names})  # a written name wins over a position
    out: dict[str, np.ndarray] = {}
    for key, value in raw.items():
        if key not in by_key:
            raise InputError(f"{where}: unexpected input {key!r}; @{func.sym_name} takes "
                             f"{', '.join(names)} (or arg0..arg{len(names) - 1})")
        name = by_key[key]
        if name in out:
            raise InputError(f"{where}: argument {name!r} given twice (key {key!r})")
        out[name] = value
    missing = [n for n in names if n not in out]
    if missing:
        raise InputError(f"{where}: missing input(s) {', '.join(map(repr, missing))} "
                         f"for @{func.sym_name}")
    for name, t in zip(names, func.function_type.inputs, strict=True):
        out[name] = _check(where, name, t, out[name])
    return out


def _check(where: str, name: str, t: object, value: np.ndarray) -> np.ndarray:
    if isinstance(t, MemRefType):
        element = t.element
        if value.ndim != t.rank or any(d is not None and d != s for d, s in zip(t.shape, value.shape)):
            raise InputError(f"{where}: input {name!r} has shape {value.shape}, expected "
                             f"{tuple('?' if d is None else d for d in t.shape)} for {t}")
    elif isinstance(t, ElementType):
        element = t
        if value.size != 1:
            raise InputError(f"{where}: input {name!r} has shape {value.shape}, expected a {t} scalar "
                             "(a 0-d or 1-element array)")
        value = value.reshape(())  # shape (1,), as some writers save a scalar, is that scalar
    else:
        raise InputError(f"{where}: argument {name!r} has unsupported type {t}")
    if value.dtype != element.numpy_dtype:
        try:  # bf16/fp8 in files as raw bits, i4 as int8 (docs/precision.md)
            value = from_file_array(value, element, f"{where}: input {name!r} ({t})")
        except ValueError as exc:
            raise InputError(str(exc)) from None
    # a scalar stays 0-d (np.ascontiguousarray would make it shape (1,))
    return np.ascontiguousarray(value) if value.ndim else np.array(value, copy=True)


def describe_array(a: np.ndarray) -> dict[str, Any]:
    """Shape, dtype and checksums (exact: sha256 of the bytes; readable: float64 sum)."""
    total = float(np.sum(a, dtype=np.float64)) if a.dtype != np.bool_ else float(np.count_nonzero(a))
    return {"shape": list(a.shape), "dtype": str(a.dtype),
            "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest(),
            "sum": total if math.isfinite(total) else str(total)}


def program_of_module(module: ModuleOp, func: str | None = None, source: str = "<module>") -> Program:
    """A module built in Python (or parsed) as the program to run: linalg lowered to affine
    loops as the front door does for a `.mlir` file; the entry function picked by the one rule."""
    from accelsim.compile.frontend import lower_linalg

    _verify(module)
    lowered = tuple(lower_linalg(module))
    return Program(source, module, pick_function(module, func), None, lowered)


def check_outputs(program: Program, inputs: Mapping[str, np.ndarray],
                  arrays: Mapping[str, np.ndarray]) -> tuple[dict[str, Any], bool]:
    """`--check`: every output of the workload against its numpy reference (`rtol`/`atol` the
    workload's); the `check` figure and whether all match."""
    w = program.workload
    if w is None:
        raise InputError("--check needs a workload spec as INPUT (a .mlir file has no reference)")
    expected = w.reference(inputs)
    worst: dict[str, float] = {}
    ok = True
    for name in w.outputs:
        got, want = arrays[name].astype(np.float64), expected[name].astype(np.float64)
        worst[name] = float(np.max(np.abs(got - want), initial=0.0))
        ok &= bool(np.allclose(got, want, rtol=w.rtol, atol=w.atol))
    return {"ok": ok, "rtol": w.rtol, "atol": w.atol, "max_abs_error": worst}, ok


def check_figure_path(option: str, path: str) -> None:
    """A figure format matplotlib writes, known from the file's extension."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if ext not in formats:
        raise InputError(f"{option} {path}: unknown figure format {ext or '(no extension)'!r} "
                         f"(formats: {', '.join(sorted(formats))})")
