"""The affine dialect ops. Index operands are always (dims..., symbols...) of their map."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, BlockArgument, Operation, Value
from compiler.ir.types import INDEX, MemRefType, Type


class AffineForOp(Operation):
    """`affine.for %iv = max lb(...) to min ub(...) step s iter_args(...)`.

    Operands: lower-bound operands, upper-bound operands, iter_args inits.
    Body block arguments: the induction variable, then one per iter_arg.
    """

    __slots__ = ("lower_map", "upper_map", "step")
    NAME = "affine.for"
    ATTRS = ("lower_map", "upper_map", "step")

    def __init__(self, lower_map: AffineMap, lower_operands: Sequence[Value],
                 upper_map: AffineMap, upper_operands: Sequence[Value], step: int = 1,
                 inits: Sequence[Value] = (), loc: Location = UNKNOWN_LOC,
                 iv_name: str | None = None, iter_names: Sequence[str | None] = ()):
        if step <= 0:
            raise ValueError(f"affine.for step must be positive, got {step}")
        body = Block([INDEX] + [v.type for v in inits], [iv_name, *iter_names])
        super().__init__(operands=[*lower_operands, *upper_operands, *inits],
                         result_types=[v.type for v in inits], blocks=[body], loc=loc)
        self.lower_map = lower_map
        self.upper_map = upper_map
        self.step = step

    @property
    def body(self) -> Block:
        return self.blocks[0]

    @property
    def iv(self) -> BlockArgument:
        return self.body.args[0]

    @property
    def region_iter_args(self) -> list[BlockArgument]:
        return self.body.args[1:]

    @property
    def lower_operands(self) -> list[Value]:
        return self.operands[: self.lower_map.num_inputs]

    @property
    def upper_operands(self) -> list[Value]:
        n = self.lower_map.num_inputs
        return self.operands[n: n + self.upper_map.num_inputs]

    @property
    def inits(self) -> list[Value]:
        return self.operands[self.lower_map.num_inputs + self.upper_map.num_inputs:]

    def set_lower_bound(self, m: AffineMap, operands: Sequence[Value]) -> None:
        self.operands = [*operands, *self.upper_operands, *self.inits]
        self.lower_map = m

    def set_upper_bound(self, m: AffineMap, operands: Sequence[Value]) -> None:
        self.operands = [*self.lower_operands, *operands, *self.inits]
        self.upper_map = m

    @property
    def constant_lower(self) -> int | None:
        return self.lower_map.single_constant

    @property
    def constant_upper(self) -> int | None:
        return self.upper_map.single_constant

    @property
    def constant_trip_count(self) -> int | None:
        lo, hi = self.constant_lower, self.constant_upper
        if lo is None or hi is None:
            return None
        return max(0, -((lo - hi) // self.step))


class AffineIfOp(Operation):
    """Blocks: then, else (an empty else block means no else)."""

    __slots__ = ("condition",)
    NAME = "affine.if"
    ATTRS = ("condition",)

    def __init__(self, condition: IntegerSet, operands: Sequence[Value],
                 result_types: Sequence[Type] = (), loc: Location = UNKNOWN_LOC):
        super().__init__(operands=operands, result_types=result_types,
                         blocks=[Block(), Block()], loc=loc)
        self.condition = condition

    @property
    def then_block(self) -> Block:
        return self.blocks[0]

    @property
    def else_block(self) -> Block:
        return self.blocks[1]

    @property
    def has_else(self) -> bool:
        return bool(self.blocks[1].ops)


class AffineYieldOp(Operation):
    __slots__ = ()
    NAME = "affine.yield"
    IS_TERMINATOR = True

    def __init__(self, values: Sequence[Value] = (), loc: Location = UNKNOWN_LOC):
        super().__init__(operands=values, loc=loc)


class _MapOp(Operation):
    """An op whose operands are exactly its map's inputs and that returns index values."""

    __slots__ = ("map",)
    ATTRS = ("map",)

    def __init__(self, map: AffineMap, operands: Sequence[Value], loc: Location = UNKNOWN_LOC,
                 name_hint: str | None = None):
        super().__init__(operands=operands, result_types=[INDEX], loc=loc,
                         result_names=[name_hint])
        self.map = map


class AffineApplyOp(_MapOp):
    __slots__ = ()
    NAME = "affine.apply"


class AffineMinOp(_MapOp):
    __slots__ = ()
    NAME = "affine.min"


class AffineMaxOp(_MapOp):
    __slots__ = ()
    NAME = "affine.max"


class AffineLoadOp(Operation):
    """Operands: memref, map operands."""

    __slots__ = ("map",)
    NAME = "affine.load"
    ATTRS = ("map",)

    def __init__(self, memref: Value, map: AffineMap, indices: Sequence[Value],
                 loc: Location = UNKNOWN_LOC, name_hint: str | None = None):
        assert isinstance(memref.type, MemRefType)
        super().__init__(operands=[memref, *indices], result_types=[memref.type.element], loc=loc,
                         result_names=[name_hint])
        self.map = map

    @property
    def memref(self) -> Value:
        return self.operands[0]

    @property
    def indices(self) -> list[Value]:
        return self.operands[1:]

    def set_access(self, memref: Value, map: AffineMap, indices: Sequence[Value]) -> None:
        self.operands = [memref, *indices]
        self.map = map


