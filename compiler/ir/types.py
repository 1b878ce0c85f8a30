"""Element, memref and function types; printed exactly as MLIR spells them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class ElementType:
    """A scalar type as MLIR spells it: `f32`, `bf16`, `f8E4M3FN`, `i4`, `i32`, `index`, ...
    Integers are signless as in MLIR (the op says how to read them: `divsi`/`divui`); their
    values are held in two's complement, read as signed (`numpy_dtype` is a signed dtype).
    Every other fact about a type is in `ELEMENT_FACTS`, one row per type."""

    name: str
    bitwidth: int
    kind: str  # "float" | "int" | "index"

    def __str__(self) -> str:
        return self.name

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def is_index(self) -> bool:
        return self.kind == "index"

    @property
    def facts(self) -> ElementFacts:
        return ELEMENT_FACTS[self.name]

    @property
    def byte_width(self) -> int:
        """Bytes one element occupies in an (unpacked) array: `i1` and `i4` take a byte."""
        return max(1, self.bitwidth // 8)

    def packed_bytes(self, count: int) -> int:
        """Bytes `count` elements take packed at `bitwidth` bits each (two `i4` per byte)."""
        return -(-count * self.bitwidth // 8)

    @property
    def numpy_dtype(self) -> np.dtype:
        """The dtype of the arrays that hold this type's values (ml_dtypes for bf16, fp8, i4)."""
        return ELEMENT_FACTS[self.name].dtype

    @property
    def file_dtype(self) -> np.dtype:
        """The dtype of this type's arrays in `--inputs`/`--save` files: bf16 and fp8 as their
        raw bits (uint16/uint8), i4 as int8 in [-8, 7], the others as `numpy_dtype`."""
        return ELEMENT_FACTS[self.name].file_dtype


F16 = ElementType("f16", 16, "float")
BF16 = ElementType("bf16", 16, "float")
F32 = ElementType("f32", 32, "float")
F64 = ElementType("f64", 64, "float")
F8E4M3FN = ElementType("f8E4M3FN", 8, "float")
F8E5M2 = ElementType("f8E5M2", 8, "float")
I1 = ElementType("i1", 1, "int")
I4 = ElementType("i4", 4, "int")
I8 = ElementType("i8", 8, "int")
I16 = ElementType("i16", 16, "int")
I32 = ElementType("i32", 32, "int")
I64 = ElementType("i64", 64, "int")
INDEX = ElementType("index", 64, "index")


@dataclass(frozen=True, slots=True)
class FloatFormat:
    """A binary float format: `precision` significand bits (the implicit one included),
    `emin` the exponent of the smallest normal, `max` the largest finite value, `has_inf`
    (false for the `FN` formats: there an overflow is NaN), and the raw bits' width."""

    precision: int
    emin: int
    max: float
    has_inf: bool


@dataclass(frozen=True, slots=True)
class ElementFacts:
    """One row of the element type table."""

    type: ElementType
    dtype: np.dtype        # arrays holding values of the type
    file_dtype: np.dtype   # arrays in --inputs/--save files
    float_format: FloatFormat | None  # None for integers and index

    @property
    def bits_in_file(self) -> bool:
        """Files hold the raw bits (bf16, fp8), not the values."""
        return self.type.is_float and self.file_dtype != self.dtype


def _row(t: ElementType, dtype: object, file_dtype: object | None = None,
         fmt: FloatFormat | None = None) -> ElementFacts:
    d = np.dtype(dtype)  # type: ignore[call-overload]
    return ElementFacts(t, d, d if file_dtype is None else np.dtype(file_dtype),  # type: ignore[call-overload]
                        fmt)


class _FactsTable(Mapping[str, ElementFacts]):
    """The element type table, each row made when first read: the rows of ml_dtypes' types
    (bf16, fp8, i4) import ml_dtypes, which takes longer than the rest of a CLI start, only
    when a program uses one of them."""

    def __init__(self, rows: dict[str, Callable[[], ElementFacts]]):
        self._make = rows
        self._rows: dict[str, ElementFacts] = {}

    def __getitem__(self, name: str) -> ElementFacts:
        row = self._rows.get(name)
        if row is None:
            row = self._rows[name] = self._make[name]()
        return row

    def __iter__(self) -> Iterator[str]:
        return iter(self._make)

    def __len__(self) -> int:
        return len(self._make)


