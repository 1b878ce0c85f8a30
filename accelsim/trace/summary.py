"""What a run keeps of its trace when no record is asked for (`SimOptions(keep_records=False)`):
the figures `accelsim.report.Report` derives from the records, folded batch by batch while
the run goes on, so memory does not grow with the trace.

The figures and their definitions are the report's (`accelsim.report.figures`): per unit its
busy cycles (the union of its intervals), bytes and interval count; the unions of DMA, kernel
and stall intervals, DMA time hidden under compute and stall time not hidden; DRAM bytes read,
written and copied; per (DMA label, dma_start location) the transfers, bytes, engine cycles,
hidden cycles and exposed stall cycles (a wait stall belongs to the DMA that ends when it
does, a queue-full stall to the location's first DMA). They are the same integers as the
report computes from the full trace (tests/accelsim/test_trace_summary.py).

Folding relies on one fact of the machine, checked on every batch: a record appended after
cycle `w` was reached starts at or after `w` (the control processor appends kernel, issue and
stall records when they end, and DMA and DRAM records when the descriptor is accepted, for
intervals that start then or later). So when the run is at cycle `w`, every union, overlap
and per-record share before `w` is final; only what lies after `w` is kept: the unions'
segments after `w`, the DMAs still running, the stalls ending at `w` (a zero-length DMA
starting at `w` could still be the one a stall waited for).

The machine appends to `records`, a plain list (the components bind its `append`); the
executor calls `flush(now)` when `len(records)` reaches `batch`, at the start of an op (before
it appends anything), and `finish()` at the end of the run. A flush turns the batch into arrays
while its records are still in the cache (one pass over them); every `fold` records the arrays
are folded into the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from accelsim.trace.coverage import Coverage

if TYPE_CHECKING:
    from accelsim.trace.record import TraceRecord

_END = np.iinfo(np.int64).max  # the watermark at the end of the run: everything is final
_EMPTY = np.empty(0, dtype=np.int64)


class _Codes(dict):  # type: ignore[type-arg]
    """value -> a dense code, in order of first appearance (`order`: the values by code)."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list = []  # type: ignore[type-arg]

    def __missing__(self, key: object) -> int:
        code = self[key] = len(self.order)
        self.order.append(key)
        return code


