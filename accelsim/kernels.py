"""How kernels run: outlining loop nests left in the control program, and the native runner."""

from __future__ import annotations

from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineForOp, ModuleOp


def needs_outlining(module: ModuleOp) -> bool:
    """A loop nest with no DMA op anywhere inside it, outside any private kernel function."""
    for f in module.funcs:
        if f.private or f.is_declaration:
            continue
        for op in f.walk():
            if isinstance(op, AffineForOp) and not any(
                    isinstance(o, AffineDmaStartOp | AffineDmaWaitOp) for o in op.walk()):
                return True
    return False


def ensure_outlined(module: ModuleOp) -> ModuleOp:
    if not needs_outlining(module):
        return module
    from compiler.transforms.registry import create_pass

    create_pass("outline-kernels").run(module)
    return module


def backend_runner(module: ModuleOp):  # type: ignore[no-untyped-def]
    """`compiler.backend.compile_module(module).call`, or None when the backend is absent
    (the executor then interprets kernel bodies itself)."""
    try:
        from compiler.backend import compile_module  # type: ignore[attr-defined]
    except ImportError:
        return None
    compiled = compile_module(module)

    def run(callee: str, args: list) -> None:  # type: ignore[type-arg]
        compiled.call(callee, args)

    return run
