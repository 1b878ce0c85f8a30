"""Outlining the loop nests left in the control program into kernels (`outline-kernels`)."""

from __future__ import annotations

from compiler.ir.core import Block
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineForOp, ModuleOp


def needs_outlining(module: ModuleOp) -> bool:
    """A loop nest with no DMA op anywhere inside it, outside any private kernel function."""
    for f in module.funcs:
        if f.private or f.is_declaration:
            continue
        if _dma_free_loop(f.body)[1]:
            return True
    return False


def _dma_free_loop(block: Block) -> tuple[bool, bool]:
    """(the block holds a DMA op at any depth, it holds a loop with no DMA op inside): one
    pass, so checking a module costs one walk however deep its nests are."""
    has_dma = free_loop = False
    for op in block.ops:
        if isinstance(op, AffineDmaStartOp | AffineDmaWaitOp):
            has_dma = True
            continue
        inner_dma = False
        for b in op.blocks:
            d, fl = _dma_free_loop(b)
            inner_dma = inner_dma or d
            free_loop = free_loop or fl
        if isinstance(op, AffineForOp) and not inner_dma:
            free_loop = True
        has_dma = has_dma or inner_dma
    return has_dma, free_loop


def ensure_outlined(module: ModuleOp) -> ModuleOp:
    outline_if_needed(module)
    return module


def outline_if_needed(module: ModuleOp) -> bool:
    """Outline the module's DMA-free loop nests in place; whether there were any."""
    if not needs_outlining(module):
        return False
    from compiler.transforms.registry import create_pass

    create_pass("outline-kernels").run(module)
    return True
