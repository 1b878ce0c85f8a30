"""The accelerator pipeline for one module: the tile search's choice where it applies."""

from __future__ import annotations

from accelsim.compile.pipeline import base_pipeline
from accelsim.compile.tile_search import choose_tile_sizes
from accelsim.config import HardwareConfig
from compiler.ir.ops import ModuleOp


def accelerator_pipeline(config: HardwareConfig, module: ModuleOp | None = None,
                         func: str | None = None) -> tuple[list[str], list[str]]:
    """The pass flags for `config`, and a note for each pipeline pass that is not registered.
    With `module`, tile sizes (and the copy capacity) come from the tile search when its
    model applies (one perfect rectangular band), else from the cache model."""
    flags, missing = base_pipeline(config)
    if module is not None and not missing:
        choice = choose_tile_sizes(module, config, func)
        if choice is not None:
            flags = choice.flags(config)
    return flags, missing
