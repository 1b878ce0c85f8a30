"""The accelerator pipeline for one module: the tile search's choice where it applies.

    pipe = accelerator_pipeline(cfg, module)           # the value (module left unchanged)
    pipe, remarks = compile_for_accelerator(cfg, module)  # module compiled in place

A config whose memory chain has more than two levels gets the multi-level pipeline (tiles,
copies and pipelining per level: `tile_search_levels`, else `AcceleratorPipeline.for_hierarchy`);
a two-level one exactly what it always got.
"""

from __future__ import annotations

from accelsim.compile.frontend import lower_linalg
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.compile.tile_search import SearchResult, search
from accelsim.compile.tile_search_levels import search_levels
from accelsim.config import HardwareConfig
from compiler.diagnostics import Remark
from compiler.ir.ops import ModuleOp


def accelerator_pipeline(config: HardwareConfig, module: ModuleOp | None = None,
                         func: str | None = None) -> AcceleratorPipeline:
    """The pipeline for `config`. With `module`, tile sizes (and the copy capacity, stages)
    come from the tile search when its model applies (one perfect rectangular band), else
    from the cache model."""
    if module is not None:
        found = _search(module, config, func)
        if found is not None:
            return found.pipeline
    return AcceleratorPipeline.for_config(config)


def compile_for_accelerator(config: HardwareConfig, module: ModuleOp,
                            func: str | None = None) -> tuple[AcceleratorPipeline, list[Remark]]:
    """Run `accelerator_pipeline(config, module, func)` on `module` in place: the pipeline
    and the passes' remarks. The tile search already compiled its choice on a copy of the
    module, which then becomes the module's body (the passes do not run twice)."""
    from compiler.transforms.registry import PassManager

    lower_linalg(module)  # linalg in: its affine loops are what the pipeline compiles
    check_input_program(module)
    found = _search(module, config, func)
    if found is not None and found.compiled is not None:
        _adopt(module, found.compiled)
        return found.pipeline, list(found.remarks)
    pipe = found.pipeline if found is not None else AcceleratorPipeline.for_config(config)
    pm = PassManager(pipe.passes())
    pm.run(module)
    return pipe, list(pm.remarks)


def _search(module: ModuleOp, config: HardwareConfig, func: str | None) -> SearchResult | None:
    if len(config.memory_chain()) > 2:
        return search_levels(module, config, func)
    return search(module, config, func)


def check_input_program(module: ModuleOp) -> None:
    """Errors of the program as written, before any pass runs: an access that leaves its
    memref (the copies the pipeline adds clip to the memref, so it would vanish unreported),
    and a dma_wait whose element count no dma_start on its tag moves."""
    from compiler.analysis.bounds import check_in_bounds
    from compiler.analysis.dma_counts import check_dma_counts

    for f in module.funcs:
        if not f.is_declaration:
            check_in_bounds(f)
            check_dma_counts(f)


def _adopt(module: ModuleOp, compiled: ModuleOp) -> None:
    """Move the ops of `compiled` into `module`, replacing its own."""
    body = module.body
    for op in list(body.ops):
        op.detach()
    for op in list(compiled.body.ops):
        op.detach()
        body.append(op)
