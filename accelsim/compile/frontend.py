"""The front door of the accelerator pipeline: MLIR that arrives as linalg on memrefs (e.g.
mlir-opt-19's one-shot-bufferize output of torch-mlir / IREE / StableHLO modules) is lowered to
affine loops first (`convert-linalg-to-affine-loops`), so every later stage (bounds check,
tile search, passes, simulator, host backend, analytic estimate) sees the affine program."""

from __future__ import annotations

from compiler.ir.ops import ModuleOp
from compiler.ir.ops.linalg import has_linalg

LINALG_FLAG = "--convert-linalg-to-affine-loops"
FOLD_FLAG = "--fold-memref-alias-ops"


def lower_linalg(module: ModuleOp) -> list[str]:
    """Lower every linalg op of `module` in place; the flags applied ([] when there was none).
    A `memref.copy` between buffers of one static shape (how bufferized functions hand their
    results to out-parameters) is lowered with them, as the `linalg.copy` it equals."""
    from compiler.transforms.convert_linalg_to_affine_loops import memref_copy_as_linalg
    from compiler.transforms.fold_memref_alias_ops import has_subview
    from compiler.transforms.registry import PassManager, parse_pass_flag

    for op in [op for op in module.walk() if op.NAME == "memref.copy"]:
        memref_copy_as_linalg(op)
    flags = [LINALG_FLAG] if has_linalg(module) else []
    if has_subview(module):   # static subviews fold into their users' subscripts
        flags.append(FOLD_FLAG)
    if flags:
        PassManager([parse_pass_flag(f) for f in flags]).run(module)
    return flags
