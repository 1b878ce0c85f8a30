"""The union of busy intervals as disjoint sorted segments (numpy), shared by the report's
figures over a whole trace and the streaming summary over batches of it."""

from __future__ import annotations

import numpy as np


class Coverage:
    """The union of intervals as disjoint sorted segments with prefix lengths: `upto(x)` is how
    many covered cycles lie before x, so any overlap is two binary searches (vectorized)."""

    def __init__(self, s: np.ndarray, e: np.ndarray):
        self.s, self.e = s, e
        lengths = e - s
        self.total = int(lengths.sum())
        self.before = (np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
                       if len(s) else lengths)

    @staticmethod
    def of(starts: np.ndarray, ends: np.ndarray) -> Coverage:
        """Merge possibly overlapping [start, end) intervals (empty ones ignored)."""
        keep = ends > starts
        s, e = starts[keep], ends[keep]
        if not len(s):
            return Coverage(s, e)
        order = np.argsort(s, kind="stable")
        s, e = s[order], e[order]
        reach = np.maximum.accumulate(e)
        first = np.ones(len(s), dtype=bool)
        first[1:] = s[1:] > reach[:-1]
        heads = np.flatnonzero(first)
        tails = np.append(heads[1:], len(s)) - 1
        return Coverage(s[heads], reach[tails])

    def upto(self, x: np.ndarray) -> np.ndarray:
        if not len(self.s):
            return np.zeros(len(x), dtype=np.int64)
        i = np.searchsorted(self.s, x, side="right") - 1
        j = np.maximum(i, 0)
        inside = np.clip(x - self.s[j], 0, self.e[j] - self.s[j])
        return np.where(i >= 0, self.before[j] + inside, 0)

    def intersection(self, other: Coverage) -> int:
        """Cycles covered by both."""
        return int((other.upto(self.e) - other.upto(self.s)).sum())

    def before_cut(self, w: int) -> tuple[int, Coverage]:
        """(covered cycles before `w`, the coverage from `w` on)."""
        if not len(self.s):
            return 0, self
        head = int((np.minimum(self.e, w) - self.s).clip(0).sum())
        keep = self.e > w
        return head, Coverage(np.maximum(self.s[keep], w), self.e[keep])
