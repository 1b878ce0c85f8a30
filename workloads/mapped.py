"""A convolution or matmul written tiled, with the tile sizes and loop orders of a mapping.

Timeloop's dimension names (Timeloop's convolution notation, as the DOSA / Gemmini rows use
them): N batch, K output channels, C input channels, P x Q output rows x columns, R x S
filter; a matmul is P rows x C reduction x K columns (`Q = R = S = 1`).

    layer = Layer(dict(N=1, K=128, C=64, P=28, Q=28, R=3, S=3), stride=1)
    module = build_mapped(layer, tiles={"K": 16, "P": 14, ...}, tile_order="QPK",
                          layout="nhwc")

The program: one loop per dimension with more than one tile (outermost first in
`tile_order`, the dimensions it does not name after it in `DIMS` order), then the loops of one
tile in `intra_order` (Gemmini's hardware loop `loop_conv_ws`: batch, output row, output
column, output channel, kernel row, kernel column, input channel — the input channels of one
kernel position innermost of the reduction, on the array's rows, the output columns innermost
of the stream), and `out += in * w`. Partial tiles at the end of a dimension are clipped
(`min` bounds). The accelerator pipeline then copies each tile (`copy-depth` = the number of
tile loops, `accelsim.compile.mapping`).

Layouts: "nhwc" (Gemmini's: input N x H x W x C, weights R x S x C x K, output N x P x Q x K,
the input pre-padded to H = (P - 1) * stride + R), "nchw" (the `conv2d` workload's: input
N x C x H x W, filter K x C x R x S, output N x K x P x Q) and "gemm" (the `gemm` workload's
A M x K, B K x N, C M x N with M = P, K = C, N = K of Timeloop's names).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref

DIMS = "NKCPQRS"
OUTPUT_DIMS = "NKPQ"
REDUCTION_DIMS = "CRS"
GEMMINI_INTRA_ORDER = "NPQKRSC"   # loop_conv_ws's loops inside one tile
LAYOUTS = ("nhwc", "nchw", "gemm")


@dataclass(frozen=True, slots=True)
class Layer:
    """A convolution layer in Timeloop's names (a matmul: Q = R = S = 1)."""

    dims: Mapping[str, int]
    stride: int = 1
    in_rows: int = 0      # the input's rows / columns when larger than the outputs need
    in_cols: int = 0      # (a `conv2d` workload's H, W); 0: (P - 1) x stride + R

    def __post_init__(self) -> None:
        missing = [d for d in DIMS if d not in self.dims]
        bad = [f"{d}={v}" for d, v in self.dims.items() if d not in DIMS or int(v) < 1]
        if missing or bad:
            raise ValueError(f"layer: expected positive N, K, C, P, Q, R, S; missing {missing}, "
                             f"bad {bad}")
        if self.stride < 1:
            raise ValueError(f"layer: stride {self.stride}: expected >= 1")
        object.__setattr__(self, "dims", {d: int(self.dims[d]) for d in DIMS})

    @property
    def is_matmul(self) -> bool:
        return self.dims["Q"] == 1 and self.dims["R"] == 1 and self.dims["S"] == 1

    def input_extent(self, out_dim: str, window_dim: str) -> int:
        need = (self.dims[out_dim] - 1) * self.stride + self.dims[window_dim]
        given = self.in_rows if out_dim == "P" else self.in_cols
        return max(need, given)

    @property
    def macs(self) -> int:
        m = 1
        for d in DIMS:
            m *= self.dims[d]
        return m


