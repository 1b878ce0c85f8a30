"""The linalg dialect on memrefs: `linalg.generic`, the named structured ops (matmul, convs,
pooling, fill, copy, ...), `linalg.yield`, `linalg.index`.

A structured op's operands are its inputs then its outputs (`num_inputs` first), as in MLIR.
Its meaning is an iteration domain (one loop per dim of its indexing maps, each `parallel` or
`reduction`), one indexing map per operand (a scalar input has a map with no results) and a
payload: the region of `linalg.generic`, or the fixed body a named op stands for
(`payload`: "mac", "add", "max", "min", "yield"). The named ops' maps follow upstream's
definitions (LinalgNamedStructuredOps.yaml); strides and dilations enter the window maps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.affine_expr import AffineExpr, Dim
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, Operation, Value
from compiler.ir.types import INDEX, ElementType, MemRefType, Type

PARALLEL, REDUCTION = "parallel", "reduction"
ITERATOR_TYPES = (PARALLEL, REDUCTION)


def element_type(t: Type) -> ElementType | None:
    """The scalar of an operand: its element type for a memref, itself for a scalar."""
    if isinstance(t, MemRefType):
        return t.element
    return t if isinstance(t, ElementType) else None


class LinalgOp(Operation):
    """A structured op on memrefs: operands = inputs + outputs."""

    __slots__ = ("num_inputs",)
    ATTRS: ClassVar[tuple[str, ...]] = ("num_inputs",)

    def __init__(self, inputs: Sequence[Value], outputs: Sequence[Value],
                 blocks: Sequence[Block] = (), loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[*inputs, *outputs], blocks=blocks, loc=loc)
        self.num_inputs = len(inputs)

    @property
    def inputs(self) -> list[Value]:
        return self.operands[: self.num_inputs]

    @property
    def outputs(self) -> list[Value]:
        return self.operands[self.num_inputs:]

    # the structure every lowering and check reads
    def indexing_maps(self) -> tuple[AffineMap, ...]:
        raise NotImplementedError

    def iterator_types(self) -> tuple[str, ...]:
        raise NotImplementedError

    @property
    def num_loops(self) -> int:
        return len(self.iterator_types())

    def loop_sizes(self) -> list[int | None]:
        """The extent of each loop: the size of the first operand dimension (inputs, then
        outputs) its map indexes with that loop alone, as upstream derives loop ranges from
        shapes; None when no operand dimension gives it or that dimension is dynamic."""
        sizes: list[int | None] = [None] * self.num_loops
        found = [False] * self.num_loops
        for v, m in zip(self.operands, self.indexing_maps(), strict=True):
            if not isinstance(v.type, MemRefType):
                continue
            for r, extent in zip(m.results, v.type.shape, strict=False):
                if isinstance(r, Dim) and not found[r.pos]:
                    found[r.pos] = True
                    sizes[r.pos] = extent
        return sizes


class GenericOp(LinalgOp):
    """`linalg.generic {indexing_maps = [...], iterator_types = [...]} ins(..) outs(..) {^bb0(..): ..}`.

    The body block has one scalar argument per operand and ends with `linalg.yield` of one
    value per output."""

    __slots__ = ("maps", "iterators")
    NAME = "linalg.generic"
    ATTRS = ("num_inputs", "maps", "iterators")

    def __init__(self, inputs: Sequence[Value], outputs: Sequence[Value],
                 maps: Sequence[AffineMap], iterators: Sequence[str], body: Block | None = None,
                 loc: Location = UNKNOWN_LOC):
        if body is None:
            body = Block([element_type(v.type) or v.type for v in [*inputs, *outputs]])
        super().__init__(inputs, outputs, blocks=[body], loc=loc)
        self.maps = tuple(maps)
        self.iterators = tuple(iterators)

    @property
    def body(self) -> Block:
        return self.blocks[0]

    def indexing_maps(self) -> tuple[AffineMap, ...]:
        return self.maps

    def iterator_types(self) -> tuple[str, ...]:
        return self.iterators


class LinalgYieldOp(Operation):
    __slots__ = ()
    NAME = "linalg.yield"
    IS_TERMINATOR = True

    def __init__(self, values: Sequence[Value] = (), loc: Location = UNKNOWN_LOC):
        super().__init__(operands=values, loc=loc)


class LinalgIndexOp(Operation):
    """`linalg.index N : index`: the current value of loop N of the enclosing generic."""

    __slots__ = ("dim",)
    NAME = "linalg.index"
    ATTRS = ("dim",)

    def __init__(self, dim: int, loc: Location = UNKNOWN_LOC):
        super().__init__(result_types=[INDEX], loc=loc)
        self.dim = dim


# ---- named ops -----------------------------------------------------------------------------
MapsFn = Callable[[int, tuple[int, int], tuple[int, int]], tuple[tuple[AffineExpr, ...], ...]]


class NamedLinalgOp(LinalgOp):
    """A named structured op; subclasses set NAME, NUM_INPUTS, PAYLOAD, ITERATORS (a function
    of the output rank for the rank-generic ops fill/copy) and MAPS. Convolutions and pooling
    (`WINDOWED`) take `strides` and `dilations` (2 values each; None = not written, 1)."""

    __slots__ = ("strides", "dilations")
    ATTRS = ("num_inputs", "strides", "dilations")
    NUM_INPUTS: ClassVar[int] = 2
    PAYLOAD: ClassVar[str] = "mac"
    WINDOWED: ClassVar[bool] = False
    ITERATORS: ClassVar[str] = ""  # "p"/"r" per loop; empty: all parallel over the output rank
    MAPS: ClassVar[MapsFn]

    def __init__(self, inputs: Sequence[Value], outputs: Sequence[Value],
                 strides: tuple[int, ...] | None = None, dilations: tuple[int, ...] | None = None,
                 loc: Location = UNKNOWN_LOC):
        super().__init__(inputs, outputs, loc=loc)
        self.strides = strides
        self.dilations = dilations

    def _out_rank(self) -> int:
        t = self.outputs[0].type if self.outputs else None
        return t.rank if isinstance(t, MemRefType) else 0

    def iterator_types(self) -> tuple[str, ...]:
        if not self.ITERATORS:
            return (PARALLEL,) * self._out_rank()
        return tuple(PARALLEL if c == "p" else REDUCTION for c in self.ITERATORS)

    def indexing_maps(self) -> tuple[AffineMap, ...]:
        n = self.num_loops
        s = self.strides or (1, 1)
        d = self.dilations or (1, 1)
        results = type(self).MAPS(self._out_rank(), (s[0], s[-1]), (d[0], d[-1]))
        return tuple(AffineMap(n, 0, r) for r in results)


def _d(*pos: int) -> tuple[Dim, ...]:
    return tuple(Dim(p) for p in pos)


def _win(out: int, k: int, s: int, d: int) -> AffineExpr:
    return Dim(out) * s + Dim(k) * d


def _named(name: str, payload: str, iterators: str, maps: MapsFn, num_inputs: int = 2,
           windowed: bool = False) -> type[NamedLinalgOp]:
    cls_name = "".join(part.capitalize() for part in name.split(".")[1].split("_")) + "Op"
    return type(cls_name, (NamedLinalgOp,), {
        "__slots__": (), "NAME": name, "PAYLOAD": payload, "ITERATORS": iterators,
        "MAPS": staticmethod(maps), "NUM_INPUTS": num_inputs, "WINDOWED": windowed,
        "__doc__": f"`{name}` (payload {payload}, loops {iterators or 'all parallel'}).",
    })


def _pool_nhwc(r: int, s: tuple[int, int], d: tuple[int, int]) -> tuple[tuple[AffineExpr, ...], ...]:
    # (n, oh, ow, c, kh, kw): I[n, oh*s+kh*d, ow*s+kw*d, c], window[kh, kw], O[n, oh, ow, c]
    return ((Dim(0), _win(1, 4, s[0], d[0]), _win(2, 5, s[1], d[1]), Dim(3)), _d(4, 5), _d(0, 1, 2, 3))


def _pool_nchw(r: int, s: tuple[int, int], d: tuple[int, int]) -> tuple[tuple[AffineExpr, ...], ...]:
    # (n, c, oh, ow, kh, kw): I[n, c, oh*s+kh*d, ow*s+kw*d], window[kh, kw], O[n, c, oh, ow]
    return ((Dim(0), Dim(1), _win(2, 4, s[0], d[0]), _win(3, 5, s[1], d[1])), _d(4, 5), _d(0, 1, 2, 3))


# upstream has no pooling_nchw_min
_POOLING = {f"linalg.pooling_{layout}_{kind}": (kind, fn)
            for layout, fn, kinds in (("nhwc", _pool_nhwc, ("sum", "max", "min")),
                                      ("nchw", _pool_nchw, ("sum", "max")))
            for kind in kinds}

NAMED_OPS: dict[str, type[NamedLinalgOp]] = {
    c.NAME: c for c in (
        # (m, n, k): A[m, k], B[k, n], C[m, n]
        _named("linalg.matmul", "mac", "ppr", lambda r, s, d: (_d(0, 2), _d(2, 1), _d(0, 1))),
        # (b, m, n, k): A[b, m, k], B[b, k, n], C[b, m, n]
        _named("linalg.batch_matmul", "mac", "pppr",
               lambda r, s, d: (_d(0, 1, 3), _d(0, 3, 2), _d(0, 1, 2))),
        # (m, n): A[m, n], x[n], y[m]
        _named("linalg.matvec", "mac", "pr", lambda r, s, d: (_d(0, 1), _d(1), _d(0))),
        # (n, oh, ow, f, kh, kw, c): I[n, oh*s+kh*d, ow*s+kw*d, c], K[kh, kw, c, f], O[n, oh, ow, f]
        _named("linalg.conv_2d_nhwc_hwcf", "mac", "pppprrr",
               lambda r, s, d: ((Dim(0), _win(1, 4, s[0], d[0]), _win(2, 5, s[1], d[1]), Dim(6)),
                                _d(4, 5, 6, 3), _d(0, 1, 2, 3)), windowed=True),
        # (n, f, oh, ow, c, kh, kw): I[n, c, oh*s+kh*d, ow*s+kw*d], K[f, c, kh, kw], O[n, f, oh, ow]
        _named("linalg.conv_2d_nchw_fchw", "mac", "pppprrr",
               lambda r, s, d: ((Dim(0), Dim(4), _win(2, 5, s[0], d[0]), _win(3, 6, s[1], d[1])),
                                _d(1, 4, 5, 6), _d(0, 1, 2, 3)), windowed=True),
        # (n, oh, ow, c, kh, kw): I[n, oh*s+kh*d, ow*s+kw*d, c], K[kh, kw, c], O[n, oh, ow, c]
        _named("linalg.depthwise_conv_2d_nhwc_hwc", "mac", "pppprr",
               lambda r, s, d: ((Dim(0), _win(1, 4, s[0], d[0]), _win(2, 5, s[1], d[1]), Dim(3)),
                                _d(4, 5, 3), _d(0, 1, 2, 3)), windowed=True),
        *(_named(name, kind if kind != "sum" else "add", "pppprr", fn, windowed=True)
          for name, (kind, fn) in _POOLING.items()),
        # (d0..dr): a scalar in, O[d0..dr]
        _named("linalg.fill", "yield", "", lambda r, s, d: ((), _d(*range(r))), num_inputs=1),
        # (d0..dr): I[d0..dr], O[d0..dr]
        _named("linalg.copy", "yield", "", lambda r, s, d: (_d(*range(r)), _d(*range(r))),
               num_inputs=1),
    )
}

LINALG_OPS = (GenericOp, LinalgYieldOp, LinalgIndexOp, *NAMED_OPS.values())


def has_linalg(root: Operation) -> bool:
    """Whether `root` holds a linalg op (the accelerator pipeline lowers them first)."""
    return any(isinstance(op, LinalgOp) for op in root.walk())
