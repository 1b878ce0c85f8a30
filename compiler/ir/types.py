"""Element, memref and function types; printed exactly as MLIR spells them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class ElementType:
    """A scalar type: `f32`, `f64`, `i1`, `i32`, `i64`, `index`."""

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
    def byte_width(self) -> int:
        return max(1, self.bitwidth // 8)

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(_NUMPY[self.name])


F16 = ElementType("f16", 16, "float")
F32 = ElementType("f32", 32, "float")
F64 = ElementType("f64", 64, "float")
I1 = ElementType("i1", 1, "int")
I8 = ElementType("i8", 8, "int")
I16 = ElementType("i16", 16, "int")
I32 = ElementType("i32", 32, "int")
I64 = ElementType("i64", 64, "int")
INDEX = ElementType("index", 64, "index")

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


ELEMENT_TYPES: dict[str, ElementType] = {
    t.name: t for t in (F16, F32, F64, I1, I8, I16, I32, I64, INDEX)
}
_NUMPY = {
    "f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool", "i8": "int8",
    "i16": "int16", "i32": "int32", "i64": "int64", "index": "int64",
}


def element_type_for_dtype(dtype: np.dtype | str) -> ElementType:
    name = np.dtype(dtype).name
    for key, value in _NUMPY.items():
        if value == name and key != "index":
            return ELEMENT_TYPES[key]
    raise ValueError(f"no element type for numpy dtype {name}")


@dataclass(frozen=True, slots=True)
class MemRefType:
    """A ranked buffer; `None` in the shape is a dynamic (`?`) extent."""

    shape: tuple[int | None, ...]
    element: ElementType
    memory_space: int = 0
    # a memory space written as an attribute (`#spirv.storage_class<StorageBuffer>`): kept
    # opaque and printed back; to the passes it is `memory_space` 0, the slow memory
    space_attr: str | None = None

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

    def with_space(self, space: int) -> MemRefType:
        return MemRefType(self.shape, self.element, space)

    def with_shape(self, shape: tuple[int | None, ...]) -> MemRefType:
        return MemRefType(tuple(shape), self.element, self.memory_space, self.space_attr)

    def __str__(self) -> str:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        space = f", {self.memory_space}" if self.memory_space else ""
        if self.space_attr is not None:
            space = f", {self.space_attr}"
        return f"memref<{dims}{self.element}{space}>"



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
