"""Errors raised by the host backend (it may not import accelsim, so they live here)."""

from __future__ import annotations

from compiler.diagnostics import AccelsimError, DiagnosticError


class BackendError(AccelsimError):
    """Root of the backend's errors."""


class ArgumentError(BackendError):
    """Arrays handed to a compiled function do not match its signature; names the argument."""


class LoweringError(DiagnosticError):
    """An op the host backend cannot lower; carries the op's location."""


class JitError(BackendError):
    """LLVM rejected the generated module (an internal bug, reported with the IR name)."""
