"""More of a resource never makes the default schedule slower: the smaller machines' choices.

Where no tile search applies (several nests, a triangular band: the cache model's pipeline,
`AcceleratorPipeline.for_config`), the pipeline follows the fast memory's capacity: the
copies get 1/stages of it and the cache model's tiles half of that. On a bigger memory the
tiles grow and the copies climb out of the loops that pipelined them (a whole array copied
before the first kernel, nothing overlapped): PolyBench's atax on `default` took 27,443 cycles
with 128 KiB and 29,371 with 512 KiB, syrk 460,161 with 256 KiB and 467,578 with 512 KiB.
Every pipeline the machine with less memory would compile fits this one, so the capacity
rule is applied to the machine and to the same machine with its on-chip capacity halved
`LADDER - 1` times (`capacity_ladder`), each compiled and estimated by the analytic
estimate on the real machine, and the fewest cycles wins (ties: the larger capacity).

A capacity at which the cache model's tiles already hold every byte the program touches in
slow memory compiles as every larger one does (whole tiles, whole-array copies), so the
ladder starts at the smallest such capacity (`_top`): a machine with more memory than that
gets the same ladder, and one with less gets the smaller machines' choices among its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import HardwareConfig
from compiler.diagnostics import Remark
from compiler.ir import ops as O

LADDER = 4   # capacities weighed: the machine's and 3 halvings (each one compile + estimate)


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


def _scaled(caps: dict[str, int], k: int) -> dict[str, int] | None:
    """`caps` halved k times, or None where a level would drop below 1 KiB."""
    out = {key: kib >> k for key, kib in caps.items()}
    return out if min(out.values()) >= 1 else None


def _holds_all(caps: dict[str, int], stages: int, need_kib: int) -> bool:
    """The cache model's tiles at these capacities hold `need_kib` on every level (1/stages of
    a level for the copies, half of that for the tiles: `AcceleratorPipeline.for_config`)."""
    return min(caps.values()) // max(1, stages) // 2 >= need_kib


def _top(caps: dict[str, int], stages: int, need_kib: int) -> int:
    """How many halvings of `caps` the ladder starts at: the smallest capacity of the form
    caps / 2^k whose cache model still holds everything (each larger one compiles the same)."""
    k = 0
    while True:
        nxt = _scaled(caps, k + 1)
        if nxt is None or not _holds_all(nxt, stages, need_kib):
            return k
        k += 1


def capacity_ladder(config: HardwareConfig, module: O.ModuleOp, stages: int = 2
                    ) -> list[HardwareConfig]:
    """`config` and up to `LADDER - 1` machines with its on-chip capacity halved (every level
    at once), largest first; capacities above the smallest one whose cache model holds all
    of the module's slow-memory bytes are left out (they compile as it does)."""
    caps = _capacities(config)
    slow = config.memory_chain()[0].space if config.memory else config.spaces.dram
    need_kib = -(-slow_bytes(module, slow) // 1024)
    first = _top(caps, stages, need_kib)
    out: list[HardwareConfig] = []
    for k in range(first, first + LADDER):
        scaled = _scaled(caps, k)
        if scaled is None:
            break
        out.append(config if k == 0 else config.with_overrides(scaled))
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
    from accelsim.compile.pipeline import FUSE, PC_FUSE
    from accelsim.estimate.analytic import estimate
    from accelsim.estimate.state import OverLimit
    from compiler.ir.verifier import verify
    from compiler.transforms.registry import PassManager, create_pass

    fusion = [(n, o) for n, o in pipes[0].steps() if n in (PC_FUSE, FUSE)]
    assert all([(n, o) for n, o in p.steps() if n in (PC_FUSE, FUSE)] == fusion for p in pipes)
    fused = clone_module(module)
    first = PassManager([create_pass(n, o) for n, o in fusion], verify_each=False)
    first.run(fused)
    best: tuple[int, int, AcceleratorPipeline, O.ModuleOp, list[Remark]] | None = None
    for i, pipe in enumerate(pipes):
        mod = clone_module(fused)
        pm = PassManager(pipe.passes(without=(PC_FUSE, FUSE)), verify_each=False)
        try:
            pm.run(mod)
            verify(mod)
            cycles = estimate(mod, config, func=func,
                              limit=None if best is None else best[0]).cycles
        except OverLimit:
            continue
        except Exception:  # a smaller machine's pipeline the passes refuse is skipped
            if i == 0:
                raise
            continue
        if best is None or cycles < best[0]:
            best = (cycles, i, pipe, mod, [*first.remarks, *pm.remarks])
    if best is None:
        return None
    return best[1], best[2], best[3], best[4]


__all__ = ["LADDER", "best_compiled", "capacity_ladder", "slow_bytes"]
