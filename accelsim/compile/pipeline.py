"""The accelerator pipeline as a value: tile, copy into the fast memory with DMA, pipeline the
copies, keep the kernels' loop-invariant accesses in values (`affine-sibling-fusion` ->
`affine-loop-tile` -> `affine-data-copy-generate` -> `affine-pipeline-data-transfer` ->
`affine-scalar-replace`).

    pipe = AcceleratorPipeline.for_config(cfg)                 # the cache model's tiles
    pipe = pipe.with_tiles((64, 128, 64), copy_capacity_kib=80).replace(stages=3)
    PassManager(pipe.passes()).run(module)
    pipe.flags()  # ['--affine-loop-tile=tile-sizes=64,128,64', ...] for printing / records

The one capacity rule (`for_config`): with `stages` buffers per copied region, the copies get
1/stages of the SRAM and the cache model's tiles aim at half of that, so the multi-buffered
working set fits; the pipelining pass itself may use the whole SRAM.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accelsim.config import HardwareConfig
from accelsim.errors import ConfigError
from compiler.transforms.pass_base import Pass

TILE, COPY, PIPELINE = "affine-loop-tile", "affine-data-copy-generate", "affine-pipeline-data-transfer"
SCALAR, FUSE = "affine-scalar-replace", "affine-sibling-fusion"


def copy_share_kib(sram_kib: int, stages: int) -> int:
    """The fast memory (KiB) the copies of one set of tiles get with `stages` buffers each."""
    return max(1, sram_kib // max(1, stages))


@dataclass(frozen=True, slots=True)
class AcceleratorPipeline:
    """What the accelerator pipeline does, as mlir-opt options of its five passes.

    Tiling is `tile_sizes` (explicit), else `tile_cache_kib` (the cache model's budget), else
    none. `copies=False` drops the copy pass and the pipelining after it; `stages=1` keeps the
    copies and drops the pipelining; `scalar_replace=False` drops the last pass,
    `sibling_fusion=False` the first.
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
    sibling_fusion: bool = True                  # first: adjacent nests reading one memref fused

    def __post_init__(self) -> None:
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

    @classmethod
    def for_config(cls, config: HardwareConfig, stages: int = 2) -> AcceleratorPipeline:
        """The pipeline for `config` with the cache model's tiles and `stages` buffers."""
        sram, sp = config.sram.capacity_kib, config.spaces
        share = copy_share_kib(sram, stages)
        return cls(copy_capacity_kib=share, pipeline_capacity_kib=sram, fast_space=sp.sram,
                   slow_space=sp.dram, tag_space=sp.tag, tile_cache_kib=max(1, share // 2),
                   stages=stages)

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
        if self.sibling_fusion:
            out.append((FUSE, ""))
        if self.tile_sizes is not None:
            out.append((TILE, f"tile-sizes={','.join(map(str, self.tile_sizes))}"))
        elif self.tile_cache_kib is not None:
            out.append((TILE, f"cache-size={self.tile_cache_kib}"))
        if self.copies:
            self._copy_steps(out)
        if self.scalar_replace:
            out.append((SCALAR, ""))
        return out

    def _copy_steps(self, out: list[tuple[str, str]]) -> None:
        out.append((COPY, f"generate-dma fast-mem-space={self.fast_space} slow-mem-space="
                          f"{self.slow_space} tag-mem-space={self.tag_space} "
                          f"fast-mem-capacity={self.copy_capacity_kib}"))
        if self.stages >= 2:
            opts = [] if self.stages == 2 else [f"stages={self.stages}"]
            if not self.copy_out_pipelining:
                opts.append("pipeline-copy-out=false")
            if not self.cross_tile_prefetch:
                opts.append("cross-tile-prefetch=false")
            opts.append(f"fast-mem-space={self.fast_space}")
            if self.pipeline_capacity_kib is not None:
                opts.append(f"fast-mem-capacity={self.pipeline_capacity_kib}")
            out.append((PIPELINE, " ".join(opts)))

    def passes(self, without: Sequence[str] = ()) -> list[Pass]:
        """The Pass objects of `steps()`, but those named in `without`."""
        from compiler.transforms.registry import create_pass

        return [create_pass(name, opts) for name, opts in self.steps() if name not in without]

    def flags(self) -> list[str]:
        """The mlir-opt flags of `passes()`, e.g. for `--json`'s `pipeline` key."""
        return [f"--{name}={opts}" if opts else f"--{name}" for name, opts in self.steps()]