class AffineStoreOp(Operation):
    """Operands: value, memref, map operands."""

    __slots__ = ("map",)
    NAME = "affine.store"
    ATTRS = ("map",)

    def __init__(self, value: Value, memref: Value, map: AffineMap, indices: Sequence[Value],
                 loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[value, memref, *indices], loc=loc)
        self.map = map

    @property
    def value(self) -> Value:
        return self.operands[0]

    @property
    def memref(self) -> Value:
        return self.operands[1]

    @property
    def indices(self) -> list[Value]:
        return self.operands[2:]

    def set_access(self, memref: Value, map: AffineMap, indices: Sequence[Value]) -> None:
        self.operands = [self.value, memref, *indices]
        self.map = map


class AffineDmaStartOp(Operation):
    """Operands: src, src idx, dst, dst idx, tag, tag idx, num_elements[, stride, per_stride].

    MLIR semantics: `num_elements` elements are moved; with a stride, they are taken in
    chunks of `elements_per_stride` contiguous elements whose starts are `stride` apart on
    the side that is in the slow memory space, and packed contiguously on the other side.
    """

    __slots__ = ("src_map", "dst_map", "tag_map")
    NAME = "affine.dma_start"
    ATTRS = ("src_map", "dst_map", "tag_map")

    def __init__(self, src: Value, src_map: AffineMap, src_indices: Sequence[Value],
                 dst: Value, dst_map: AffineMap, dst_indices: Sequence[Value],
                 tag: Value, tag_map: AffineMap, tag_indices: Sequence[Value],
                 num_elements: Value, stride: Value | None = None,
                 elements_per_stride: Value | None = None, loc: Location = UNKNOWN_LOC):
        if (stride is None) != (elements_per_stride is None):
            raise ValueError("dma_start takes both stride and elements_per_stride, or neither")
        ops = [src, *src_indices, dst, *dst_indices, tag, *tag_indices, num_elements]
        if stride is not None:
            ops += [stride, elements_per_stride]  # type: ignore[list-item]
        super().__init__(operands=ops, loc=loc)
        self.src_map = src_map
        self.dst_map = dst_map
        self.tag_map = tag_map

    def _offsets(self) -> tuple[int, int, int, int]:
        s = 0
        d = s + 1 + self.src_map.num_inputs
        t = d + 1 + self.dst_map.num_inputs
        n = t + 1 + self.tag_map.num_inputs
        return s, d, t, n

    @property
    def src(self) -> Value:
        return self.operands[0]

    @property
    def src_indices(self) -> list[Value]:
        s, d, _, _ = self._offsets()
        return self.operands[s + 1: d]

    @property
    def dst(self) -> Value:
        return self.operands[self._offsets()[1]]

    @property
    def dst_indices(self) -> list[Value]:
        _, d, t, _ = self._offsets()
        return self.operands[d + 1: t]

    @property
    def tag(self) -> Value:
        return self.operands[self._offsets()[2]]

    @property
    def tag_indices(self) -> list[Value]:
        _, _, t, n = self._offsets()
        return self.operands[t + 1: n]

    @property
    def num_elements(self) -> Value:
        return self.operands[self._offsets()[3]]

    @property
    def is_strided(self) -> bool:
        return len(self.operands) == self._offsets()[3] + 3

    @property
    def stride(self) -> Value | None:
        return self.operands[self._offsets()[3] + 1] if self.is_strided else None

    @property
    def elements_per_stride(self) -> Value | None:
        return self.operands[self._offsets()[3] + 2] if self.is_strided else None

    def set_side(self, which: str, memref: Value, map: AffineMap, indices: Sequence[Value]) -> None:
        """Rewrite one of the `src`, `dst`, `tag` sides."""
        parts = {"src": (self.src, self.src_map, self.src_indices),
                 "dst": (self.dst, self.dst_map, self.dst_indices),
                 "tag": (self.tag, self.tag_map, self.tag_indices)}
        parts[which] = (memref, map, list(indices))
        tail = self.operands[self._offsets()[3]:]
        ops: list[Value] = []
        for name in ("src", "dst", "tag"):
            m, _, idx = parts[name]
            ops += [m, *idx]
        self.src_map, self.dst_map, self.tag_map = (parts[k][1] for k in ("src", "dst", "tag"))
        self.operands = ops + tail


class AffineDmaWaitOp(Operation):
    """Operands: tag, tag idx, num_elements."""

    __slots__ = ("tag_map",)
    NAME = "affine.dma_wait"
    ATTRS = ("tag_map",)

    def __init__(self, tag: Value, tag_map: AffineMap, tag_indices: Sequence[Value],
                 num_elements: Value, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[tag, *tag_indices, num_elements], loc=loc)
        self.tag_map = tag_map

    @property
    def tag(self) -> Value:
        return self.operands[0]

    @property
    def tag_indices(self) -> list[Value]:
        return self.operands[1:-1]

    @property
    def num_elements(self) -> Value:
        return self.operands[-1]

    def set_tag(self, tag: Value, map: AffineMap, indices: Sequence[Value]) -> None:
        self.operands = [tag, *indices, self.num_elements]
        self.tag_map = map


MEMORY_OPS = (AffineLoadOp, AffineStoreOp)
