"""The pass registry and the mlir-opt style command line (`--affine-loop-tile="tile-size=32"`).

`PASSES` is the one table of the passes this compiler has, by mlir-opt flag; a new pass is a
new file beside the others and a new line here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from compiler.diagnostics import OptionError, Remark
from compiler.ir.analysis_cache import invalidate
from compiler.ir.ops import FuncOp, ModuleOp
from compiler.transforms.affine_cluster_distribute import AffineClusterDistributePass
from compiler.transforms.affine_copy_forward import AffineCopyForwardPass
from compiler.transforms.affine_copy_stream import AffineCopyStreamPass
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass
from compiler.transforms.affine_dma_forward import AffineDmaForwardPass
from compiler.transforms.affine_dma_start_hoist import AffineDmaStartHoistPass
from compiler.transforms.affine_dma_wait_sink import AffineDmaWaitSinkPass
from compiler.transforms.affine_loop_interchange import AffineLoopInterchangePass
from compiler.transforms.affine_loop_tile import AffineLoopTilePass
from compiler.transforms.affine_pipeline_data_transfer import AffinePipelineDataTransferPass
from compiler.transforms.affine_producer_consumer_fusion import AffineProducerConsumerFusionPass
from compiler.transforms.affine_scalar_replace import AffineScalarReplacePass
from compiler.transforms.affine_sibling_fusion import AffineSiblingFusionPass
from compiler.transforms.convert_linalg_to_affine_loops import ConvertLinalgToAffineLoopsPass
from compiler.transforms.fold_memref_alias_ops import FoldMemrefAliasOpsPass
from compiler.transforms.outline_kernels import OutlineKernelsPass
from compiler.transforms.pass_base import Pass
from compiler.transforms.test_affine_data_copy import TestAffineDataCopyPass
from compiler.transforms.test_affine_parametric_tile import TestAffineParametricTilePass

PASSES: Mapping[str, type[Pass]] = {
    cls.name: cls
    for cls in (
        AffineClusterDistributePass,
        AffineLoopTilePass,
        AffineLoopInterchangePass,
        AffineDataCopyGeneratePass,
        AffinePipelineDataTransferPass,
        AffineScalarReplacePass,
        AffineDmaWaitSinkPass,
        AffineCopyForwardPass,
        AffineCopyStreamPass,
        AffineDmaForwardPass,
        AffineDmaStartHoistPass,
        AffineSiblingFusionPass,
        AffineProducerConsumerFusionPass,
        OutlineKernelsPass,
        ConvertLinalgToAffineLoopsPass,
        FoldMemrefAliasOpsPass,
        TestAffineDataCopyPass,
        TestAffineParametricTilePass,
    )
}


def _load_builtin_passes() -> None:
    """Kept for callers of the old lazily filled registry; PASSES is complete on import.
    (To be removed once accelsim, bench and tests no longer call it.)"""


def create_pass(name: str, options: str = "") -> Pass:
    if name not in PASSES:
        known = ", ".join(sorted(PASSES))
        raise OptionError(f"unknown pass '--{name}' (known passes: {known})")
    return PASSES[name](options)


def parse_pass_flag(flag: str) -> Pass:
    """`--name` or `--name=options` (the shell already removed the quotes)."""
    body = flag[2:] if flag.startswith("--") else flag.lstrip("-")
    name, _, options = body.partition("=")
    options = options.strip()
    if len(options) >= 2 and options[0] == options[-1] and options[0] in "\"'":
        options = options[1:-1]
    return create_pass(name, options)


def is_pass_flag(flag: str) -> bool:
    body = flag[2:] if flag.startswith("--") else ""
    return body.partition("=")[0] in PASSES


class PassManager:
    """Runs passes in order; verifies after each so a broken pass is caught where it broke."""

    def __init__(self, passes: Sequence[Pass], verify_each: bool = True):
        self.passes = list(passes)
        self.verify_each = verify_each
        self.remarks: list[Remark] = []

    @staticmethod
    def from_flags(flags: Sequence[str]) -> PassManager:
        return PassManager([parse_pass_flag(f) for f in flags])

    def run(self, module: ModuleOp) -> ModuleOp:
        from compiler.ir.verifier import verify

        # a function of several blocks (cf.br / cf.cond_br) is left alone by every pass: its
        # ops stay as written (the passes' analyses assume structured control flow)
        aside = [(k, op) for k, op in enumerate(module.body.ops)
                 if self.passes and isinstance(op, FuncOp) and len(op.blocks) > 1]
        for _, f in aside:
            f.detach()
            self.remarks.append(Remark("pass-manager", f.loc, f"@{f.sym_name} has {len(f.blocks)} "
                                       "blocks (cf.br / cf.cond_br): the passes leave its loops "
                                       "alone"))
        try:
            for p in self.passes:
                p.run(module)
                self.remarks.extend(p.remarks)
                if self.verify_each:
                    verify(module)
        finally:
            for k, f in aside:
                module.body.insert(min(k, len(module.body.ops)), f)
            if self.passes:  # what the analyses cached on this module's ops may be stale
                invalidate(module)
        return module
