"""An explicit mapping as input: Timeloop's loop nest per level -> the tiled program and the
accelerator pipeline that runs it (`accelsim run ... --mapping "..."`, a DSE spec's `mapping`).

    m = parse_mapping("L3[WIO] K12 - L2[WI] N1 K16X - L1[O] K4 C48 P4 C16X - L0[W] P32")
    m.check(layer, rows=16, cols=16)      # covers the bounds exactly; spatial factors fit
    module, pipe = compile_mapped(layer, m, config)

The text, as Timeloop prints it and the DOSA / Gemmini rows hold it: levels outermost first,
separated by ` - `; each `Lk[...]` (the tensors it keeps: W weights, I inputs, O outputs)
followed by its loops, outermost first, `<dim><factor>`, a trailing `X` marking a spatial
factor (across the array). The outermost level is the one the layer lives in (DRAM); its
loops are the tile loops, in their order; everything below it (the on-chip levels, the array,
the PE registers) is one tile: its size per dimension is the product of the factors below the
outermost level. A dimension's factors must multiply to its bound exactly (Timeloop's rule).

The program (`workloads.mapped.build_mapped`): the tile loops in the mapping's order, inside
them one tile's loops in the array's order (Gemmini's `loop_conv_ws`), `out += in * w`. The
pipeline copies each tile into the on-chip level at the tile loops' depth (`copy-depth`): the
read-only operands once per tile, as Gemmini's software moves them in (`mvin` per tile), the
partial-sum tile kept on chip across the reduction loops it does not depend on and written
back once (the accumulator), double-buffered (`stages = 2`), one kernel call per tile. A
mapping whose buffers do not fit the on-chip level is refused by the copy pass (the
capacity error names the bytes needed and available).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import HardwareConfig
from accelsim.errors import InputError
from compiler.ir import ElementType, ModuleOp
from workloads.mapped import DIMS, GEMMINI_INTRA_ORDER, Layer, build_mapped, chunked, tile_loops

_LEVEL = re.compile(r"^\s*(L\d+)\s*(?:\[([A-Za-z]*)\])?\s*(.*)$")
_LOOP = re.compile(r"^([A-Za-z])(\d+)(X?)$")


@dataclass(frozen=True, slots=True)
class MappedLoop:
    dim: str
    factor: int
    spatial: bool


@dataclass(frozen=True, slots=True)
class MappingLevel:
    name: str                      # L3, L2, ...
    keeps: str                     # the tensors the level holds (W, I, O)
    loops: tuple[MappedLoop, ...]  # outermost first


@dataclass(frozen=True, slots=True)
class Mapping:
    """A parsed mapping: its levels outermost first."""

    levels: tuple[MappingLevel, ...]
    text: str

    def factor(self, dim: str, levels: slice = slice(None)) -> int:
        f = 1
        for lv in self.levels[levels]:
            for lp in lv.loops:
                if lp.dim == dim:
                    f *= lp.factor
        return f

    def tiles(self) -> dict[str, int]:
        """One tile's size per dimension: the product of the factors below the outermost level."""
        return {d: self.factor(d, slice(1, None)) for d in DIMS}

    def tile_order(self) -> str:
        """The outermost level's loops (the tile loops), outermost first."""
        return "".join(lp.dim for lp in self.levels[0].loops if lp.factor > 1)

    def spatial(self) -> tuple[int, int]:
        """(factor of the reduction dims across the array's rows, of the others across its
        columns): Gemmini's C16X (rows) and K16X (columns)."""
        rows = cols = 1
        for lv in self.levels:
            for lp in lv.loops:
                if lp.spatial:
                    if lp.dim in "CRS":
                        rows *= lp.factor
                    else:
                        cols *= lp.factor
        return rows, cols

    def check(self, layer: Layer, rows: int | None = None, cols: int | None = None) -> None:
        """A clear error unless every dimension's factors multiply to its bound and the
        spatial factors fit a `rows` x `cols` array."""
        wrong = [f"{d}: {self.factor(d)} (bound {layer.dims[d]})" for d in DIMS
                 if self.factor(d) != layer.dims[d]]
        if wrong:
            raise InputError(f"mapping {self.text!r} does not cover the loop bounds: the factors of "
                             f"each dimension must multiply to its bound; {'; '.join(wrong)}")
        r, c = self.spatial()
        if rows is not None and cols is not None and (r > rows or c > cols):
            raise InputError(f"mapping {self.text!r} does not fit the array: spatial factors "
                             f"{r} (reduction, rows) x {c} (columns), the array is {rows} x {cols}")


