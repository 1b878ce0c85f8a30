"""Convenience entry points: run a module on copies of named inputs; make seeded inputs."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from compiler.backend.cache import compile_module
from compiler.backend.errors import ArgumentError
from compiler.ir.ops import FuncOp, ModuleOp
from compiler.ir.types import ElementType, MemRefType, has_vector_element


def random_inputs(func: FuncOp, seed: int) -> dict[str, np.ndarray]:
    """One array per argument, keyed by argument name: floats uniform in [-1, 1), integers in
    [-8, 8), booleans fair coins. Deterministic in `seed` and the argument order."""
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for name, t in zip(func.arg_names(), func.function_type.inputs, strict=True):
        if isinstance(t, MemRefType):
            if has_vector_element(t):
                raise ArgumentError(f"argument {name!r} of @{func.sym_name} has the type {t}: "
                                    "vector element types are not supported on the host target")
            if not t.has_static_shape:
                raise ArgumentError(f"argument {name!r} of @{func.sym_name} has the dynamic type {t}; "
                                    "random inputs need static shapes")
            out[name] = random_array(rng, t.shape, t.element)  # type: ignore[arg-type]
        elif isinstance(t, ElementType):
            if has_vector_element(t):
                raise ArgumentError(f"argument {name!r} of @{func.sym_name} has the type {t}: "
                                    "vector element types are not supported on the host target")
            out[name] = random_array(rng, (), t)
        else:
            raise ArgumentError(f"argument {name!r} of @{func.sym_name}: unsupported type {t}")
    return out


def random_array(rng: np.random.Generator, shape: tuple[int, ...], t: ElementType) -> np.ndarray:
    dtype = t.numpy_dtype
    if t.is_float:
        return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    if t.bitwidth == 1:
        return rng.integers(0, 2, size=shape).astype(dtype)
    return rng.integers(-8, 8, size=shape).astype(dtype)


def run_host(module: ModuleOp, inputs: Mapping[str, np.ndarray], func: str | None = None,
             *, fast_math: bool = False, bounds_check: bool = False) -> dict[str, np.ndarray]:
    """Compile (cached), run `func` on copies of `inputs`, return every memref argument after
    the call keyed by argument name. Input keys: argument names or `arg0`, `arg1`, ...
    `bounds_check`: see `compile_module`."""
    compiled = compile_module(module, fast_math=fast_math, bounds_check=bounds_check)
    sig = compiled.signature(func)
    copies = {k: np.array(v, copy=True, order="C") if isinstance(v, np.ndarray) else v
              for k, v in inputs.items()}
    compiled.call(sig.name, copies)
    out: dict[str, np.ndarray] = {}
    for key, value in copies.items():
        spec = sig.lookup(key)
        if spec is not None and spec.is_memref:
            out[spec.name] = value  # type: ignore[assignment]
    return out
