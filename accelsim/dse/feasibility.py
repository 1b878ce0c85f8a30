"""Whether a design point's buffers fit its SRAM, decided before the point is simulated.

A point is *infeasible* (stored with status `infeasible` and the reason, never simulated) when

- its explicit `tile_sizes` do not fit: one tile's data (the bounding box of each slow-memory
  array the tile touches), times the `stages` buffers pipelining gives each copy, exceeds the
  SRAM capacity, or the copy pass would not fit one tile's copies in the room it is given and
  would place them inside the tile (copies of single rows or elements: the program still runs,
  slowly, with other tiles than the point says; that is how 1 KiB of SRAM with 128^3 tiles
  became an "ok" point that simulated for minutes);
- the compiled program keeps more bytes of SRAM buffers live at once than the SRAM holds;
- the compiler refuses the point for lack of fast memory (the copy pass's own error).

`tile_sizes = "auto"` and `"none"` keep the default pipeline's behaviour (the copy pass picks
the copy depth for the capacity); only the last two checks apply to them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from accelsim.dse.spec import Point
from compiler.diagnostics import AccelsimError, PassError

if TYPE_CHECKING:  # the compiler is imported when a check runs (in the worker), not with the sweep
    from accelsim.config import HardwareConfig
    from compiler.ir.ops import AffineForOp, FuncOp, ModuleOp

COPY_PASS = "affine-data-copy-generate"
PIPELINE_PASS = "affine-pipeline-data-transfer"
TILE_PASS = "affine-loop-tile"


class InfeasiblePoint(AccelsimError):
    """The point cannot run as specified (its buffers do not fit); the message says why."""


@dataclass(frozen=True, slots=True)
class TileData:
    """One tiled loop band: bytes of each slow-memory array one tile touches."""

    where: str  # the band's source location
    arrays: tuple[tuple[str, int], ...]  # (name, bytes of its bounding box in one tile)
    copies_fit: bool  # the copy pass places this tile's copies at the tile, not inside it

    @property
    def total(self) -> int:
        return sum(b for _, b in self.arrays)


def check_tiles_fit(point: Point, config: HardwareConfig, flags: Sequence[tuple[str, str]]) -> None:
    """Raise InfeasiblePoint when the point's explicit tiles cannot be copied whole into SRAM.

    `flags` are the passes the point compiles with (`evaluate.compile_flags`): the copy pass's
    options decide how much room a tile's copies get.
    """
    tiles = str(point.options["tile_sizes"])
    passes = dict(flags)
    if tiles in ("auto", "search", "none") or TILE_PASS not in passes or COPY_PASS not in passes:
        return
    slots = int(point.options["stages"]) if PIPELINE_PASS in passes else 1
    kib = config.sram.capacity_kib
    capacity = int(kib * 1024)
    for band in tile_data(point.workload, passes[TILE_PASS], passes[COPY_PASS]):
        need = band.total * slots
        if need <= capacity and band.copies_fit:
            continue
        arrays = " + ".join(f"%{name} {size:,} B" for name, size in band.arrays)
        text = f"tile_sizes={tiles} do not fit: one tile of the loop nest at {band.where} needs {arrays}"
        if len(band.arrays) > 1:
            text += f" = {band.total:,} B"
        if slots > 1:
            text += f", x{slots} buffers for stages={slots} = {need:,} B"
        text += f" of SRAM; the SRAM holds {capacity:,} B (sram.capacity_kib={kib:g})"
        if need <= capacity:
            text += (f", and the copies get {_copy_capacity(passes[COPY_PASS]):,} B per stage, so "
                     "they would be placed inside the tile")
        raise InfeasiblePoint(text)


def check_buffers_fit(module: ModuleOp, config: HardwareConfig) -> None:
    """Raise InfeasiblePoint when the compiled program's live SRAM buffers exceed the SRAM."""
    from compiler.ir.ops import AllocOp
    from compiler.transforms.data_copy.fast_memory import buffer_bytes, peak_live_bytes

    space = config.spaces.sram
    kib = config.sram.capacity_kib
    capacity = int(kib * 1024)
    peak = peak_live_bytes(module, space)
    if peak <= capacity:
        return
    allocs = [op for op in module.walk() if isinstance(op, AllocOp) and op.memref_type.memory_space == space]
    allocs.sort(key=lambda a: -buffer_bytes(a.memref_type))
    largest = ", ".join(f"%{a.result.name_hint or '?'} {a.memref_type} {buffer_bytes(a.memref_type):,} B"
                        for a in allocs[:4])
    raise InfeasiblePoint(f"the compiled program keeps {peak:,} B of SRAM buffers live at once; the SRAM "
                          f"holds {capacity:,} B (sram.capacity_kib={kib:g}); largest buffers: {largest}")


