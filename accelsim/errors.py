"""Simulator-side errors; the root class is shared with the compiler."""

from compiler.diagnostics import AccelsimError, DiagnosticError


class ConfigError(AccelsimError):
    """A hardware or sweep description with a bad key or value; names the key and the range."""


class CapacityError(DiagnosticError):
    """A buffer does not fit in its memory."""


class HazardError(DiagnosticError):
    """A race or misuse the real hardware would not report: names the op and the cycle."""


class InputError(AccelsimError):
    """Bad arrays or arguments given to a run."""


class SimulationError(DiagnosticError):
    """A program the simulator cannot execute (an unsupported op, a missing kernel)."""


class CompilerBugError(DiagnosticError):
    """The compiler produced a wrong program (e.g. a race between a DMA and an access): a bug
    of ours, not the user's; the message names the pass that produced it."""


# Exceptions that mean a bug in the code that raised them, never bad input or a failing tool:
# where a broad catch must stay (a worker boundary, a user's evaluator), it re-raises these or
# stores them with where they were raised, never treats them as an ordinary failure.
PROGRAMMING_ERRORS: tuple[type[Exception], ...] = (AssertionError, AttributeError, NameError,
                                                   TypeError)
