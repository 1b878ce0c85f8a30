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
    """`compiler.backend.compile_module(module).call`; None when the backend is absent, or the
    backend's error message when it cannot compile this module (the executor then interprets
    kernel bodies itself)."""
    try:
        from compiler.backend import BackendError, compile_module  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        compiled = compile_module(module)
    except BackendError as exc:
        return str(exc)  # the caller interprets the kernels and says why

    def run(callee: str, args: list) -> None:  # type: ignore[type-arg]
        compiled.call(callee, args)

    return run