def parse_mapping(text: str) -> Mapping:
    """Timeloop's mapping text -> `Mapping`; an `InputError` saying what is wrong."""
    if not text or not text.strip():
        raise InputError("mapping: empty; expected e.g. \"L3[WIO] K12 - L2[WI] K16X - L1[O] C48 "
                         "P4 C16X - L0[W] P32\"")
    levels: list[MappingLevel] = []
    for part in text.split(" - "):
        m = _LEVEL.match(part)
        if not m:
            raise InputError(f"mapping {text!r}: level {part.strip()!r}: expected 'L<k>[<tensors>] "
                             "<dim><factor>[X] ...'")
        name, keeps, rest = m.group(1), m.group(2) or "", m.group(3)
        bad = sorted(set(keeps) - set("WIO"))
        if bad:
            raise InputError(f"mapping {text!r}: level {name} keeps {''.join(bad)!r}: expected W, I, O")
        loops = []
        for tok in rest.split():
            lm = _LOOP.match(tok)
            if not lm or lm.group(1).upper() not in DIMS:
                raise InputError(f"mapping {text!r}: level {name}: loop {tok!r}: expected a "
                                 f"dimension of {', '.join(DIMS)} and a factor >= 1, e.g. K16 or C16X")
            f = int(lm.group(2))
            if f < 1:
                raise InputError(f"mapping {text!r}: level {name}: loop {tok!r}: factor must be >= 1")
            loops.append(MappedLoop(lm.group(1).upper(), f, bool(lm.group(3))))
        levels.append(MappingLevel(name, keeps, tuple(loops)))
    if len(levels) < 2:
        raise InputError(f"mapping {text!r}: expected at least two levels (the outermost's loops "
                         "are the tile loops), separated by ' - '")
    names = [lv.name for lv in levels]
    if len(set(names)) != len(names):
        raise InputError(f"mapping {text!r}: a level appears twice ({', '.join(names)})")
    if any(lp.spatial for lp in levels[0].loops):
        raise InputError(f"mapping {text!r}: the outermost level ({levels[0].name}) has a spatial loop")
    return Mapping(tuple(levels), text.strip())


def tile_bytes(layer: Layer, tiles: dict[str, int], element_bytes: int) -> tuple[int, int, int]:
    """(input, weight, output) bytes of one tile on chip: the input window its outputs read
    ((rows - 1) x stride + kernel rows, the same for columns), the weights, the outputs."""
    t = {d: min(tiles.get(d, layer.dims[d]), layer.dims[d]) for d in DIMS}
    st = layer.stride
    rows, cols = (t["P"] - 1) * st + t["R"], (t["Q"] - 1) * st + t["S"]
    eb = element_bytes
    return (t["N"] * rows * cols * t["C"] * eb, t["R"] * t["S"] * t["C"] * t["K"] * eb,
            t["N"] * t["P"] * t["Q"] * t["K"] * eb)


def check_fits(config: HardwareConfig, layer: Layer, tiles: dict[str, int],
               element_bytes: int, text: str = "") -> None:
    """An `InputError` unless one tile fits the on-chip level (the copies then split it in
    request-sized chunks, so the copy pass alone would not see the whole tile)."""
    x, w, o = tile_bytes(layer, tiles, element_bytes)
    cap = config.sram.capacity_kib * 1024
    if x + w + o > cap:
        what = f"mapping {text!r}" if text else f"tiles {tiles}"
        raise InputError(f"{what} does not fit: one tile needs {x + w + o:,} bytes on chip (inputs "
                         f"{x:,}, weights {w:,}, outputs {o:,}), the on-chip level holds {cap:,} "
                         f"(sram.capacity_kib = {config.sram.capacity_kib})")


