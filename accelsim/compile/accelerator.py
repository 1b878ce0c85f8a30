"""The accelerator pipeline for one module: the tile search's choice where it applies.

    pipe = accelerator_pipeline(cfg, module)           # the value (module left unchanged)
    pipe, remarks = compile_for_accelerator(cfg, module)  # module compiled in place

A config whose memory chain has more than two levels gets the multi-level pipeline (tiles,
copies and pipelining per level: `tile_search.search_levels`, else `AcceleratorPipeline.for_hierarchy`);
a two-level one exactly what it always got.

Producer-consumer fusion (the pipeline's first pass) is kept only where it pays: when it
fuses anything, the module is compiled with and without it and the analytic estimate of
each decides (fewer cycles wins, a tie keeps the unfused program); a remark says which.

Loop order: the schedule must not depend on how the loops were written. A top-level perfect
nest (depth <= 3) of the entry function that the tile search's model does not cover (bounds
that are not a box: triangular, trapezoidal, skewed; or any nest when the search does not
apply to the function and the cache model tiles it) is compiled in every loop order the
dependences allow (`affine-loop-interchange`, first in the pipeline), and the order with the
fewest cycles by the analytic estimate is kept (a tie keeps the order as written). A function
of several nests chooses each nest's order on a module holding that nest alone, so the
choice does not depend on how the others are written; the orders chosen are kept when the
whole program then estimates faster than as written (a remark names them). Every written
order of a nest has the same set of candidates, so it gets the same schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelsim.compile.clone import clone_module
from accelsim.compile.compile_cache import adopt_body, estimated, run_passes
from accelsim.compile.frontend import lower_linalg
from accelsim.compile.pipeline import COPY, INTERCHANGE, PC_FUSE, AcceleratorPipeline
from accelsim.compile.tile_search import search
from accelsim.config import HardwareConfig
from accelsim.errors import InputError
from compiler.diagnostics import UNKNOWN_LOC, Location, Remark
from compiler.ir.ops import AffineForOp, ModuleOp
from compiler.transforms.tiling.bands import is_hyper_rectangular


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A pipeline and, when already compiled, the module it gives and the passes' remarks."""

    pipeline: AcceleratorPipeline
    compiled: ModuleOp | None
    remarks: tuple[Remark, ...]
    searched: bool = False      # the tile search's model chose the tiles (not the cache model)


def accelerator_pipeline(config: HardwareConfig, module: ModuleOp | None = None,
                         func: str | None = None) -> AcceleratorPipeline:
    """The pipeline for `config`. With `module`, tile sizes (and the copy capacity, stages)
    come from the tile search when its model applies (one perfect rectangular band), else
    from the cache model."""
    if module is not None:
        return _choose(module, config, func).pipeline
    return AcceleratorPipeline.for_config(config)


def compile_for_accelerator(config: HardwareConfig, module: ModuleOp,
                            func: str | None = None, check: bool = True
                            ) -> tuple[AcceleratorPipeline, list[Remark]]:
    """Run `accelerator_pipeline(config, module, func)` on `module` in place: the pipeline
    and the passes' remarks. The tile search already compiled its choice on a copy of the
    module, which then becomes the module's body (the passes do not run twice). `check`: prove
    the output race-free (`accelsim.compile.race_check`); the many-cluster compiler checks
    the programs it keeps itself."""
    from accelsim.compile.race_check import check_compiled

    lower_linalg(module)  # linalg in: its affine loops are what the pipeline compiles
    check_input_program(module)
    source = clone_module(module) if check else module   # for naming the pass of a race
    found = _choose(module, config, func)
    if found.compiled is not None:
        _adopt(module, found.compiled)
        pipe, remarks = found.pipeline, list(found.remarks)
    else:
        pipe, remarks = run_pipeline(found.pipeline, module)
    # every schedule the compiler emits is proven race-free before it runs
    if check:
        check_compiled(module, lambda: clone_module(source), pipe.passes(), pipe.flags())
    return pipe, remarks


