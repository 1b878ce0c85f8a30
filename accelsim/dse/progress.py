"""The progress bar of a sweep on stderr: points done, failed (infeasible, timed out), rate, ETA.

On a terminal it is a tqdm bar (the library network runs use too) redrawn in place, with the
failure counts as its postfix; otherwise (a log file, CI) it prints a full line at most every
`log_interval_s` seconds, and always the final line, so logs stay short.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


def format_duration(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):
        return "--:--"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (its stderr is no terminal, yet shows a bar)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


class Progress:
    """Call `advance(ok)` once per finished point, `close()` at the end."""

    def __init__(self, total: int, skipped: int = 0, stream: TextIO | None = None, width: int = 24,
                 min_redraw_s: float = 0.1, log_interval_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.skipped = skipped
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.done = 0
        self.failed = 0  # stored with an error
        self.infeasible = 0
        self.timed_out = 0
        self.clock = clock
        self.start = clock()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        notebook = not self.tty and self.stream is sys.stderr and _in_notebook()
        self.min_redraw_s = min_redraw_s if self.tty or notebook else log_interval_s
        self._last_draw = -float("inf")
        self._tqdm = None
        if self.tty:
            from tqdm import tqdm

            self._tqdm = tqdm(total=total, file=self.stream, unit="pt", desc="points",
                              mininterval=min_redraw_s, ncols=width + 70, leave=True)
        elif notebook:  # a Jupyter kernel: tqdm's widget (or its text bar without ipywidgets)
            from tqdm.auto import tqdm as auto_tqdm

            self.tty = True
            self._tqdm = auto_tqdm(total=total, unit="pt", desc="points",
                                   mininterval=min_redraw_s, leave=True)

    @property
    def rate(self) -> float:
        """Points per second finished by this run (stored points skipped are not counted)."""
        elapsed = self.clock() - self.start
        return self.done / elapsed if elapsed > 0 else 0.0

    @property
    def eta_s(self) -> float:
        remaining = self.total - self.done
        if remaining <= 0:
            return 0.0
        r = self.rate
        return remaining / r if r > 0 else float("inf")

    def line(self) -> str:
        frac = self.done / self.total if self.total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        text = f"[{bar}] {self.done}/{self.total} points, {self.failed} failed, "
        for n, what in ((self.infeasible, "infeasible"), (self.timed_out, "timed out")):
            if n:
                text += f"{n} {what}, "
        text += f"{self.rate:.2f} pts/s, ETA {format_duration(self.eta_s)}"
        if self.skipped:
            text += f" ({self.skipped} already stored)"
        return text

    def advance(self, ok: bool, status: str | None = None) -> None:
        """One more point; `status` ("infeasible", "timeout") says what kind of not-ok it was."""
        self.done += 1
        if status == "infeasible":
            self.infeasible += 1
        elif status == "timeout":
            self.timed_out += 1
        elif not ok:
            self.failed += 1
        self.draw(force=self.done == self.total)

    def postfix(self) -> str:
        text = f"{self.failed} failed"
        for n, what in ((self.infeasible, "infeasible"), (self.timed_out, "timed out")):
            if n:
                text += f", {n} {what}"
        return text + (f", {self.skipped} already stored" if self.skipped else "")

    def draw(self, force: bool = False) -> None:
        if self._tqdm is not None:
            self._tqdm.n = self.done
            self._tqdm.set_postfix_str(self.postfix(), refresh=False)
            if force:
                self._tqdm.refresh()
            else:
                self._tqdm.update(0)
            return
        now = self.clock()
        if not force and now - self._last_draw < self.min_redraw_s:
            return
        self._last_draw = now
        self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self._tqdm is not None:
            self.draw(force=True)
            self._tqdm.close()
        elif self.done != self.total or self.total == 0:
            self.draw(force=True)  # the final state always reaches the log