def _ml(name: str) -> object:
    import ml_dtypes

    return getattr(ml_dtypes, name)


def _bf16_max() -> float:
    import ml_dtypes

    return float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)


ELEMENT_FACTS: Mapping[str, ElementFacts] = _FactsTable({
    "f16": lambda: _row(F16, np.float16, fmt=FloatFormat(11, -14, 65504.0, True)),
    "bf16": lambda: _row(BF16, _ml("bfloat16"), np.uint16, FloatFormat(8, -126, _bf16_max(), True)),
    "f32": lambda: _row(F32, np.float32, fmt=FloatFormat(24, -126, float(np.finfo(np.float32).max), True)),
    "f64": lambda: _row(F64, np.float64, fmt=FloatFormat(53, -1022, float(np.finfo(np.float64).max), True)),
    "f8E4M3FN": lambda: _row(F8E4M3FN, _ml("float8_e4m3fn"), np.uint8, FloatFormat(4, -6, 448.0, False)),
    "f8E5M2": lambda: _row(F8E5M2, _ml("float8_e5m2"), np.uint8, FloatFormat(3, -14, 57344.0, True)),
    "i1": lambda: _row(I1, np.bool_),
    "i4": lambda: _row(I4, _ml("int4"), np.int8),
    "i8": lambda: _row(I8, np.int8),
    "i16": lambda: _row(I16, np.int16),
    "i32": lambda: _row(I32, np.int32),
    "i64": lambda: _row(I64, np.int64),
    "index": lambda: _row(INDEX, np.int64),
})


def wrap_int(value: int, bitwidth: int) -> int:
    """`value` modulo 2**bitwidth, read as a signed two's complement number (i1: 0 or 1)."""
    if bitwidth == 1:
        return value & 1
    value &= (1 << bitwidth) - 1
    return value - (1 << bitwidth) if value >> (bitwidth - 1) else value


@dataclass(frozen=True, slots=True)
class VectorType(ElementType):
    """`vector<8x128xf32>` as a memref element (and as the type of a value loaded from one):
    one element of `byte_width` bytes to the passes; the host and the simulator refuse it."""

    shape: tuple[int, ...] = ()
    scalar: ElementType = ElementType("f32", 32, "float")

    @staticmethod
    def of(shape: tuple[int, ...], scalar: ElementType) -> VectorType:
        dims = "".join(f"{d}x" for d in shape)
        return VectorType(f"vector<{dims}{scalar}>", math.prod(shape) * scalar.bitwidth, "vector",
                          tuple(shape), scalar)

    @property
    def is_float(self) -> bool:
        return self.scalar.is_float

    @property
    def is_int(self) -> bool:
        return self.scalar.is_int

    @property
    def numpy_dtype(self) -> np.dtype:
        raise TypeError(f"{self.name} has no numpy dtype (vector element types are not run)")


def has_vector_element(t: object) -> bool:
    """`t` is a vector type or a memref of vectors."""
    if isinstance(t, MemRefType):
        t = t.element
    return isinstance(t, VectorType)


ELEMENT_TYPES: dict[str, ElementType] = {t.name: t for t in (
    F16, BF16, F32, F64, F8E4M3FN, F8E5M2, I1, I4, I8, I16, I32, I64, INDEX)}
assert list(ELEMENT_TYPES) == list(ELEMENT_FACTS)  # one row per type, in the same order