def _choose(module: ModuleOp, config: HardwareConfig, func: str | None) -> _Compiled:
    """`_choose_written` on the module as written, or in the loop order of its non-box nests
    the analytic estimate finds fastest (module left unchanged)."""
    from compiler.ir.entry import entry_function
    from compiler.transforms.rewrite.permute import legal_orders, permutable_band

    best = _choose_written(module, config, func)
    if len(config.memory_chain()) > 2:
        return best
    try:
        entry = entry_function(module, func, InputError)
    except InputError:
        return best
    roots = [op for op in entry.body.ops if isinstance(op, AffineForOp)]
    nests = []
    for k, root in enumerate(roots):
        band = _perfect(root)
        if len(band) < 2 or len(band) > _MAX_INTERCHANGE_DEPTH \
                or (best.searched and is_hyper_rectangular(band)) or not permutable_band(band):
            continue
        orders = legal_orders(band)
        if len(orders) > 1:
            nests.append((k, orders))
    if not nests:
        return best
    best = _compiled(module, best)
    assert best.compiled is not None
    written_cycles = estimated(best.compiled, config, func).cycles
    # each nest's order is chosen on a module holding that nest alone (where the other nests
    # can go: no results), so the choice never depends on how the other nests are written
    steps: list[tuple[str, int, tuple[int, ...]]] = []
    for k, orders in nests:
        alone = _alone(module, entry.sym_name, k) if len(roots) > 1 else None
        base, index = (module, k) if alone is None else (alone, 0)
        top, top_cycles = orders[0], None
        for order in orders:
            mod = _interchanged(base, config, ((entry.sym_name, index, order),))
            cand = _compiled(mod, _choose_written(mod, config, func))
            assert cand.compiled is not None
            cycles = estimated(cand.compiled, config, func).cycles
            if top_cycles is None or cycles < top_cycles:
                top, top_cycles = order, cycles
        if top != tuple(range(len(top))):
            steps.append((entry.sym_name, k, top))
    if not steps:
        return best
    mod = _interchanged(module, config, tuple(steps))
    cand = _compiled(mod, _choose_written(mod, config, func))
    assert cand.compiled is not None
    cycles = estimated(cand.compiled, config, func).cycles
    if cycles >= written_cycles:    # never slower than the order as written
        return best
    why = Remark(INTERCHANGE, _loc(module, func),
                 "loop order " + "; ".join(f"nest {k}: {','.join(map(str, p))}" for _, k, p in steps)
                 + f" kept: the analytic estimate is {cycles:,} cycles, {written_cycles:,} as written")
    return _Compiled(cand.pipeline.replace(interchanges=tuple(steps)), cand.compiled,
                     (why, *cand.remarks), cand.searched)


def _interchanged(module: ModuleOp, config: HardwareConfig,
                  steps: tuple[tuple[str, int, tuple[int, ...]], ...]) -> ModuleOp:
    """A clone of `module` with the interchanges of `steps` applied."""
    mod = clone_module(module)
    passes = AcceleratorPipeline.for_config(config).replace(interchanges=steps).passes()
    run_passes(mod, passes[:len(steps)])
    return mod


def _alone(module: ModuleOp, func: str, k: int) -> ModuleOp | None:
    """A clone of `module` whose function `func` keeps, of its top-level loop nests, the k-th
    alone (None when another one has results the rest of the function uses)."""
    mod = clone_module(module)
    entry = next(f for f in mod.funcs if f.sym_name == func)
    roots = [op for op in entry.body.ops if isinstance(op, AffineForOp)]
    if any(r.results for j, r in enumerate(roots) if j != k):
        return None
    for j, r in enumerate(roots):
        if j != k:
            r.erase()
    return mod


# loop nests deeper than this are not reordered (depth! orders, each a compile)
_MAX_INTERCHANGE_DEPTH = 3


def _perfect(root: AffineForOp) -> list[AffineForOp]:
    from compiler.transforms.rewrite.permute import perfect_band

    return perfect_band(root)


def _choose_written(module: ModuleOp, config: HardwareConfig, func: str | None) -> _Compiled:
    """The tile search's (or the cache model's) pipeline, with producer-consumer fusion where
    the estimate of the compiled program says it is faster (module left unchanged)."""
    if len(config.memory_chain()) > 2:  # not yet on hierarchies (`for_hierarchy`)
        return _variant(module, config, func, False)
    fused = _variant(module, config, func, True)
    if not _fusion_changes(module, fused.pipeline):
        return fused
    plain = _variant(module, config, func, False)
    fused, plain = _compiled(module, fused), _compiled(module, plain)
    assert fused.compiled is not None and plain.compiled is not None
    a = estimated(fused.compiled, config, func).cycles
    b = estimated(plain.compiled, config, func).cycles
    keep, verb = (fused, "kept") if a < b else (plain, "not kept")
    why = Remark(PC_FUSE, _loc(module, func),
                 f"producer-consumer fusion {verb}: the analytic estimate is {a:,} cycles with it, "
                 f"{b:,} without it")
    return _Compiled(keep.pipeline, keep.compiled, (why, *keep.remarks), keep.searched)


def _variant(module: ModuleOp, config: HardwareConfig, func: str | None, fuse: bool) -> _Compiled:
    found = search(module, config, func, fuse)
    if found is None:
        return _streamed_if_faster(module, config, func, _cache_model(module, config, func, fuse))
    pipe = found.pipeline.replace(producer_consumer_fusion=fuse)
    c = _Compiled(pipe, found.compiled if pipe == found.pipeline else None, found.remarks, True)
    return _streamed_if_faster(module, config, func, c)


