"""`affine-loop-tile`: tile every outermost perfectly nested band, as mlir-opt does.

For a band `L0 .. Ln-1` and tile sizes `T0 .. Tn-1`, tile-space loops keep each loop's bounds
and step `s*T`; intra-tile loops run from the tile IV to `tile IV + s*T`, or to the `min` of
that and the original upper bounds when `T` may not divide the trip count (MLIR's
constructTiledIndexSetHyperRect). With `separate`, an `affine.if` splits full tiles (no
`min`) from partial ones. Sizes come from `tile-sizes` (missing entries: 4, like MLIR),
`tile-size`, or a cache model: the largest tiles whose footprint fits `cache-size` KiB,
growing the innermost loop first so tiles keep long contiguous rows. A band whose
dependences forbid tiling is left unchanged with a remark naming the dependence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.analysis.isl_bridge import AnalysisError
from compiler.analysis.legality import opaque_memory_op, tiling_violation
from compiler.ir.ops import AffineForOp, ModuleOp
from compiler.transforms.pass_base import Pass
from compiler.transforms.tiling.bands import is_hyper_rectangular, tileable_bands
from compiler.transforms.tiling.tile_band import tile_band
from compiler.transforms.tiling.tile_sizes import DEFAULT_TILE_SIZE, cache_tile_sizes


@dataclass(frozen=True)
class Options:
    tile_sizes: tuple[int, ...] = ()
    tile_size: int | None = None
    cache_size: int | None = 512  # KiB
    separate: bool = False

    def __post_init__(self) -> None:
        if any(t <= 0 for t in self.tile_sizes):
            raise ValueError(f"tile-sizes must be positive, got {','.join(map(str, self.tile_sizes))}")
        if self.tile_size is not None and self.tile_size <= 0:
            raise ValueError(f"tile-size must be positive, got {self.tile_size}")
        if self.cache_size is not None and self.cache_size <= 0:
            raise ValueError(f"cache-size must be a positive number of KiB, got {self.cache_size}")


def tile_sizes_for(band: Sequence[AffineForOp], opts: Options) -> list[int]:
    if opts.tile_sizes:
        sizes = list(opts.tile_sizes[: len(band)])
        return sizes + [DEFAULT_TILE_SIZE] * (len(band) - len(sizes))
    if opts.tile_size is not None:
        return [opts.tile_size] * len(band)
    return cache_tile_sizes(band, (opts.cache_size or 512) * 1024)


class AffineLoopTilePass(Pass):
    name = "affine-loop-tile"
    summary = "Tile affine loop nests (mlir-opt's -affine-loop-tile)"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if func.is_declaration:
                continue
            for band in tileable_bands(func):
                self._tile(band)

    def _tile(self, band: list[AffineForOp]) -> None:
        root = band[0]
        if not is_hyper_rectangular(band):
            self.remark(root.loc, "band not tiled: a loop bound depends on an outer loop of the "
                                  "band (non-hyperrectangular)")
            return
        opaque = opaque_memory_op(root)
        if opaque is not None:
            self.remark(root.loc, f"band not tiled: {opaque.NAME} at {opaque.loc} takes a memref, "
                                  "so its memory effects are unknown")
            return
        sizes = tile_sizes_for(band, self.options)
        try:
            dep = tiling_violation(band, sizes)
        except AnalysisError as exc:
            self.remark(root.loc, f"band not tiled: {exc.message}")
            return
        if dep is not None:
            self.remark(root.loc, f"band of {len(band)} loops not tiled with sizes "
                                  f"{','.join(map(str, sizes))}: tiling would reverse the {dep}")
            return
        tile_band(band, sizes, self.options.separate)
