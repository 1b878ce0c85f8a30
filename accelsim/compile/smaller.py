"""More of a resource never makes the default schedule slower: the smaller machines' choices.

Where no tile search applies (several nests, a triangular band: the cache model's pipeline,
`AcceleratorPipeline.for_config`), the pipeline follows the fast memory's capacity: the
copies get 1/stages of it and the cache model's tiles half of that. On a bigger memory the
tiles grow and the copies climb out of the loops that pipelined them (a whole array copied
before the first kernel, nothing overlapped): PolyBench's atax on `default` took 27,443 cycles
with 128 KiB and 29,371 with 512 KiB, syrk 460,161 with 256 KiB and 467,578 with 512 KiB.
Every pipeline the machine with less memory would compile fits this one, so the capacity
rule is applied to the machine and to the same machine with its on-chip capacities halved
(`capacity_ladder`: `LADDER` capacities with one on-chip level; with several, `LEVEL_RUNGS`
per level in every combination), each compiled and estimated by the analytic estimate on
the real machine, and the fewest cycles wins (ties: the larger capacities).

A capacity at which the cache model's tiles already hold every byte the program touches in
slow memory compiles as every larger one does (whole tiles, whole-array copies), so a level's
rungs start at the smallest such capacity (`_rungs`): a machine with more memory than that
gets the same ladder, and one with less gets the smaller machines' choices among its own
(all of them while the choice is not the smallest rung).

Where `affine-copy-stream` splits a nest on a rung (more kernel calls for the overlap of
its copies), the rung is also compiled without it and with fewer pieces
(`pipeline.STREAM_CHUNKS`), and the estimate keeps the fastest (3mm and correlation at SMALL:
faster without; lu, cholesky, ludcmp, gramschmidt: with; trmm: with 4 pieces, whose rows
keep the matrix array's folds).
"""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import HardwareConfig
from accelsim.errors import InputError
from compiler.diagnostics import AccelsimError, Remark
from compiler.ir import ops as O

LADDER = 4   # capacities weighed: the machine's and 3 halvings (each one compile + estimate)
LEVEL_RUNGS = 3  # with several on-chip levels: each level's and 2 halvings, every combination


def slow_bytes(module: O.ModuleOp, slow_space: int) -> int:
    """Bytes of the memrefs in `slow_space` the module's functions take or allocate (static
    shapes; a dynamic one counts nothing)."""
    from compiler.ir.types import MemRefType

    seen: dict[int, int] = {}
    for f in module.funcs:
        if f.is_declaration:
            continue
        values = [*f.args, *(r for op in f.walk() for r in getattr(op, "results", ()))]
        for v in values:
            t = getattr(v, "type", None)
            if isinstance(t, MemRefType) and t.memory_space == slow_space and t.has_static_shape:
                seen[id(v)] = t.size_bytes
    total = sum(seen.values())
    return total


def _capacities(config: HardwareConfig) -> dict[str, int]:
    """The on-chip capacities (KiB) by override key: `sram.capacity_kib`, or each memory
    level's below DRAM."""
    if not config.memory:
        return {"sram.capacity_kib": config.sram.capacity_kib}
    return {f"memory.{lv.name}.capacity_kib": lv.capacity_kib for lv in config.memory_chain()[1:]}


