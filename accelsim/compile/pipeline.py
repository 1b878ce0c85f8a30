"""The accelerator pipeline as a value: tile, copy into the fast memory with DMA, pipeline the
copies, keep the kernels' loop-invariant accesses in values
(`affine-producer-consumer-fusion` -> `affine-sibling-fusion` -> `affine-loop-tile` ->
`affine-data-copy-generate` -> `affine-pipeline-data-transfer` -> `affine-copy-forward` ->
`affine-dma-start-hoist` -> `affine-scalar-replace` -> `affine-dma-wait-sink`).
Whether the producer-consumer fusion runs is chosen per module by the analytic estimate of
the program compiled with and without it (`accelerator.py`).

    # what `accelsim run --target sim` (and `accelsim.run`) compiles: the tile search's pipeline
    from accelsim.compile.accelerator import compile_for_accelerator
    pipe, remarks = compile_for_accelerator(cfg, module)      # module compiled in place
    pipe.flags()  # ['--affine-loop-tile=tile-sizes=16,64,64', ...] for printing / records

    # a pipeline of your own, e.g. to study one tiling; NOT what the CLI runs (other cycles:
    # `for_config` alone takes the cache model's tiles, not the tile search's)
    pipe = AcceleratorPipeline.for_config(cfg).with_tiles((64, 128, 64), copy_capacity_kib=80)
    PassManager(pipe.replace(stages=3).passes()).run(module)

The one capacity rule (`for_config`): with `stages` buffers per copied region, the copies get
1/stages of the SRAM and the cache model's tiles aim at half of that, so the multi-buffered
working set fits; the pipelining pass itself may use the whole SRAM.

A memory hierarchy of more than two levels (`config.memory_chain()`): the fields above are
the first level below DRAM (copies from DRAM into it at the outer tile loops), and `inner`
holds one `InnerLevel` per further level, each with its own tiles (a partition of the level
above's tile: `affine-loop-tile inner-tile-sizes` / `inner-cache-sizes`), copies from the
level above's buffers (`affine-data-copy-generate slow-mem-space=k-1 fast-mem-space=k`) and
pipelining (`affine-pipeline-data-transfer level-only fast-mem-space=k`), the capacity rule
applied per level. With two levels `inner` is empty and every flag is what it was.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accelsim.config import HardwareConfig
from accelsim.errors import ConfigError
from compiler.transforms.pass_base import Pass

TILE, COPY, PIPELINE = "affine-loop-tile", "affine-data-copy-generate", "affine-pipeline-data-transfer"
SCALAR, FUSE = "affine-scalar-replace", "affine-sibling-fusion"
PC_FUSE = "affine-producer-consumer-fusion"
WAIT_SINK = "affine-dma-wait-sink"
FORWARD, HOIST, STREAM = "affine-copy-forward", "affine-dma-start-hoist", "affine-copy-stream"
# the piece counts of `affine-copy-stream` compiled and weighed by the analytic estimate where
# it splits a nest (fewer pieces: fewer kernel calls, each with more rows, a matrix mapping's
# folds kept, against less of the copies overlapped)
STREAM_CHUNKS = (8, 4)
ROUND_TRIP = "affine-dma-forward"
INTERCHANGE = "affine-loop-interchange"


def stream_alignments(config: HardwareConfig) -> tuple[int, ...]:
    """The piece alignments `affine-copy-stream` is tried with on `config`: equal pieces,
    and on a matrix unit pieces of whole multiples of its rows (a piece of fewer rows than
    the array leaves rows of it idle; which is faster is the estimate's call)."""
    rows = config.compute.rows if config.compute.kind == "matrix" else 1
    return (1, rows) if rows > 1 else (1,)


def copy_share_kib(sram_kib: int, stages: int) -> int:
    """The fast memory (KiB) the copies of one set of tiles get with `stages` buffers each."""
    return max(1, sram_kib // max(1, stages))


@dataclass(frozen=True, slots=True)
class InnerLevel:
    """A level below the first: tiles of the level above's tile, copies from `slow_space`
    (the level above) into `fast_space`, pipelined with `stages` buffers."""

    fast_space: int
    slow_space: int
    copy_capacity_kib: int
    pipeline_capacity_kib: int | None
    tile_sizes: tuple[int, ...] | None = None
    tile_cache_kib: int | None = None
    stages: int = 2

    def __post_init__(self) -> None:
        if (self.tile_sizes is None) == (self.tile_cache_kib is None):
            raise ConfigError(f"accelerator pipeline: level in space {self.fast_space}: expected "
                              "exactly one of tile_sizes and tile_cache_kib")
        if self.tile_sizes is not None and (not self.tile_sizes or min(self.tile_sizes) < 1):
            raise ConfigError(f"accelerator pipeline: level in space {self.fast_space}: tile_sizes "
                              f"{self.tile_sizes}: expected positive sizes")
        for name in ("tile_cache_kib", "copy_capacity_kib", "pipeline_capacity_kib"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise ConfigError(f"accelerator pipeline: level in space {self.fast_space}: {name} "
                                  f"{v}: expected >= 1 KiB")
        if self.stages < 1:
            raise ConfigError(f"accelerator pipeline: level in space {self.fast_space}: stages "
                              f"{self.stages}: expected >= 1 (1 = no pipelining)")

    def replace(self, **changes: Any) -> InnerLevel:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class AcceleratorPipeline:
    """What the accelerator pipeline does, as mlir-opt options of its five passes.

    Tiling is `tile_sizes` (explicit), else `tile_cache_kib` (the cache model's budget), else
    none. `copies=False` drops the copy pass and the pipelining after it; `stages=1` keeps the
    copies and drops the pipelining; `scalar_replace=False` drops the last pass,
    `sibling_fusion=False` the sibling fusion, `producer_consumer_fusion=False` the first pass
    (its private buffers go to the fast memory space), `wait_sink=False` the
    `affine-dma-wait-sink` after the copies (each wait sunk to the first op touching its
    transfer's memory).
    """

    copy_capacity_kib: int                       # fast-mem-capacity of the copy pass
    pipeline_capacity_kib: int | None            # fast-mem-capacity of pipelining (None: unlimited)
    fast_space: int
    slow_space: int
    tag_space: int
    tile_sizes: tuple[int, ...] | None = None
    tile_cache_kib: int | None = None
    copies: bool = True
    stages: int = 2                              # buffers per pipelined copy; 1 = no pipelining
    copy_out_pipelining: bool = True
    cross_tile_prefetch: bool = True
    scalar_replace: bool = True                  # last: loop-invariant accesses kept in values
    sibling_fusion: bool = True                  # adjacent nests reading one memref fused
    producer_consumer_fusion: bool = True        # first: a consumer nest fused into its producer
    wait_sink: bool = True                       # last (with copies): each dma_wait sunk to its first use
    # after pipelining, two levels only: a copy-in of a region a fast buffer holds dropped
    # (`affine-copy-forward`), a buffer written back and read straight back kept on chip, its
    # write-back dropped where a later one makes it dead (`affine-dma-forward`), then the top-
    # level copy-ins started above the nests before them (`affine-dma-start-hoist`), both within
    # the whole fast memory
    copy_forward: bool = True
    start_hoist: bool = True
    # then a whole-buffer copy around one nest streamed by rows, the nest split along its
    # outer loop (`affine-copy-stream`)
    copy_stream: bool = True
    # its `chunks`: pieces of the nest (`STREAM_CHUNKS`: the counts the compiler weighs)
    stream_chunks: int = 8
    # its `descriptor-bytes`: a copy-in chunk read row by row (the columns reached) where that
    # moves fewer bytes, a descriptor counted as the bytes a DRAM channel moves during its
    # setup (`for_config`; 0: whole rows always)
    stream_descriptor_bytes: int = 0
    # its `align`: pieces a multiple of this many outer iterations (1: equal pieces); the
    # accelerator tries the matrix unit's rows too (`stream_alignments`)
    stream_align: int = 1
    inner: tuple[InnerLevel, ...] = ()           # the levels below the first (hierarchies > 2)
    copy_depth: int = 0                          # copies at this loop depth (an explicit mapping's tiles)
    hoist_read_copies: bool = True               # false: read-only copies stay at copy_depth
    # copies of a re-read region hoisted over loops it depends on, as the union of their
    # iterations, where it fits (the copy pass's `hoist-over-dependent-loops`; not with copy_depth)
    hoist_over_dependent_loops: bool = True
    # first: nests run in another loop order, (function, top-level nest index, permutation)
    # each (`affine-loop-interchange`; the order the analytic estimate found fastest)
    interchanges: tuple[tuple[str, int, tuple[int, ...]], ...] = ()
    # the copy pass's `skip-oversized`: a block whose buffers do not fit even at the innermost
    # level copies what fits and leaves the rest in slow memory (`with_fallback` sets it when
    # the program would not compile otherwise)
    skip_oversized_copies: bool = False
    # the first copy pass's `exact-copy-out`: a cluster's share writes back only what it
    # stores (`accelsim.compile.clusters`)
    exact_copy_out: bool = False
    # the first copy pass's `exact-copy-in`: a cluster's share reads only what it loads where
    # a box would hold more (`accelsim.compile.clusters`, when box copy-ins race)
    exact_copy_in: bool = False
    # the first copy pass's `max-dma-rows`: at most this many rows per DMA descriptor (the
    # machine's `dma.max_rows`; 0: no limit)
    dma_max_rows: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "inner", tuple(self.inner))
        object.__setattr__(self, "interchanges", tuple((f, n, tuple(p)) for f, n, p in self.interchanges))
        if self.inner:
            if self.tile_sizes is None and self.tile_cache_kib is None:
                raise ConfigError("accelerator pipeline: inner levels need the first level's tiling")
            if not self.copies:
                raise ConfigError("accelerator pipeline: inner levels need copies (copies=False given)")
            kinds = {lv.tile_sizes is None for lv in self.inner}
            if len(kinds) > 1:
                raise ConfigError("accelerator pipeline: inner levels mix tile_sizes and "
                                  "tile_cache_kib; expected one kind for all")
        if self.tile_sizes is not None and self.tile_cache_kib is not None:
            raise ConfigError(f"accelerator pipeline: tile_sizes {self.tile_sizes} and tile_cache_kib "
                              f"{self.tile_cache_kib} both given; expected one of them")
        if self.tile_sizes is not None and (not self.tile_sizes or min(self.tile_sizes) < 1):
            raise ConfigError(f"accelerator pipeline: tile_sizes {self.tile_sizes}: expected "
                              "positive sizes")
        for name in ("tile_cache_kib", "copy_capacity_kib", "pipeline_capacity_kib"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise ConfigError(f"accelerator pipeline: {name} {v}: expected >= 1 KiB")
        if self.stages < 1:
            raise ConfigError(f"accelerator pipeline: stages {self.stages}: expected >= 1 "
                              "(1 = no pipelining)")
        if self.stream_descriptor_bytes < 0:
            raise ConfigError(f"accelerator pipeline: stream_descriptor_bytes "
                              f"{self.stream_descriptor_bytes}: expected >= 0")
        if self.stream_chunks < 2:
            raise ConfigError(f"accelerator pipeline: stream_chunks {self.stream_chunks}: "
                              "expected >= 2")

    @classmethod
    def for_config(cls, config: HardwareConfig, stages: int = 2) -> AcceleratorPipeline:
        """The pipeline for `config` with the cache model's tiles and `stages` buffers: a base
        to build a pipeline of one's own. Not what `accelsim run --target sim` compiles (the
        tile search picks its tiles, copy capacity and stages: `accelerator.compile_for_accelerator`;
        gemm 256^3 on `default`: 2.2x the cycles of the search's tiles, measured 2026-12-07)."""
        chain = config.memory_chain()
        if len(chain) > 2:
            return cls.for_hierarchy(config, stages)
        sram, sp = config.sram.capacity_kib, config.spaces
        share = copy_share_kib(sram, stages)
        # a descriptor's setup counted as the bytes one DRAM channel moves meanwhile (the
        # program stays the same for any number of DMA engines: the DSE shares it)
        desc = int(config.dma.setup_cycles * config.dram.bandwidth_bytes_per_cycle)
        return cls(copy_capacity_kib=share, pipeline_capacity_kib=sram, fast_space=sp.sram,
                   slow_space=sp.dram, tag_space=sp.tag, tile_cache_kib=max(1, share // 2),
                   stages=stages, dma_max_rows=config.dma.max_rows,
                   stream_descriptor_bytes=desc)

    @classmethod
    def for_hierarchy(cls, config: HardwareConfig, stages: int = 2) -> AcceleratorPipeline:
        """The capacity rule per level of `config.memory_chain()` (three levels or more): each
        level's copies get 1/stages of it, its cache-model tiles half of that."""
        chain = config.memory_chain()
        spaces = [lv.space for lv in chain]
        if any(b <= a for a, b in itertools.pairwise(spaces)):
            raise ConfigError("accelerator pipeline: memory spaces must grow from DRAM inwards (a "
                              "copy's direction is read from its spaces), got "
                              + " -> ".join(f"{lv.name} {lv.space}" for lv in chain))
        first = chain[1]
        share = copy_share_kib(first.capacity_kib, stages)
        inner = []
        for above, lv in itertools.pairwise(chain[1:]):
            sh = copy_share_kib(lv.capacity_kib, stages)
            inner.append(InnerLevel(lv.space, above.space, sh, lv.capacity_kib,
                                    tile_cache_kib=max(1, sh // 2), stages=stages))
        return cls(copy_capacity_kib=share, pipeline_capacity_kib=first.capacity_kib,
                   fast_space=first.space, slow_space=chain[0].space, tag_space=config.spaces.tag,
                   tile_cache_kib=max(1, share // 2), stages=stages, inner=tuple(inner),
                   # not yet on hierarchies: the fused imperfect nest's per-level tiles can
                   # exceed an inner level (pad2d on three_level: 1,380 B in a 1 KiB spad)
                   producer_consumer_fusion=False)

    def replace(self, **changes: Any) -> AcceleratorPipeline:
        return dataclasses.replace(self, **changes)

    def with_tiles(self, sizes: Sequence[int] | None,
                   copy_capacity_kib: int | None = None) -> AcceleratorPipeline:
        """Explicit tile sizes (None: no tiling), and copies sized for them: `copy_capacity_kib`
        (at most this pipeline's share), so the copy pass places them at the tile loops."""
        cap = self.copy_capacity_kib if copy_capacity_kib is None else min(copy_capacity_kib,
                                                                           self.copy_capacity_kib)
        return self.replace(tile_sizes=None if sizes is None else tuple(sizes), tile_cache_kib=None,
                            copy_capacity_kib=cap)

    def steps(self) -> list[tuple[str, str]]:
        """(pass name, mlir-opt option text) of each pass, in order."""
        out: list[tuple[str, str]] = []
        for func, nest, perm in self.interchanges:
            out.append((INTERCHANGE, f"func={func} nest={nest} permutation={','.join(map(str, perm))}"))
        if self.producer_consumer_fusion:
            out.append((PC_FUSE, f"private-memory-space={self.fast_space}"))
        if self.sibling_fusion:
            out.append((FUSE, ""))
        if self.tile_sizes is not None:
            out.append((TILE, f"tile-sizes={','.join(map(str, self.tile_sizes))}" + self._inner_tiles()))
        elif self.tile_cache_kib is not None:
            out.append((TILE, f"cache-size={self.tile_cache_kib}" + self._inner_tiles()))
        if self.copies:
            self._copy_steps(out)
            cap = "" if self.pipeline_capacity_kib is None else \
                f" fast-mem-capacity={self.pipeline_capacity_kib}"
            if self.copy_forward and not self.inner:
                out.append((FORWARD, f"fast-mem-space={self.fast_space}" + cap))
                out.append((ROUND_TRIP, f"fast-mem-space={self.fast_space}" + cap))
            if self.start_hoist and not self.inner:
                out.append((HOIST, f"fast-mem-space={self.fast_space}" + cap))
            if self.copy_stream and not self.inner:
                out.append((STREAM, f"fast-mem-space={self.fast_space}"
                                    + (f" chunks={self.stream_chunks}" if self.stream_chunks != 8 else "")
                                    + (f" descriptor-bytes={self.stream_descriptor_bytes}"
                                       if self.stream_descriptor_bytes else "")
                                    + (f" align={self.stream_align}" if self.stream_align > 1 else "")))
        if self.scalar_replace:
            out.append((SCALAR, ""))
        if self.copies and self.wait_sink:
            out.append((WAIT_SINK, ""))
        return out

    def _copy_steps(self, out: list[tuple[str, str]]) -> None:
        skip = " skip-oversized" if self.skip_oversized_copies else ""
        out.append((COPY, f"generate-dma fast-mem-space={self.fast_space} slow-mem-space="
                          f"{self.slow_space} tag-mem-space={self.tag_space} "
                          f"fast-mem-capacity={self.copy_capacity_kib}" + self._depth_opts()
                          + skip + (" exact-copy-out" if self.exact_copy_out else "")
                          + (" exact-copy-in" if self.exact_copy_in else "")
                          + (f" max-dma-rows={self.dma_max_rows}" if self.dma_max_rows else "")))
        for lv in self.inner:
            out.append((COPY, f"generate-dma fast-mem-space={lv.fast_space} slow-mem-space="
                              f"{lv.slow_space} tag-mem-space={self.tag_space} "
                              f"fast-mem-capacity={lv.copy_capacity_kib}" + skip))
        levels = [(self.stages, self.fast_space, self.pipeline_capacity_kib)]
        levels += [(lv.stages, lv.fast_space, lv.pipeline_capacity_kib) for lv in self.inner]
        for k, (stages, space, cap) in enumerate(levels):
            if stages < 2:
                continue
            opts = [] if stages == 2 else [f"stages={stages}"]
            if not self.copy_out_pipelining:
                opts.append("pipeline-copy-out=false")
            # cross-tile prefetch at the first level only: an inner level's tile loops hold
            # the copies of the level above, which its prefetch would have to cross
            if not self.cross_tile_prefetch or k > 0:
                opts.append("cross-tile-prefetch=false")
            if self.inner:
                opts.append("level-only")
            opts.append(f"fast-mem-space={space}")
            if cap is not None:
                opts.append(f"fast-mem-capacity={cap}")
            out.append((PIPELINE, " ".join(opts)))

    def _depth_opts(self) -> str:
        """The copy pass's placement options of an explicit mapping ('' by default)."""
        if not self.copy_depth:
            return " hoist-over-dependent-loops" if self.hoist_over_dependent_loops else ""
        return f" copy-depth={self.copy_depth}" + ("" if self.hoist_read_copies
                                                     else " hoist-read-copies=false")

    def _inner_tiles(self) -> str:
        """The tiling pass's options for the inner levels ('' with two levels)."""
        if not self.inner:
            return ""
        if self.inner[0].tile_sizes is not None:
            return " inner-tile-sizes=" + "/".join(",".join(map(str, lv.tile_sizes or ()))
                                                   for lv in self.inner)
        return " inner-cache-sizes=" + "/".join(str(lv.tile_cache_kib) for lv in self.inner)

    def passes(self, without: Sequence[str] = ()) -> list[Pass]:
        """The Pass objects of `steps()`, but those named in `without`."""
        from compiler.transforms.registry import create_pass

        return [create_pass(name, opts) for name, opts in self.steps() if name not in without]

    def flags(self) -> list[str]:
        """The mlir-opt flags of `passes()`, e.g. for `--json`'s `pipeline` key."""
        return [f"--{name}={opts}" if opts else f"--{name}" for name, opts in self.steps()]