@contextmanager
def capacity_refusals() -> Iterator[None]:
    """Inside: the compiler's refusal for lack of fast memory becomes InfeasiblePoint."""
    try:
        yield
    except PassError as exc:
        if "fast-mem-capacity" not in str(exc) and "fast memory" not in str(exc):
            raise
        raise InfeasiblePoint(f"the compiler refuses the point: {exc.message}") from None


@lru_cache(maxsize=256)
def tile_data(workload: str, tile_options: str, copy_options: str) -> tuple[TileData, ...]:
    """Per tiled band of the workload (tiled alone, as the point's tile pass does): one tile's
    data, and whether the copy pass with `copy_options` keeps that tile's copies whole."""
    from compiler.transforms import create_pass

    copy_pass = create_pass(COPY_PASS, copy_options)
    cap = copy_pass.options.capacity_bytes
    out = []
    for where, first_intra, arrays in _tiled_bands(workload, tile_options, copy_pass.options.slow_mem_space):
        total = sum(b for _, b in arrays)
        # the copy pass's own test, asked only when the plain bounding boxes do not fit
        fits = cap is None or total <= cap or not copy_pass.exceeds_capacity(first_intra)
        out.append(TileData(where, arrays, fits))
    return tuple(out)


@lru_cache(maxsize=32)
def _tiled_bands(workload: str, tile_options: str, slow_space: int
                 ) -> tuple[tuple[str, AffineForOp, tuple[tuple[str, int], ...]], ...]:
    """The workload tiled alone: per tiled band, its location, its first intra-tile loop (kept
    alive with the cached module) and the bytes of each slow-memory array one tile touches."""
    import workloads
    from compiler.analysis import memref_regions
    from compiler.transforms import create_pass
    from compiler.transforms.rewrite.structure import defined_inside
    from compiler.transforms.tiling.bands import perfect_band

    module = workloads.get(workload).module()
    depths = _band_depths(module)
    create_pass(TILE_PASS, tile_options).run(module)
    out = []
    for func, roots in zip(_defined_funcs(module), depths, strict=True):
        loops = _top_loops(func)
        if len(loops) != len(roots):  # the tile pass restructured the function: no tile to check
            continue
        # the tile pass replaces each band's root by one tile loop, in place: the same order
        for root, n in zip(loops, roots, strict=True):
            band = perfect_band(root)
            if len(band) < 2 * n:  # not tiled (the tile pass said why in a remark)
                continue
            first_intra = band[n]
            regions = memref_regions([first_intra])
            arrays = tuple((m.name_hint or "?", int(r.size_bytes() or 0)) for m, r in regions.items()
                           if m.type.memory_space == slow_space  # type: ignore[attr-defined]
                           and not defined_inside(m, first_intra))  # as the copy pass counts them
            out.append((str(root.loc), first_intra, arrays))
    return tuple(out)


def _band_depths(module: ModuleOp) -> list[list[int]]:
    """Per function, the depth of each top-level loop's perfect band before tiling."""
    from compiler.transforms.tiling.bands import perfect_band

    return [[len(perfect_band(op)) for op in _top_loops(f)] for f in _defined_funcs(module)]


def _defined_funcs(module: ModuleOp) -> list[FuncOp]:
    return [f for f in module.funcs if not f.is_declaration]


def _top_loops(func: FuncOp) -> list[AffineForOp]:
    """The loops the tile pass tiles (`tileable_bands`): top-level, without iter_args."""
    from compiler.ir.ops import AffineForOp

    return [op for op in func.body.ops if isinstance(op, AffineForOp) and not op.inits]


def _copy_capacity(copy_options: str) -> int:
    from compiler.transforms import create_pass

    cap = create_pass(COPY_PASS, copy_options).options.capacity_bytes
    return int(cap) if cap is not None else 0