# a (label, loc) row: direction, transfers, bytes, DMA cycles, hidden cycles, exposed cycles
BufferFigures = tuple[str, int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class SummaryFigures:
    """The report's inputs from a trace (`TraceSummary.figures`; `Report.build` computes the
    same from a full trace). `units`: per unit (busy cycles, bytes, intervals); `buffers`:
    per (label, loc) in first-appearance order (direction, transfers, bytes, dma cycles,
    hidden cycles, exposed cycles)."""

    units: dict[str, tuple[int, int, int]]
    dma_busy: int
    compute_busy: int
    stall: int
    hidden: int
    exposed: int
    dram_read: int
    dram_written: int
    dram_copied: int
    buffers: dict[tuple[str, str], BufferFigures]
    end: int


class TraceSummary:
    """The streaming summary of one run's records (module docstring)."""

    def __init__(self, batch: int = 1024, fold: int = 16_384):
        if batch < 1 or fold < 1:
            raise ValueError(f"TraceSummary batch and fold must be >= 1, got {batch}, {fold}")
        self.records: list[TraceRecord] = []  # the batch the machine appends to
        self.batch = batch  # records taken (as arrays) when the batch has this many
        self.fold = fold    # records folded when this many were taken
        self.seen = 0  # records taken so far
        self.end = 0   # the latest end of any record
        self._seen_w = 0  # the cycle of the last flush: no record appended since starts before it
        self._chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._held = 0  # records in the chunks
        self._done = False
        self._units = _Codes()
        self._kinds = _Codes()
        self._labels = _Codes()
        self._keys = _Codes()  # (label, loc) of DMA records
        # a record's group: (unit, kind, label, loc), one code per record; per group code
        # its unit, kind, DMA key (-1: not a DMA), label code and whether it is on DRAM
        self._groups = _Codes()
        self._g_unit = self._g_kind = self._g_key = self._g_label = _EMPTY
        self._g_dram = np.empty(0, dtype=bool)
        self._unit_stats: list[list[int]] = []  # per unit code: [intervals, bytes, busy before w]
        self._unit_cover: dict[int, Coverage] = {}  # per unit code: its union from w on
        self._cover = {k: Coverage(_EMPTY, _EMPTY) for k in ("dma", "kernel", "stall")}
        self._busy = {"dma": 0, "kernel": 0, "stall": 0}
        self._hidden = 0        # |DMA union & kernel union| before w
        self._stall_hidden = 0  # |stall union & kernel union| before w
        self._dram = [0, 0, 0]  # read, written, all bytes on DRAM channels
        self._reads: set[tuple[str, str]] = set()   # (label, loc) with a DRAM read record
        self._writes: set[tuple[str, str]] = set()
        # per key code: [transfers, bytes, dma cycles, hidden cycles, exposed cycles]
        self._acc: list[list[int]] = []
        # DMA records still running after w: start (from w on), end, key code
        self._running = (_EMPTY, _EMPTY, _EMPTY)
        # DMA records a later stall may wait for (end >= w), in trace order: end, label, key
        self._waited = (_EMPTY, _EMPTY, _EMPTY)
        self._stalls: list[tuple[str, str, int, int]] = []  # ending at w: label, loc, end, exposed
        self._by_loc: dict[str, int] = {}  # stall cycles to the first DMA of a location

    # ---- folding ---------------------------------------------------------------------------
    def flush(self, now: int) -> None:
        """Take the batch; the run is at cycle `now` (no later record starts before it). Every
        `fold` records taken, fold them."""
        self._take()
        self._seen_w = now
        if self._held >= self.fold:
            self._fold(now)

    def finish(self) -> None:
        """Fold the rest at the end of the run: every figure is final."""
        if not self._done:
            self._take()
            self._fold(_END)
            self._done = True

    def _take(self) -> None:
        """The batch as arrays (start, end, bytes, group code), kept until the next fold: one
        pass over records that are still in the cache."""
        batch = self.records
        n = len(batch)
        if not n:
            return
        units, starts, ends, kinds, nbytes, labels, locs = zip(*batch)
        s, e, b = (np.fromiter(col, np.int64, n) for col in (starts, ends, nbytes))
        if int(s.min()) < self._seen_w:
            raise AssertionError(
                f"trace summary: a record starts at cycle {int(s.min())}, before cycle "
                f"{self._seen_w} that the run had reached when it was appended; run with the "
                "records kept (SimOptions(keep_records=True))")
        known = len(self._groups.order)
        gc = np.fromiter(map(self._groups.__getitem__, zip(units, kinds, labels, locs)),
                         np.int64, n)
        if len(self._groups.order) > known:
            self._new_groups(known)
        self._chunks.append((s, e, b, gc))
        self._held += n
        self.seen += n
        self.end = max(self.end, int(e.max()))
        batch.clear()  # in place: the machine's components hold this list

    def _fold(self, w: int) -> None:
        """Fold the records taken since the last fold: the figures before `w` are final."""
        if self._chunks:
            s, e, b, gc = (np.concatenate(cols) for cols in zip(*self._chunks, strict=True))
            uc, kc = self._g_unit[gc], self._g_kind[gc]
        else:
            s = e = b = gc = uc = kc = _EMPTY
        self._chunks = []
        self._held = 0
        self._fold_units(uc, s, e, b, w)
        kernel = self._merged("kernel", s, e, kc)
        dma = self._merged("dma", s, e, kc)
        stall = self._merged("stall", s, e, kc)
        self._hidden += _overlap_before(dma, kernel, w)
        self._stall_hidden += _overlap_before(stall, kernel, w)
        self._fold_dram(gc, kc, b)
        self._fold_dmas(gc, kc, s, e, b, kernel, w)
        self._fold_stalls(gc, kc, s, e, kernel, w)
        for kind, cover in (("kernel", kernel), ("dma", dma), ("stall", stall)):
            head, self._cover[kind] = cover.before_cut(w)
            self._busy[kind] += head

    def _new_groups(self, first: int) -> None:
        """The tables of the groups first seen in this batch (and the DRAM directions)."""
        unit, kind, key, label, dram = [], [], [], [], []
        for u, k, lab, loc in self._groups.order[first:]:
            unit.append(self._units[u])
            kind.append(self._kinds[k])
            key.append(self._keys[lab, loc] if k == "dma" else -1)
            label.append(self._labels[lab] if k == "dma" else -1)
            on_dram = u.startswith("dram")
            dram.append(on_dram)
            if on_dram and k in ("read", "write"):
                (self._reads if k == "read" else self._writes).add((lab, loc))
        self._g_unit = np.append(self._g_unit, np.array(unit, dtype=np.int64))
        self._g_kind = np.append(self._g_kind, np.array(kind, dtype=np.int64))
        self._g_key = np.append(self._g_key, np.array(key, dtype=np.int64))
        self._g_label = np.append(self._g_label, np.array(label, dtype=np.int64))
        self._g_dram = np.append(self._g_dram, np.array(dram, dtype=bool))
        while len(self._acc) < len(self._keys.order):
            self._acc.append([0, 0, 0, 0, 0])
        while len(self._unit_stats) < len(self._units.order):
            self._unit_stats.append([0, 0, 0])

    def _code(self, codes: _Codes, value: str) -> int:
        return codes.get(value, -1)  # type: ignore[no-any-return]

    def _merged(self, kind: str, s: np.ndarray, e: np.ndarray, kc: np.ndarray) -> Coverage:
        """The union of `kind` intervals from w on: kept segments and this batch's."""
        kept = self._cover[kind]
        code = self._code(self._kinds, kind)
        if code < 0 or not len(kc):
            return kept
        m = kc == code
        if not m.any():
            return kept
        return Coverage.of(np.concatenate((kept.s, s[m])), np.concatenate((kept.e, e[m])))

    def _fold_units(self, uc: np.ndarray, s: np.ndarray, e: np.ndarray, b: np.ndarray,
                    w: int) -> None:
        if len(uc):
            nu = len(self._units.order)
            counts = np.bincount(uc, minlength=nu)
            nb = np.bincount(uc, weights=b, minlength=nu)  # exact below 2**53 per batch
            order = np.argsort(uc, kind="stable")  # the records unit by unit
            us, ue = s[order], e[order]
            stop = np.cumsum(counts).tolist()
            for u in np.flatnonzero(counts).tolist():
                st = self._unit_stats[u]
                st[0] += int(counts[u])
                st[1] += round(float(nb[u]))
                a, z = stop[u] - int(counts[u]), stop[u]
                kept = self._unit_cover.get(u)
                if kept is not None:
                    cover = Coverage.of(np.concatenate((kept.s, us[a:z])),
                                        np.concatenate((kept.e, ue[a:z])))
                else:
                    cover = Coverage.of(us[a:z], ue[a:z])
                self._unit_cover[u] = cover
        for u, cover in list(self._unit_cover.items()):
            head, self._unit_cover[u] = cover.before_cut(w)
            self._unit_stats[u][2] += head

    def _fold_dram(self, gc: np.ndarray, kc: np.ndarray, b: np.ndarray) -> None:
        if not len(gc):
            return
        on_dram = self._g_dram[gc]
        self._dram[2] += int(b[on_dram].sum())
        for k, kind in enumerate(("read", "write")):
            code = self._code(self._kinds, kind)
            if code >= 0:
                self._dram[k] += int(b[on_dram & (kc == code)].sum())

    def _fold_dmas(self, gc: np.ndarray, kc: np.ndarray, s: np.ndarray, e: np.ndarray,
                   b: np.ndarray, kernel: Coverage, w: int) -> None:
        """Per key: transfers, bytes, engine cycles (now), cycles hidden under compute (as far
        as final: before w)."""
        code = self._code(self._kinds, "dma")
        idx = np.flatnonzero(kc == code) if code >= 0 and len(kc) else _EMPTY
        rs, re_, rk = self._running
        ws, wl, wk = self._waited
        if len(idx):
            g = gc[idx]
            keys, lcodes = self._g_key[g], self._g_label[g]
            nk = len(self._keys.order)
            ds, de = s[idx], e[idx]
            sums = (np.bincount(keys, minlength=nk), np.bincount(keys, b[idx], nk),
                    np.bincount(keys, de - ds, nk))
            for k in np.flatnonzero(sums[0]).tolist():
                a = self._acc[k]
                a[0] += int(sums[0][k])
                a[1] += round(float(sums[1][k]))
                a[2] += round(float(sums[2][k]))
            rs, re_, rk = np.concatenate((rs, ds)), np.concatenate((re_, de)), np.concatenate((rk, keys))
            ws, wl, wk = np.concatenate((ws, de)), np.concatenate((wl, lcodes)), np.concatenate((wk, keys))
        if len(rs):
            cut_s, cut_e = np.minimum(rs, w), np.minimum(re_, w)
            share = kernel.upto(cut_e) - kernel.upto(cut_s)
            hidden = np.bincount(rk, share, len(self._acc))
            for k in np.flatnonzero(hidden).tolist():
                self._acc[k][3] += round(float(hidden[k]))
            go = re_ > w
            rs, re_, rk = np.maximum(rs[go], w), re_[go], rk[go]
        self._running = (rs, re_, rk)
        self._waited = (ws, wl, wk)

    def _fold_stalls(self, gc: np.ndarray, kc: np.ndarray, s: np.ndarray, e: np.ndarray,
                     kernel: Coverage, w: int) -> None:
        """Each stall's exposed cycles (its length minus compute under it), to the DMA it
        waited for (same label, same end) or, at the end of the run, its location's."""
        code = self._code(self._kinds, "stall")
        idx = np.flatnonzero(kc == code) if code >= 0 and len(kc) else _EMPTY
        stalls = self._stalls
        if len(idx):
            ss, se = s[idx], e[idx]
            if int(se.max()) > w:
                raise AssertionError("trace summary: a stall record ends after the cycle the run "
                                     "has reached")
            exposed = (se - ss) - (kernel.upto(se) - kernel.upto(ss))
            order = self._groups.order
            stalls += [(order[g][2], order[g][3], end, x) for g, end, x
                       in zip(gc[idx].tolist(), se.tolist(), exposed.tolist(), strict=True)]
        final = [st for st in stalls if st[2] < w]
        self._stalls = [st for st in stalls if st[2] >= w]
        ws, wl, wk = self._waited
        if final:
            ends = np.array([st[2] for st in final], dtype=np.int64)
            pick = np.flatnonzero(np.isin(ws, ends))
            by_end: dict[tuple[int, int], int] = {}
            for end, lab, key in zip(ws[pick].tolist(), wl[pick].tolist(), wk[pick].tolist()):
                by_end.setdefault((lab, end), key)
            for label, loc, end, x in final:
                key = None
                if label.startswith("wait "):
                    key = by_end.get((self._code(self._labels, label[5:]), end))
                if key is not None:
                    self._acc[key][4] += x
                else:
                    self._by_loc[loc] = self._by_loc.get(loc, 0) + x
        keep = ws >= w
        self._waited = (ws[keep], wl[keep], wk[keep])

    # ---- the figures -------------------------------------------------------------------------
    def figures(self) -> SummaryFigures:
        """The report's inputs (after `finish()`)."""
        if not self._done:
            raise AssertionError("TraceSummary.figures() before finish()")
        units = {u: (st[2], st[1], st[0])
                 for u, st in zip(self._units.order, self._unit_stats, strict=True)}
        buffers: dict[tuple[str, str], BufferFigures] = {}
        first_of_loc: dict[str, tuple[str, str]] = {}
        for key in self._keys.order:
            first_of_loc.setdefault(key[1], key)
        extra: dict[tuple[str, str], int] = {}
        for loc, x in self._by_loc.items():
            key = first_of_loc.get(loc, ("(unattributed stall)", loc))
            extra[key] = extra.get(key, 0) + x
        for key, a in zip(self._keys.order, self._acc, strict=True):
            buffers[key] = (self._direction(key), a[0], a[1], a[2], a[3], a[4] + extra.pop(key, 0))
        for key, x in extra.items():
            buffers[key] = (self._direction(key), 0, 0, 0, 0, x)
        read, written, total = self._dram
        return SummaryFigures(
            units, self._busy["dma"], self._busy["kernel"], self._busy["stall"], self._hidden,
            self._busy["stall"] - self._stall_hidden, read, written, total - read - written,
            buffers, self.end)

    def _direction(self, key: tuple[str, str]) -> str:
        if key in self._reads:
            return "in"
        if key in self._writes:
            return "out"
        return "copy" if key[0] else "-"


def _overlap_before(a: Coverage, b: Coverage, w: int) -> int:
    """Cycles before `w` covered by both."""
    if not len(a.s) or not len(b.s):
        return 0
    return int((b.upto(np.minimum(a.e, w)) - b.upto(np.minimum(a.s, w))).sum())