def tile_loops(layer: Layer, tiles: Mapping[str, int], tile_order: str) -> list[str]:
    """The dimensions with more than one tile, outermost first: `tile_order`'s, then the rest."""
    order = [d for d in tile_order if d in DIMS]
    order += [d for d in DIMS if d not in order]
    return [d for d in order if -(-layer.dims[d] // tiles.get(d, layer.dims[d])) > 1]


def chunked(layer: Layer, tiles: Mapping[str, int], chunk: int) -> bool:
    """Whether a tile's input channels are split into chunks of `chunk` (a loop of its own)."""
    c = min(tiles.get("C", layer.dims["C"]), layer.dims["C"])
    return 0 < chunk < c


def build_mapped(layer: Layer, tiles: Mapping[str, int], tile_order: str = "",
                 intra_order: str = GEMMINI_INTRA_ORDER, layout: str = "nhwc",
                 dtype: ElementType = F32, chunk: int = 0, accumulate: bool = True) -> ModuleOp:
    """The layer tiled by `tiles` (a size per dimension; absent: the whole extent). With
    `chunk`, one more loop inside the tile loops runs over the tile's input channels `chunk`
    at a time (the copies then go below it: a tile is moved in chunk by chunk and the array
    starts on a chunk as soon as it has landed).

    `accumulate`: the program adds the layer to the output's values (`out += in * w`);
    false: the output holds zeros when the program starts (a DNN layer without bias, as
    Gemmini runs one), and where one nest holds an output's whole reduction (no reduction
    tile loop, no chunk loop) the nest writes that zero itself before the reduction loops,
    so the copy pass leaves the output tile's copy-in out (`compiler.analysis.exposed.
    copy_in_needed`): the partial sums start on chip, as Gemmini's first compute into the
    accumulator overwrites it. Where the reduction is split over tiles or chunks, the
    partial sums are read back from the output as with `accumulate` (a zero inside the
    nest under a condition on those loops would make the kernel a different shape)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r}: expected one of {', '.join(LAYOUTS)}")
    if sorted(intra_order) != sorted(DIMS):
        raise ValueError(f"intra_order {intra_order!r}: expected a permutation of {DIMS}")
    if not accumulate and max(intra_order.index(d) for d in OUTPUT_DIMS) > \
            min(intra_order.index(d) for d in REDUCTION_DIMS):
        raise ValueError(f"intra_order {intra_order!r}: accumulate=False needs the output loops "
                         f"({OUTPUT_DIMS}) outside the reduction loops ({REDUCTION_DIMS})")
    if layout == "gemm" and not (layer.is_matmul and layer.dims["N"] == 1):
        raise ValueError("layout 'gemm' needs a matmul layer (N = Q = R = S = 1)")
    dims, st = layer.dims, layer.stride
    t = {d: min(max(1, int(tiles.get(d, dims[d]))), dims[d]) for d in DIMS}
    outer = tile_loops(layer, t, tile_order)
    H, W = layer.input_extent("P", "R"), layer.input_extent("Q", "S")
    N, K, C, P, Q, R, S = (dims[d] for d in DIMS)
    if layout == "nhwc":
        shapes = {"input": (N, H, W, C), "weights": (R, S, C, K), "output": (N, P, Q, K)}
        name = "conv_nhwc"
    elif layout == "nchw":
        shapes = {"input": (N, C, H, W), "filter": (K, C, R, S), "output": (N, K, P, Q)}
        name = "conv2d"
    else:
        shapes = {"A": (P, C), "B": (C, K), "C": (P, K)}
        name = "gemm"
    b = Builder()
    with b.func(name, **{k: memref(v, dtype) for k, v in shapes.items()}) as (x, w, out):
        iv: dict[str, object] = {}
        clip: dict[str, tuple[object, object]] = {}   # a chunk's own bounds
        firsts: list[object] = []                     # the chunk loop's iv, when there is one

        def bounds(d: str) -> tuple[object, object]:
            if d in clip:
                return clip[d]
            if d in iv:
                return iv[d], [iv[d] + t[d], dims[d]]  # type: ignore[operator]
            return 0, dims[d]

        def nest(k: int) -> None:
            if k < len(outer):
                d = outer[k]
                for v in b.range(0, dims[d], t[d]):
                    iv[d] = v
                    nest(k + 1)
                return
            if k == len(outer) and chunked(layer, t, chunk):
                # constant bounds (0 to the tile's channels), so the copies below pipeline
                # across it; the channels of a chunk are clipped to the tile and the layer
                base = iv.get("C", 0)
                for v in b.range(0, t["C"], chunk):
                    firsts[:] = [v]
                    his = [base + v + chunk, dims["C"]]  # type: ignore[operator]
                    if "C" in iv:
                        his.append(base + t["C"])  # type: ignore[operator]
                    clip["C"] = (base + v, his)  # type: ignore[operator]
                    nest(k + 1)
                return
            loops: dict[str, object] = {}

            zeroing = [False]  # this version of the nest zeroes the outputs first

            def zero() -> None:
                """The output element set to zero at the first step of its reduction."""
                n, k_, p, q = (loops[d] for d in OUTPUT_DIMS)
                z = b.constant(0, dtype)
                if layout == "nhwc":
                    out[n, p, q, k_] = z
                elif layout == "nchw":
                    out[n, k_, p, q] = z
                else:
                    out[p, k_] = z

            def inner(j: int) -> None:
                if zeroing[0] and j < len(intra_order) and intra_order[j] in REDUCTION_DIMS \
                        and "zeroed" not in loops:
                    loops["zeroed"] = True
                    zero()
                    inner(j)
                    del loops["zeroed"]
                    return
                if j < len(intra_order):
                    d = intra_order[j]
                    if dims[d] == 1:          # no loop for a dimension of one
                        loops[d] = 0
                        inner(j + 1)
                        return
                    lo, hi = bounds(d)
                    for v in b.range(lo, hi):
                        loops[d] = v
                        inner(j + 1)
                    return
                n, k_, c, p, q, r, s = (loops[d] for d in DIMS)
                if layout == "nhwc":
                    prod = x[n, p * st + r, q * st + s, c] * w[r, s, c, k_]
                    out[n, p, q, k_] = out[n, p, q, k_] + prod
                elif layout == "nchw":
                    prod = x[n, c, p * st + r, q * st + s] * w[k_, c, r, s]
                    out[n, k_, p, q] = out[n, k_, p, q] + prod
                else:
                    out[p, k_] = out[p, k_] + x[p, c] * w[c, k_]
            # zero where the reduction starts: only where one nest holds an output's whole
            # reduction (no reduction tile loop, no chunk loop); elsewhere the partial sums
            # are read back from the output (zeros at the start), as `accumulate` does
            zeroing[0] = not accumulate and not firsts and not any(d in iv for d in REDUCTION_DIMS)
            inner(0)
        nest(0)
    return b.module
