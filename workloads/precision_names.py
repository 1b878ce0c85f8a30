"""The names `--dtype` (and a sweep's `dtype` key) take for a precision: MLIR's element type
names and the usual ones. Here, below `accelsim.network.precision` and `accelsim.dse.spec`,
which both read them (the DSE must not import the network package)."""

from __future__ import annotations

from workloads.model import DTYPES

# the names `--dtype` takes (MLIR's and the usual ones)
NAMES: dict[str, str] = {"int8": "i8", "int4": "i4", "int16": "i16", "bf16": "bf16",
                         "fp8": "f8E4M3FN", "fp8e5m2": "f8E5M2", "f16": "f16", "fp16": "f16",
                         "f32": "f32", "fp32": "f32"}


def dtype_name(text: str) -> str:
    """MLIR's name of a `--dtype` value; a ValueError naming the choices otherwise."""
    name = NAMES.get(text.lower()) if isinstance(text, str) else None
    if name is None and isinstance(text, str) and text in DTYPES:
        name = text
    if name is None:
        raise ValueError(f"--dtype {text!r}: expected one of int8, int4, int16, bf16, fp8, "
                         "fp8e5m2, f16, f32")
    return name


__all__ = ["NAMES", "dtype_name"]