def load_chunk(config: HardwareConfig, layer: Layer, tiles: dict[str, int],
               element_bytes: int) -> int:
    """The input channels a tile is moved in at a time: one DMA request's worth
    (`dram.burst_bytes` / element bytes; Gemmini: `dma_maxbytes` 64 = MAX_BLOCK_LEN x DIM
    int8 channels of one pixel per request). The array starts on a chunk once it has landed,
    as Gemmini's reservation station lets a compute go once the rows it reads are in."""
    return max(1, config.dram.burst_bytes // element_bytes)


def mapped_pipeline(config: HardwareConfig, layer: Layer, tiles: dict[str, int],
                    tile_order: str = "", chunk: int = 0) -> AcceleratorPipeline:
    """The pipeline for the tiled program: copies at the tile loops' depth, read-only
    operands reloaded per tile, the partial-sum tile kept across the reduction; no tiling
    pass (the program is tiled as written), double-buffered."""
    depth = len(tile_loops(layer, tiles, tile_order)) + chunked(layer, tiles, chunk)
    pipe = AcceleratorPipeline.for_config(config)
    return pipe.replace(tile_sizes=None, tile_cache_kib=None, copy_depth=depth,
                        hoist_read_copies=False, copy_capacity_kib=pipe.pipeline_capacity_kib
                        or pipe.copy_capacity_kib, producer_consumer_fusion=False,
                        sibling_fusion=False)


def compile_tiled(config: HardwareConfig, layer: Layer, tiles: dict[str, int], tile_order: str = "",
                  layout: str = "nhwc", dtype: ElementType | None = None,
                  intra_order: str = GEMMINI_INTRA_ORDER, text: str = "", accumulate: bool = True
                  ) -> tuple[ModuleOp, AcceleratorPipeline]:
    """Build the tiled program and compile it for `config`: (module, pipeline). `accumulate`
    false: the layer alone, its partial sums starting at zero on chip (`build_mapped`)."""
    from compiler.ir import F32
    from compiler.transforms.registry import PassManager

    if len(config.memory_chain()) > 2:
        raise InputError("an explicit mapping runs on a two-level machine (DRAM and one on-chip "
                         f"level); config {config.name!r} has {len(config.memory_chain())} levels")
    dtype = dtype or F32
    check_fits(config, layer, tiles, dtype.byte_width, text)
    chunk = load_chunk(config, layer, tiles, dtype.byte_width)
    module = build_mapped(layer, tiles, tile_order, intra_order, layout, dtype, chunk, accumulate)
    pipe = mapped_pipeline(config, layer, tiles, tile_order, chunk)
    PassManager(pipe.passes()).run(module)
    return module, pipe


def compile_mapped(layer: Layer, mapping: Mapping, config: HardwareConfig, layout: str = "nhwc",
                   dtype: ElementType | None = None, tile_order: str | None = None,
                   accumulate: bool = True) -> tuple[ModuleOp, AcceleratorPipeline]:
    """`mapping` checked against `layer` and `config`'s array, then `compile_tiled`;
    `tile_order` (outermost first) replaces the mapping's order of the tile loops (Gemmini's
    software runs its tiles in its own fixed order: `gemmini_tiler.CONV_ORDER`)."""
    c = config.compute
    mapping.check(layer, c.rows if c.kind == "matrix" else None, c.cols if c.kind == "matrix" else None)
    order = mapping.tile_order() if tile_order is None else tile_order
    return compile_tiled(config, layer, mapping.tiles(), order, layout, dtype, text=mapping.text,
                         accumulate=accumulate)


TILE_POLICIES = ("search", "gemmini")


def workload_layer(name: str, params: dict[str, object]) -> tuple[Layer, str]:
    """A `gemm` or `conv2d` workload spec as a layer in Timeloop's names, and its layout."""
    p = {k: v for k, v in params.items() if isinstance(v, int)}
    if name == "gemm":
        return Layer(dict(N=1, K=p["N"], C=p["K"], P=p["M"], Q=1, R=1, S=1)), "gemm"
    if name == "conv2d":
        st = p.get("stride", 1)
        dims = dict(N=p["N"], K=p["K"], C=p["C"], R=p["R"], S=p["S"],
                    P=(p["H"] - p["R"]) // st + 1, Q=(p["W"] - p["S"]) // st + 1)
        return Layer(dims, st, p["H"], p["W"]), "nchw"
    raise InputError(f"--mapping / --tile-policy gemmini: expected a gemm or conv2d workload spec "
                     f"(e.g. gemm:M=128,N=768,K=768 or conv2d:...), got {name!r}")


def compile_workload(config: HardwareConfig, name: str, params: dict[str, object],
                     dtype: ElementType, mapping: str | None = None,
                     tile_policy: str = "search") -> tuple[ModuleOp, AcceleratorPipeline]:
    """The workload compiled with an explicit mapping (its tiles and tile loop order) or with
    Gemmini's tiler (`tile_policy = "gemmini"`: `gemmini_tiler.gemmini_tiles` for the
    on-chip level split as Gemmini's is, 4/5 scratchpad rows of `compute.rows` elements and
    1/5 accumulator rows of `compute.rows` int32, in Gemmini's tile loop order)."""
    from accelsim.compile.gemmini_tiler import gemmini_tiles

    if tile_policy not in TILE_POLICIES:
        raise InputError(f"tile policy {tile_policy!r}: expected one of {', '.join(TILE_POLICIES)}")
    if mapping and tile_policy != "search":
        raise InputError("--mapping and --tile-policy gemmini both given: a mapping already "
                         "fixes the tiles; give one of them")
    layer, layout = workload_layer(name, params)
    if mapping:
        return compile_mapped(layer, parse_mapping(mapping), config, layout, dtype)
    dim = config.compute.rows
    cap = config.sram.capacity_kib * 1024
    tiles, order = gemmini_tiles(layer, cap * 4 // 5 // dim, cap // 5 // (dim * 4), dim)
    return compile_tiled(config, layer, tiles, order, layout, dtype)
