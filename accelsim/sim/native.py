"""Kernels run natively: the host backend compiles the module once and runs each call."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from compiler.ir.ops import ModuleOp

KernelArg = np.ndarray | int | float | np.generic  # a buffer's array, or an index/scalar
KernelRunner = Callable[[str, list[KernelArg]], None]  # (callee, arguments): runs the kernel


def backend_runner(module: ModuleOp) -> KernelRunner | str | None:
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

    def run(callee: str, args: list[KernelArg]) -> None:
        compiled.call(callee, args)

    return run
