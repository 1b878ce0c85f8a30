"""`test-affine-data-copy`: upstream's test pass for the copy utilities
(mlir/test/lib/Dialect/Affine/TestAffineDataCopy.cpp), spelled as mlir-opt spells it, on the
machinery of `affine-data-copy-generate` (point-wise copies inside memory space 0:
`generate-dma=false fast-mem-space=0 slow-mem-space=0`, 32 MiB of fast memory).

Per function, and only when it has one outermost loop nest whose deepest level is a single
loop (upstream's condition; otherwise the function is left alone):

- `memref-filter`: copies for the body of the outermost loop (upstream's
  affineDataCopyGenerate on that loop) for one memref only, the one the first `affine.load`
  directly in the innermost loop reads; hoisted above loops the region does not depend on,
  as the pass does;
- `for-memref-region`: one buffer for that memref around the whole nest (upstream:
  generateCopyForMemRegion with the load's region at depth 0);
- `capacity-kib=N`: copies for every memref of the outermost loop's body with N KiB of fast
  memory (upstream's newer option): buffers over it are a remark, as upstream warns, not an
  error; a memref allocated in that body gets its copies after the alloc.

Copy loops that run once are then replaced by their bodies, as upstream's pass does
(`rewrite/promote.py`).

Where upstream is wrong this pass is not: upstream's `for-memref-region` copies in the first
load's region only and then redirects every access of the memref to the buffer, so stores to
it are lost (never copied out) and other accesses may fall outside the buffer; here the
buffer covers every access of the memref in the nest and is copied back where written, with
a remark when that differs from upstream's region.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.core import Block
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, ModuleOp
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass
from compiler.transforms.affine_data_copy_generate import Options as CopyOptions
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.promote import promote_if_single_iteration
from compiler.transforms.rewrite.structure import defined_inside

UPSTREAM_CAPACITY_KIB = 32 * 1024   # the test pass's fastMemCapacityBytes: 32 MiB


@dataclass(frozen=True)
class Options:
    memref_filter: bool = False
    for_memref_region: bool = False
    capacity_kib: int | None = None

    def __post_init__(self) -> None:
        if self.capacity_kib is not None and self.capacity_kib < 0:
            raise ValueError(f"capacity-kib must be >= 0 KiB, got {self.capacity_kib}")


def loops_by_depth(block: Block, depth: int = 0, out: list[list[AffineForOp]] | None = None
                   ) -> list[list[AffineForOp]]:
    """MLIR's gatherLoops: the `affine.for` ops by nesting depth (loops directly in loop
    bodies; a loop under another op starts no deeper level)."""
    out = [] if out is None else out
    for op in block.ops:
        if isinstance(op, AffineForOp):
            while len(out) <= depth:
                out.append([])
            out[depth].append(op)
            loops_by_depth(op.body, depth + 1, out)
    return out


class TestAffineDataCopyPass(Pass):
    __test__ = False   # not a pytest class, whatever its name
    name = "test-affine-data-copy"
    summary = "Tests affine data copy utility functions"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        opts = self.options
        kib = opts.capacity_kib if opts.capacity_kib is not None else UPSTREAM_CAPACITY_KIB
        for func in module.funcs:
            if func.is_declaration:
                continue
            levels = loops_by_depth(func.body)
            if not levels or len(levels[0]) != 1 or len(levels[-1]) != 1:
                continue
            nest, innermost = levels[0][0], levels[-1][0]
            load = next((op for op in innermost.body.ops if isinstance(op, AffineLoadOp)), None)
            if opts.memref_filter or opts.for_memref_region:
                if load is None:
                    continue
            elif opts.capacity_kib is None:
                continue      # no mode asked for: upstream's pass does nothing either
            copier = AffineDataCopyGeneratePass(CopyOptions(
                generate_dma=False, fast_mem_space=0, slow_mem_space=0, tag_mem_space=0,
                fast_mem_capacity=kib, elide_dead_copy_in=False))
            copier.start_func(func)
            if opts.memref_filter:
                assert load is not None
                copier.generate(list(nest.body.ops), only_memref=load.memref, strict_capacity=False)
            elif opts.for_memref_region:
                assert load is not None
                if defined_inside(load.memref, nest):
                    self.remark(load.loc, f"no copy for %{load.memref.name_hint or '?'}: it is "
                                          "allocated inside the nest")
                    continue
                self._note_region(nest, load)
                copier.generate([nest], only_memref=load.memref, strict_capacity=False)
            else:
                copier.generate(list(nest.body.ops), strict_capacity=False)
            for r in copier.remarks:
                self.remark(r.loc, r.message)
            for root in copier.copy_roots:   # as upstream: single-iteration copy loops inlined
                for lp in reversed([op for op in root.walk() if isinstance(op, AffineForOp)]):
                    promote_if_single_iteration(lp)

    def _note_region(self, nest: AffineForOp, load: AffineLoadOp) -> None:
        others = [op for op in nest.walk() if isinstance(op, AffineLoadOp | AffineStoreOp)
                  and op.memref is load.memref and op is not load]
        if not others:
            return
        stores = sum(isinstance(op, AffineStoreOp) for op in others)
        name = f"%{load.memref.name_hint or '?'}"
        self.remark(load.loc, f"{name}: the buffer covers all {len(others) + 1} accesses of {name} in the "
                              f"nest and is copied back where written ({stores} store(s)); upstream's "
                              "covers this load's region only and never copies back")
