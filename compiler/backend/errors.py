"""Errors raised by the host backend (it may not import accelsim, so they live here)."""

from __future__ import annotations

from compiler.diagnostics import UNKNOWN_LOC, AccelsimError, DiagnosticError, Location


class BackendError(AccelsimError):
    """Root of the backend's errors."""


class ArgumentError(BackendError):
    """Arrays handed to a compiled function do not match its signature; names the argument."""


class LoweringError(DiagnosticError):
    """An op the host backend cannot lower, or a program it refuses (a documented limit);
    carries the op's location."""


class JitError(BackendError):
    """LLVM rejected the generated module (an internal bug, reported with the IR name)."""


class HostRunError(BackendError, DiagnosticError):
    """A compiled function stopped on a run-time check before it did something undefined; the
    location is the op's, the message says what it found. The call's arrays hold whatever the
    program wrote before the check fired."""

    def __init__(self, message: str, loc: Location = UNKNOWN_LOC):
        DiagnosticError.__init__(self, message, loc)


class OutOfBoundsError(HostRunError):
    """An access (a load, a store, a DMA side) outside its memref: names the index, its
    dimension and the allowed range (bounds-checked mode)."""


class IntegerDivisionError(HostRunError):
    """An integer division or remainder by zero, or one that overflows (MIN / -1)."""