@dataclass(frozen=True, slots=True)
class MemRefType:
    """A ranked buffer; `None` in the shape is a dynamic (`?`) extent."""

    shape: tuple[int | None, ...]
    element: ElementType
    memory_space: int = 0
    # a memory space written as an attribute (`#spirv.storage_class<StorageBuffer>`): kept
    # opaque and printed back; to the passes it is `memory_space` 0, the slow memory
    space_attr: str | None = None
    # a strided layout as written (`strided<[16, 2], offset: 66>`, the type of a
    # memref.subview): kept and printed back; the front door folds the subviews away
    # (`accelsim.compile.frontend`), so no pass, backend or simulator sees one
    layout: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.shape, tuple):
            object.__setattr__(self, "shape", tuple(self.shape))
        for d in self.shape:
            if d is not None and d < 0:
                raise ValueError(f"memref extent must be >= 0, got {d}")
        if self.memory_space < 0:
            raise ValueError(f"memory space must be >= 0, got {self.memory_space}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def has_static_shape(self) -> bool:
        return all(d is not None for d in self.shape)

    @property
    def num_elements(self) -> int:
        if not self.has_static_shape:
            raise ValueError(f"{self} has a dynamic shape")
        return math.prod(self.shape)  # type: ignore[arg-type]

    @property
    def size_bytes(self) -> int:
        return self.num_elements * self.element.byte_width

    def with_shape(self, shape: tuple[int | None, ...]) -> MemRefType:
        return MemRefType(tuple(shape), self.element, self.memory_space, self.space_attr)

    def __str__(self) -> str:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        space = f", {self.memory_space}" if self.memory_space else ""
        if self.space_attr is not None:
            space = f", {self.space_attr}"
        layout = f", {self.layout}" if self.layout is not None else ""
        return f"memref<{dims}{self.element}{layout}{space}>"


def row_major_strides(shape: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Element strides of a row-major (C-order) array of `shape`: (n1*n2, n2, 1) for (n0, n1, n2)."""
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * shape[i + 1]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class FunctionType:
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]

    def __str__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            return f"({ins}) -> {self.results[0]}"
        return f"({ins}) -> ({', '.join(map(str, self.results))})"


Type = ElementType | MemRefType | FunctionType


def memref(shape: tuple[int | None, ...] | list[int | None], element: ElementType = F32,
           space: int = 0) -> MemRefType:
    """Short constructor for workload authors: `memref((M, K), F32)`."""
    return MemRefType(tuple(shape), element, space)


def round_float(value: float, t: ElementType) -> float:
    """`value` rounded to the nearest value of float type `t` (ties to even; overflow to inf,
    or to NaN for a format without inf), as a Python float."""
    if t.bitwidth == 64:
        return float(value)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.array(value, dtype=np.float64).astype(t.numpy_dtype))


def float_bits(value: float, t: ElementType) -> int:
    """The raw bits of `value` (already a value of `t`) in float type `t`."""
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.array(value, dtype=np.float64).astype(t.numpy_dtype)
    return int(a.view(np.dtype(f"uint{t.bitwidth}")))


def float_from_bits(bits: int, t: ElementType) -> float:
    """The value of float type `t` whose raw bits are `bits` (< 2**bitwidth)."""
    return float(np.array(bits, dtype=np.dtype(f"uint{t.bitwidth}")).view(t.numpy_dtype))


def to_file_array(a: np.ndarray) -> np.ndarray:
    """An array of an element type's `numpy_dtype` as `--save` writes it (`file_dtype`):
    bf16/fp8 as their raw bits, i4 as int8; numpy's own dtypes unchanged."""
    for r in ELEMENT_FACTS.values():
        if r.dtype == a.dtype and r.file_dtype != r.dtype:
            return a.view(r.file_dtype) if r.bits_in_file else a.astype(r.file_dtype)
    return a


def from_file_array(a: np.ndarray, t: ElementType, what: str) -> np.ndarray:
    """The array of `t`'s `numpy_dtype` that `a`, read from an `--inputs` file, stands for;
    ValueError (naming `what`) when `a` has the wrong dtype or an i4 value outside [-8, 7]."""
    r = ELEMENT_FACTS[t.name]
    if a.dtype != r.file_dtype:
        how = (f" (the raw bits of {t}, e.g. `np.asarray(x, ml_dtypes.{r.dtype.name})"
               f".view(np.{r.file_dtype.name})`)" if r.bits_in_file else
               " (values in [-8, 7])" if t.name == "i4" else "")
        also = f" (or ml_dtypes' {r.dtype.name} in Python)" if r.file_dtype != r.dtype else ""
        raise ValueError(f"{what} has dtype {a.dtype}, expected {r.file_dtype}{how}{also}")
    if r.file_dtype == r.dtype:
        return a
    if r.bits_in_file:  # (a 0-d array stays 0-d: np.ascontiguousarray would make it 1-d)
        return (a if a.flags.c_contiguous else np.ascontiguousarray(a)).view(r.dtype)
    if a.size and (int(a.min()) < -8 or int(a.max()) > 7):
        bad = a[(a < -8) | (a > 7)].flat[0]
        raise ValueError(f"{what} holds {bad}, outside i4's range [-8, 7]")
    return a.astype(r.dtype)
