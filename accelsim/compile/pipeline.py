"""The accelerator pipeline: tile, copy into the fast memory with DMA, pipeline the copies."""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.config import HardwareConfig


def base_pipeline(config: HardwareConfig) -> tuple[list[str], list[str]]:
    """The pass flags for `config` with the cache model's tiles, and a note for each pipeline
    pass that is not registered."""
    from compiler.transforms.registry import PASSES, _load_builtin_passes

    _load_builtin_passes()
    sp, cap = config.spaces, config.sram.capacity_kib
    wanted = [
        # tiles sized so that a double-buffered working set fits: a quarter of the SRAM each
        ("affine-loop-tile", f"cache-size={max(1, cap // 4)}"),
        ("affine-data-copy-generate",
         f"generate-dma fast-mem-space={sp.sram} slow-mem-space={sp.dram} tag-mem-space={sp.tag} "
         f"fast-mem-capacity={max(1, cap // 2)}"),
        ("affine-pipeline-data-transfer", f"fast-mem-space={sp.sram} fast-mem-capacity={cap}"),
    ]
    flags, missing = [], []
    for name, opts in wanted:
        if name in PASSES:
            flags.append(f"--{name}={opts}")
        else:
            missing.append(f"note: pass '{name}' is not available yet; the accelerator pipeline "
                           "runs without it")
    return flags, missing


def pipeline_flags(config: HardwareConfig, sizes: Sequence[int] | None,
                   copy_kib: int | None = None, stages: int = 2) -> list[str]:
    """The accelerator pipeline's flags with explicit tile sizes (None: the cache model),
    the copy pass's fast-memory capacity (None: the pipeline's) and pipeline stages."""
    flags, _ = base_pipeline(config)
    out = []
    for f in flags:
        if sizes is not None and f.startswith("--affine-loop-tile="):
            f = f"--affine-loop-tile=tile-sizes={','.join(map(str, sizes))}"
        elif copy_kib is not None and f.startswith("--affine-data-copy-generate="):
            head, _, _old = f.rpartition("fast-mem-capacity=")
            f = f"{head}fast-mem-capacity={min(copy_kib, max(1, config.sram.capacity_kib // 2))}"
        elif stages != 2 and f.startswith("--affine-pipeline-data-transfer="):
            f = f.replace("--affine-pipeline-data-transfer=",
                          f"--affine-pipeline-data-transfer=stages={stages} ")
        out.append(f)
    return out