def _rungs(kib: int, stages: int, need_kib: int, count: int) -> list[int]:
    """Up to `count` capacities of one level, `kib` halved: from the smallest whose cache
    model still holds `need_kib` (1/stages of the level for the copies, half of that for the
    tiles: `AcceleratorPipeline.for_config`; every larger one compiles the same) down, none
    below 1 KiB."""
    while (kib // 2) // max(1, stages) // 2 >= need_kib and kib // 2 >= 1:
        kib //= 2
    out = []
    while kib >= 1 and len(out) < count:
        out.append(kib)
        kib //= 2
    return out


def capacity_ladder(config: HardwareConfig, module: O.ModuleOp, stages: int = 2
                    ) -> list[HardwareConfig]:
    """`config` and the machines with its on-chip levels' capacities halved: each level's
    `_rungs` (`LADDER` of them with one on-chip level, `LEVEL_RUNGS` each with more), every
    combination, the largest capacities first; capacities above the smallest one whose
    cache model holds all of the module's slow-memory bytes are left out (they compile as
    that one does)."""
    import itertools

    caps = _capacities(config)
    slow = config.memory_chain()[0].space if config.memory else config.spaces.dram
    need_kib = -(-slow_bytes(module, slow) // 1024)
    count = LADDER if len(caps) == 1 else LEVEL_RUNGS
    rungs = [_rungs(kib, stages, need_kib, count) for kib in caps.values()]
    combos = sorted(itertools.product(*rungs), key=lambda c: (-sum(c), [-x for x in c]))
    out: list[HardwareConfig] = []
    for combo in combos:
        scaled = dict(zip(caps, combo, strict=True))
        out.append(config if scaled == caps else config.with_overrides(scaled))
    return out


def best_compiled(module: O.ModuleOp, config: HardwareConfig, func: str | None,
                  pipes: Sequence[AcceleratorPipeline]
                  ) -> tuple[int, AcceleratorPipeline, O.ModuleOp, list[Remark]] | None:
    """Compile each of `pipes` (one fusion setting for all) on a clone of `module` and
    estimate it on `config`: (index, pipeline, module, remarks) of the fewest cycles (ties:
    the first), or None when none compiles. The fusion passes run once; each pipeline's
    output is verified once, after all its passes; the estimates after the first stop once
    past the best (`limit`)."""
    from accelsim.compile.clone import clone_module
    from accelsim.compile.pipeline import FUSE, PC_FUSE, STREAM, STREAM_CHUNKS, stream_alignments
    from accelsim.estimate.analytic import estimate
    from accelsim.estimate.state import OverLimit
    from compiler.ir.verifier import verify
    from compiler.transforms.affine_data_copy_generate import CopyCapacityError
    from compiler.transforms.registry import PassManager, create_pass

    fusion = [(n, o) for n, o in pipes[0].steps() if n in (PC_FUSE, FUSE)]
    assert all([(n, o) for n, o in p.steps() if n in (PC_FUSE, FUSE)] == fusion for p in pipes)
    fused = clone_module(module)
    first = PassManager([create_pass(n, o) for n, o in fusion], verify_each=False)
    first.run(fused)
    best: tuple[int, int, AcceleratorPipeline, O.ModuleOp, list[Remark]] | None = None
    todo = list(enumerate(pipes))
    while todo:
        i, pipe = todo.pop(0)
        mod = clone_module(fused)
        pm = PassManager(pipe.passes(without=(PC_FUSE, FUSE)), verify_each=False)
        try:
            try:
                pm.run(mod)
            except CopyCapacityError:
                if pipe.skip_oversized_copies or not pipe.copies:
                    raise
                # copies that do not fit even at the innermost level: what fits is copied,
                # the rest stays in slow memory (`accelerator.run_pipeline`)
                pipe = pipe.replace(skip_oversized_copies=True)
                mod = clone_module(fused)
                pm = PassManager(pipe.passes(without=(PC_FUSE, FUSE)), verify_each=False)
                pm.run(mod)
            verify(mod)
        except AccelsimError:  # a smaller machine's pipeline the passes refuse is skipped
            if i == 0:
                raise
            continue
        if pipe.copy_stream and pipe.stream_chunks == STREAM_CHUNKS[0] and pipe.stream_align == 1 \
                and any(r.pass_name == STREAM for r in pm.remarks):
            # streaming splits nests (more kernel calls): weighed against not streaming,
            # against fewer pieces and against pieces of the matrix unit's rows
            todo[:0] = [(i, pipe.replace(copy_stream=False)),
                        *((i, pipe.replace(stream_chunks=n)) for n in STREAM_CHUNKS[1:]),
                        *((i, pipe.replace(stream_align=a)) for a in stream_alignments(config) if a > 1)]
        try:
            cycles = estimate(mod, config, func=func,
                              limit=None if best is None else best[0]).cycles
        except OverLimit:
            continue
        except InputError:
            # the estimate needs a value only the run has (a symbolic loop bound given in
            # --inputs): the pipelines cannot be weighed, the machine's own is kept
            if i == 0:
                return i, pipe, mod, [*first.remarks, *pm.remarks]
            continue
        if best is None or cycles < best[0] or (cycles == best[0] and best[1] == i
                                                 and not pipe.copy_stream):
            best = (cycles, i, pipe, mod, [*first.remarks, *pm.remarks])
    if best is None:
        return None
    return best[1], best[2], best[3], best[4]


__all__ = ["LADDER", "LEVEL_RUNGS", "best_compiled", "capacity_ladder", "slow_bytes"]
