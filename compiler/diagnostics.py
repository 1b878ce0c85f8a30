"""Locations and the project-wide error tree.

The root class lives here, at the bottom of the dependency graph, so that `compiler` never
imports `accelsim` while every package still raises one family of errors.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Location:
    """Where an op came from: a `.mlir` file position or the Python call site that built it."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN_LOC = Location("<unknown>", 0, 0)

_IR_DIRS = tuple(
    os.path.dirname(os.path.abspath(__file__)) + os.sep + sub for sub in ("ir", "text", "transforms")
)


def caller_location() -> Location:
    """The first stack frame outside the IR-building machinery: the workload author's line."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_IR_DIRS) and "contextlib" not in path:
            return Location(path, frame.f_lineno, _column(frame))
        frame = frame.f_back
    return UNKNOWN_LOC


def _column(frame) -> int:  # type: ignore[no-untyped-def]
    try:
        positions = list(frame.f_code.co_positions())
        col = positions[frame.f_lasti // 2][2]
        return (col or 0) + 1
    except (IndexError, AttributeError):
        return 1


class AccelsimError(Exception):
    """Root of every error the project raises on purpose (never for internal bugs)."""


class DiagnosticError(AccelsimError):
    """An error attached to a source location, printed MLIR-style with the line and a caret."""

    def __init__(self, message: str, loc: Location = UNKNOWN_LOC, source_line: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.source_line = source_line

    def render(self) -> str:
        text = f"{self.loc}: error: {self.message}"
        line = self.source_line
        if line is None and self.loc.line > 0:
            line = _read_line(self.loc.file, self.loc.line)
        if line is not None:
            caret = " " * max(self.loc.col - 1, 0) + "^"
            text += f"\n{line.rstrip()}\n{caret}"
        return text

    def __str__(self) -> str:
        return f"{self.loc}: error: {self.message}"


def _read_line(path: str, lineno: int) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if i == lineno:
                    return line.rstrip("\n")
    except OSError:
        return None
    return None


class ParseError(DiagnosticError):
    """Malformed MLIR text."""


class VerifyError(DiagnosticError):
    """Well-formed text or built IR that breaks an IR invariant."""


class PassError(DiagnosticError):
    """A pass was asked to do something it cannot do without changing meaning."""


class OptionError(AccelsimError):
    """A pass or CLI option with a bad name or value."""


@dataclass(frozen=True, slots=True)
class Remark:
    """Why a pass left an op alone; shown to the user, never fatal."""

    pass_name: str
    loc: Location
    message: str

    def __str__(self) -> str:
        return f"{self.loc}: remark: [{self.pass_name}] {self.message}"
