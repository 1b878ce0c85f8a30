"""`affine-loop-tile`: tile every outermost loop nest: perfect bands as mlir-opt does, and
(this project's extension) triangular bands and imperfect nests.

Perfect rectangular bands. For a band `L0 .. Ln-1` and tile sizes `T0 .. Tn-1`, tile-space
loops keep each loop's bounds and step `s*T`; intra-tile loops run from the tile IV to
`tile IV + s*T`, or to the `min` of that and the original upper bounds when `T` may not
divide the trip count (MLIR's constructTiledIndexSetHyperRect). With `separate`, an
`affine.if` splits full tiles (no `min`) from partial ones.

Triangular bands (a bound uses an outer IV of the band, e.g. `j < i + 1`; upstream leaves
them untiled): the intra-tile loops get exact `max`/`min` bounds and the tile loop runs over
the bound's extreme in the outer tile (`tiling/tile_tree.py`).

Imperfect nests (`tile-imperfect`): ops between the loops (syrk's `C[i][j] *= beta` loop
beside its `k` loop, atax's `tmp[i] = 0` and its two `j` loops) make the nest a tree
(`tiling/band_tree.py`). Every loop of the tree is tiled; tile loops nest as the loops did,
the children of a loop keep their order inside each of its tiles, and each group of ops
between loops gets its own intra-tile loops over the loops above it. This is the tiled
schedule of a polyhedral tiler (Pluto) for statements at different depths, rather than
upstream's tiling of the outermost perfect band only, or sinking the ops into the band under
`affine.if` guards (which would put guards into every kernel). `tile-imperfect=auto` (the
default) tiles trees when the sizes come from the cache model and only the perfect band at
the root with explicit `tile-sizes`/`tile-size`, so outputs compare with mlir-opt's;
`true`/`false` force either. Sizes: `tile-sizes` lists one size per depth (the k-th size
for every loop at depth k); the cache model grows each loop, innermost first, while every
group's tile footprint fits (`tiling/tree_sizes.py`). `separate` applies to perfect
rectangular bands only.

Legality. A perfect rectangular band is checked as before (`legality.tiling_violation`); a
tree by the exact isl comparison of the tiled order with every dependence
(`analysis/tiling_order.py`). A tree the dependences forbid falls back to its perfect band
at the root, with a remark naming the dependence; a band whose dependences forbid tiling is
left unchanged with a remark naming the dependence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.analysis.bounds import first_out_of_bounds
from compiler.analysis.isl_bridge import AnalysisError
from compiler.analysis.legality import opaque_memory_op, tiling_violation
from compiler.analysis.tiling_order import tiled_order_violation
from compiler.ir.ops import AffineForOp, ModuleOp
from compiler.transforms.pass_base import Pass
from compiler.transforms.tiling.band_tree import BandNode, band_tree, prune_whole
from compiler.transforms.tiling.tile_band import tile_band
from compiler.transforms.tiling.tile_sizes import DEFAULT_TILE_SIZE, cache_tile_sizes
from compiler.transforms.tiling.tile_tree import tile_tree, tree_statements
from compiler.transforms.tiling.tree_sizes import covers_extent, depth_tile_sizes, tree_cache_tile_sizes

IMPERFECT_CHOICES = ("auto", "true", "false")


@dataclass(frozen=True)
class Options:
    tile_sizes: tuple[int, ...] = ()
    tile_size: int | None = None
    cache_size: int | None = 512  # KiB
    separate: bool = False
    tile_imperfect: str = "auto"

    def __post_init__(self) -> None:
        if any(t <= 0 for t in self.tile_sizes):
            raise ValueError(f"tile-sizes must be positive, got {','.join(map(str, self.tile_sizes))}")
        if self.tile_size is not None and self.tile_size <= 0:
            raise ValueError(f"tile-size must be positive, got {self.tile_size}")
        if self.cache_size is not None and self.cache_size <= 0:
            raise ValueError(f"cache-size must be a positive number of KiB, got {self.cache_size}")
        if self.tile_imperfect not in IMPERFECT_CHOICES:
            raise ValueError(f"tile-imperfect must be one of {', '.join(IMPERFECT_CHOICES)}, "
                             f"got '{self.tile_imperfect}'")

    @property
    def explicit_sizes(self) -> bool:
        return bool(self.tile_sizes) or self.tile_size is not None

    @property
    def imperfect(self) -> bool:
        """Whether imperfect nests are tiled as trees (see the module docstring)."""
        if self.tile_imperfect == "auto":
            return not self.explicit_sizes
        return self.tile_imperfect == "true"

    @property
    def cache_bytes(self) -> int:
        return (self.cache_size or 512) * 1024


def tile_sizes_for(band: Sequence[AffineForOp], opts: Options) -> list[int]:
    if opts.tile_sizes:
        sizes = list(opts.tile_sizes[: len(band)])
        return sizes + [DEFAULT_TILE_SIZE] * (len(band) - len(sizes))
    if opts.tile_size is not None:
        return [opts.tile_size] * len(band)
    return cache_tile_sizes(band, opts.cache_bytes)


def tree_sizes_for(tree: BandNode, opts: Options) -> dict[BandNode, int]:
    if opts.tile_sizes:
        return depth_tile_sizes(tree, opts.tile_sizes)
    if opts.tile_size is not None:
        return {n: opts.tile_size for n in tree.nodes()}
    return tree_cache_tile_sizes(tree, opts.cache_bytes)


class AffineLoopTilePass(Pass):
    name = "affine-loop-tile"
    summary = "Tile affine loop nests (mlir-opt's -affine-loop-tile; also triangular and imperfect ones)"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if func.is_declaration:
                continue
            for root in [op for op in func.body.ops if isinstance(op, AffineForOp) and not op.inits]:
                self._tile_root(root)

    def _tile_root(self, root: AffineForOp) -> None:
        opaque = opaque_memory_op(root)
        if opaque is not None:
            why = ("the analysis does not model it" if opaque.NAME == "affine.parallel" else
                   "it takes a memref, so its memory effects are unknown")
            self.remark(root.loc, f"band not tiled: {opaque.NAME} at {opaque.loc}: {why}")
            return
        oob = first_out_of_bounds(root)
        if oob is not None:
            self.remark(root.loc, f"band not tiled: {oob.message()}; an access outside its memref "
                                  "may touch any element, so no dependence analysis vouches for "
                                  "reordering it")
            return
        tree = band_tree(root, self.options.imperfect)
        if tree is None:
            return
        sizes: dict[BandNode, int] | None = None
        if tree.is_imperfect:
            sizes = tree_sizes_for(tree, self.options)
            prune_whole(tree, lambda n: covers_extent(n, sizes[n]))  # type: ignore[index]
        if tree.is_chain and tree.is_rectangular:
            self._tile_band(tree.chain())
            return
        if not self._tile_tree(tree, sizes) and tree.is_imperfect:
            chain = band_tree(root, imperfect=False)
            assert chain is not None
            if chain.is_rectangular:
                self._tile_band(chain.chain())
            else:
                self._tile_tree(chain)

    def _tile_band(self, band: list[AffineForOp]) -> None:
        root = band[0]
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

    def _tile_tree(self, tree: BandNode, sizes: dict[BandNode, int] | None = None) -> bool:
        """Tile a triangular band or an imperfect nest; False (with a remark) when refused."""
        root = tree.loop
        what = "imperfect nest" if tree.is_imperfect else "triangular band"
        nodes = list(tree.nodes())
        if sizes is None:
            sizes = tree_sizes_for(tree, self.options)
        shown = ",".join(str(sizes[n]) for n in nodes)
        fallback = ("; tiling its perfect band at the root instead" if tree.is_imperfect else "")
        try:
            dep = tiled_order_violation(root, tree_statements(tree, sizes))
        except AnalysisError as exc:
            self.remark(root.loc, f"{what} of {len(nodes)} loops not tiled: {exc.message}{fallback}")
            return False
        if dep is not None:
            self.remark(root.loc, f"{what} of {len(nodes)} loops not tiled with sizes {shown} "
                                  f"(pre-order): tiling would reverse the {dep}{fallback}")
            return False
        if self.options.separate:
            self.remark(root.loc, f"{what} tiled without separating full tiles: `separate` "
                                  "applies to perfect rectangular bands only")
        tile_tree(tree, sizes)
        return True