def _streamed_if_faster(module: ModuleOp, config: HardwareConfig, func: str | None,
                        c: _Compiled) -> _Compiled:
    """`c`, `c` without `affine-copy-stream`, `c` with fewer pieces
    (`pipeline.STREAM_CHUNKS`) or with pieces aligned to the matrix unit's rows
    (`pipeline.stream_alignments`), where that pass split a nest: the fewest cycles by the
    analytic estimate (splitting adds kernel calls: on a small kernel they cost more than
    the overlap gains; a tie keeps the unsplit program)."""
    from accelsim.compile.pipeline import STREAM, STREAM_CHUNKS, stream_alignments

    if not c.pipeline.copy_stream or config.clusters > 1 or len(config.memory_chain()) > 2:
        return c
    c = _compiled(module, c)
    if not any(r.pass_name == STREAM for r in c.remarks):
        return c
    plain = _compiled(module, _Compiled(c.pipeline.replace(copy_stream=False), None, (), c.searched))
    assert c.compiled is not None and plain.compiled is not None
    best, cycles = c, estimated(c.compiled, config, func).cycles
    others = [c.pipeline.replace(stream_chunks=n) for n in STREAM_CHUNKS
              if n != c.pipeline.stream_chunks]
    others += [c.pipeline.replace(stream_align=a) for a in stream_alignments(config)
               if a != c.pipeline.stream_align]
    for pipe in others:
        cand = _compiled(module, _Compiled(pipe, None, (), c.searched))
        assert cand.compiled is not None
        k = estimated(cand.compiled, config, func).cycles
        if k < cycles:
            best, cycles = cand, k
    if estimated(plain.compiled, config, func).cycles <= cycles:
        return plain
    return best


def _cache_model(module: ModuleOp, config: HardwareConfig, func: str | None, fuse: bool) -> _Compiled:
    """The cache model's pipeline where no search applies: the capacity rule on this machine
    and on the machines with less on-chip memory (`smaller.capacity_ladder`), the fewest
    estimated cycles kept, so more memory never makes it slower."""
    from accelsim.compile.smaller import best_compiled, capacity_ladder

    pipes = [AcceleratorPipeline.for_config(c).replace(producer_consumer_fusion=fuse)
             for c in capacity_ladder(config, module)]
    if config.clusters > 1 or len(pipes) < 2:  # (the estimate walks one cluster's program)
        return _Compiled(AcceleratorPipeline.for_config(config).replace(producer_consumer_fusion=fuse),
                         None, ())
    best = best_compiled(module, config, func, pipes)
    if best is None:
        return _Compiled(pipes[0], None, ())
    _, pipe, mod, remarks = best
    return _Compiled(pipe, mod, tuple(remarks))


def _compiled(module: ModuleOp, c: _Compiled) -> _Compiled:
    """`c` with its module compiled (on a clone of `module`)."""
    if c.compiled is not None:
        return c
    mod = clone_module(module)
    pipe, remarks = run_pipeline(c.pipeline, mod)
    return _Compiled(pipe, mod, tuple(remarks), c.searched)


def run_pipeline(pipe: AcceleratorPipeline, module: ModuleOp
                 ) -> tuple[AcceleratorPipeline, list[Remark]]:
    """Run `pipe` on `module` in place: the pipeline that ran and its remarks. A program the
    compiler generates must fit the machine: where the copy buffers of some block exceed the
    fast memory even at the innermost level (a nest the tiling cannot shrink: a dependence
    forbids it), the pipeline runs again from the program as given with the copy pass's
    `skip-oversized` (what fits is copied, the rest accessed in slow memory), never an error."""
    from compiler.transforms.affine_data_copy_generate import CopyCapacityError

    work = clone_module(module) if not pipe.skip_oversized_copies else module
    try:
        remarks = run_passes(work, pipe.passes())
    except CopyCapacityError as exc:
        if pipe.skip_oversized_copies or not pipe.copies:
            raise
        pipe = pipe.replace(skip_oversized_copies=True)
        remarks = run_passes(module, pipe.passes())
        why = Remark(COPY, exc.loc,
                     "the copy buffers of a block do not fit the fast memory even at the innermost "
                     "level: compiled again with skip-oversized (the buffers that do not fit stay "
                     "in slow memory)")
        return pipe, [why, *remarks]
    if work is not module:
        _adopt(module, work)
    return pipe, remarks


def _fusion_changes(module: ModuleOp, pipe: AcceleratorPipeline) -> bool:
    """The pipeline's producer-consumer fusion fuses some nest of `module`."""
    from compiler.transforms.registry import create_pass

    if not pipe.producer_consumer_fusion:
        return False
    p = next(create_pass(n, o) for n, o in pipe.steps() if n == PC_FUSE)
    p.run(clone_module(module))
    return any(r.message.startswith("fused into") for r in p.remarks)


def _loc(module: ModuleOp, func: str | None) -> Location:
    from compiler.ir.entry import entry_function

    try:
        return entry_function(module, func, InputError).loc
    except InputError:
        return UNKNOWN_LOC


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


def adopt_module(module: ModuleOp, compiled: ModuleOp) -> None:
    """`module` takes `compiled`'s ops (in place: callers holding `module` see them)."""
    _adopt(module, compiled)


def _adopt(module: ModuleOp, compiled: ModuleOp) -> None:
    """Move the ops of `compiled` into `module`, replacing its own."""
    adopt_body(module, compiled)
