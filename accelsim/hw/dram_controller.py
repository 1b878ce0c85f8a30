"""The DRAM timing model's memory controller: one per channel, with its ranks, bank groups and
banks (a row buffer each), the data bus, a read and a write queue, FR-FCFS scheduling and
refresh (`dram.model = "timing"`; the timings and the address mapping are
`accelsim.cost.dram_timing.DramTiming`'s, every time here in DRAM clocks).

The unit of work is a request: the bursts one DMA side moves to one (bank, row) of this
channel. A DMA's read requests arrive together at the cycle its transfer starts (the engine
decides that cycle when it accepts the descriptor, as with the bandwidth model, so no SimPy
event is needed per request and SimPy stays the only clock); the controller schedules them
at once and returns when the last data burst has moved.

- FR-FCFS: of the first `read_queue` waiting requests the one that can take its next
  command first goes first (a row hit: its column command, after its bank's and bank
  group's last; a miss: its activate, after its bank's precharge and tRC and its bank
  group's tRRD_L); those that can by the batch's arrival go oldest first.
- A request to a closed bank activates its row (ACT: tRRD_S after the rank's previous ACT,
  tRRD_L after its bank group's, tFAW after the fourth previous, tRC after the bank's
  previous ACT, tRP after its precharge); one to another row precharges first (PRE: tRAS
  after the ACT, tRTP after the last read, tWR after the last write data). Its first column
  command comes tRCD after the ACT (at once on a row hit) and tCCD_L after the bank group's
  last one; its `k` bursts then take `k * tBURST` of the data bus, which serves requests in
  the order they are ready (bank groups interleave on it: tCCD_S = tBURST), never faster
  than tCCD_L apart within the request's bank group. Read data ends tCL + tBURST after the
  last read command, write data tCWL + tBURST after the last write command.
- Read/write turnaround: a write command waits tRTW after the last read command, a read
  command tWTR after the last write data.
- Writes are posted: a write request joins the write queue (merged with a waiting write to
  the same row), and its DMA is done at once unless the queue has no room for its bursts,
  when it waits for the drain that makes room. When `write_high` bursts wait, the queue
  drains (FR-FCFS among the writes) down to `write_low`; while the channel is idle before a
  read arrives, it drains a request at a time. Writes still queued when the program ends
  are not timed (at most `write_high` bursts per channel).
- Refresh: all-bank, per rank, every tREFI: when a request would start at or after the due
  time, the rank's open banks precharge (tRP), the rank refreshes for tRFC, and every row
  of the rank is closed. A refresh falls between requests (postponed at most one request).
- Page policy: open (a row stays open for hits) or closed (auto-precharge after each
  request).
"""

from __future__ import annotations

from accelsim.cost.dram_timing import DramTiming, Request

_NEVER = -1.0e18
_NONE = (float("inf"), 1 << 62)  # a bank without waiting requests: never the least candidate
_FAST = 32  # up to this many waiting requests the keys of all of them are cheaper (measured)


class ChannelController:
    """One channel's controller state; `read` and `write` schedule one DMA side's requests."""

    __slots__ = ("_consts", "act_ok", "bg_next", "bus", "cas_ok", "conflicts", "faw", "hits", "last_act",
                 "last_act_bg", "last_read", "last_wdata", "misses", "next_ref", "open_row",
                 "pending", "pre_ok", "refreshes", "t", "writes")

    def __init__(self, timing: DramTiming):
        t = self.t = timing
        nb, ng = timing.banks, timing.ranks * timing.bank_groups
        self.open_row = [-1] * nb          # the open row per bank, -1: precharged
        self.act_ok = [0.0] * nb           # earliest next ACT per bank
        self.cas_ok = [0.0] * nb           # earliest next column command to the open row
        self.pre_ok = [0.0] * nb           # earliest PRE per bank
        self.bg_next = [0.0] * ng          # earliest next column command per bank group
        self.last_act = [_NEVER] * timing.ranks
        self.last_act_bg = [_NEVER] * ng
        self.faw: list[list[float]] = [[] for _ in range(timing.ranks)]  # last 4 ACTs per rank
        self.next_ref = [float(t.tREFI)] * timing.ranks
        self.bus = 0.0                     # the data bus is free from here (DRAM clocks)
        self.last_read = _NEVER            # last read column command
        self.last_wdata = _NEVER           # end of the last write data
        self.writes: dict[tuple[int, int, int, int], int] = {}  # the write queue: bursts per row
        self.pending = 0                   # bursts in the write queue
        self.hits = self.misses = self.conflicts = self.refreshes = 0
        # the timings the scheduling loop reads, and (turnaround, data tail, recovery) per
        # direction: a write waits tRTW after a read, its data ends tCWL + tBURST after its
        # command, its bank precharges tWR after that; a read likewise with tWTR, tCL, tRTP
        self._consts = (t.tRP, t.tRRD_L, t.tRRD_S, t.tFAW, t.tRCD, t.tRC, t.tRAS, t.tBURST,
                        t.tCCD_L, t.open_page, (t.tRTW, t.tCWL + t.tBURST, t.tWR),
                        (t.tWTR, t.tCL + t.tBURST, t.tRTP))

    # ---- the entry points ---------------------------------------------------------------------
    def access(self, reqs: tuple[Request, ...], now: float, write: bool) -> tuple[float, float]:
        """`write` or `read`, and the bus's free time before it (as the C fast path,
        `accelsim.hw.dram_native.NativeController.access`)."""
        bus = self.bus
        return (self.write(reqs, now) if write else self.read(reqs, now)), bus

    def read(self, reqs: tuple[Request, ...], now: float) -> float:
        """Schedule a DMA's read requests arriving at DRAM clock `now`; when its last data
        burst ends."""
        if self.pending and self.bus < now:
            self._drain_idle(now)
        return self._batch(list(reqs), now, False, self.t.read_queue, None)

    def write(self, reqs: tuple[Request, ...], now: float) -> float:
        """Queue a DMA's write requests arriving at `now`; when the last of them is queued."""
        t = self.t
        room = t.write_queue - self.pending
        nbursts = 0
        writes = self.writes
        for b, rank, g, row, k in reqs:
            key = (b, rank, g, row)
            writes[key] = writes.get(key, 0) + k
            nbursts += k
        self.pending += nbursts
        if self.pending < t.write_high:
            return now
        end = self._drain(now)
        return end if nbursts > room else now

    # ---- scheduling ---------------------------------------------------------------------------
    def _batch(self, reqs: list[Request], now: float, write: bool, window: int,
               stop: int | None) -> float:
        """Serve `reqs` FR-FCFS (module docstring), all of them or (the write queue) until at
        most `stop` bursts are left; returns the last data end (`now` if none).

        One loop, state in locals (the hot path of the timing model): each waiting request's
        readiness (when its next command could issue, `now` at the earliest: those ready by
        then go oldest first) is kept in `keys`, and after a request is served only the keys
        of requests in its bank group can change (its bank's times, the group's last column
        command and last ACT), so only those are computed again."""
        end = now
        left = sum(r[4] for r in reqs) if stop is not None else 0
        open_row, cas_ok, act_ok, pre_ok = self.open_row, self.cas_ok, self.act_ok, self.pre_ok
        bg_next, last_act_bg, last_act, faws = self.bg_next, self.last_act_bg, self.last_act, self.faw
        next_ref = self.next_ref
        trp, trrd_l, trrd_s, tfaw, trcd, trc, tras, tb, tccd_l, open_page, wr, rd = self._consts
        turn, tail, recover = wr if write else rd
        bus, last_read, last_wdata = self.bus, self.last_read, self.last_wdata
        hits = misses = conflicts = 0

        n = len(reqs)
        keys: list[float] | None = None
        # every waiting request within the window (always so from here): per bank, the
        # indices of its waiting requests, oldest first, and its candidate (the least
        # (readiness, index) of its first row hit and its first miss, which share their
        # bank's readiness); the request served is the least candidate: the same choice as
        # the keys' (least readiness, oldest first), with only the served bank group's
        # candidates computed again
        fast = _FAST < n <= window
        if fast:
            bpg = self.t.banks_per_group
            rows = [q[3] for q in reqs]
            pend: list[list[int]] = [[] for _ in open_row]
            for j, q in enumerate(reqs):
                pend[q[0]].append(j)

            def hit_miss(b_: int) -> tuple[int, int]:
                """Bank `b_`'s first waiting row hit and first miss (-1: none)."""
                o_ = open_row[b_]
                hit = miss = -1
                for j in pend[b_]:
                    if rows[j] == o_:
                        if hit < 0:
                            hit = j
                            if miss >= 0:
                                break
                    elif miss < 0:
                        miss = j
                        if hit >= 0:
                            break
                return hit, miss

            def candidate(b_: int) -> tuple[float, int]:
                best = _NONE
                hit, miss = hm[b_] = hit_miss(b_)
                o_ = open_row[b_]
                g_ = b_ // bpg
                if hit >= 0:  # a hit: its column command
                    x = cas_ok[b_]
                    if bg_next[g_] > x:
                        x = bg_next[g_]
                    best = (x if x > now else now, hit)
                if miss >= 0:  # a miss: its activate
                    x = act_ok[b_]
                    if o_ >= 0 and pre_ok[b_] + trp > x:
                        x = pre_ok[b_] + trp
                    if last_act_bg[g_] + trrd_l > x:
                        x = last_act_bg[g_] + trrd_l
                    c = (x if x > now else now, miss)
                    if c < best:
                        best = c
                return best

            hm = [(-1, -1)] * len(open_row)  # per bank: hit_miss(b_), kept for the banks not served
            cand = [candidate(b_) for b_ in range(len(open_row))]
        elif n > 1:  # each request's readiness (FCFS among those ready by `now`)
            keys = _readiness(reqs, now, open_row, cas_ok, act_ok, pre_ok, bg_next, last_act_bg,
                              trp, trrd_l)
        while n and (stop is None or left > stop):
            i = 0
            if fast:
                i = min(cand)[1]
                b, rank, g, row, k = reqs[i]
                pend[b].remove(i)
            elif keys is not None and n > 1:
                # the first of the least keys among the first `window` (C-level min/index)
                if n <= window:
                    i = keys.index(min(keys))
                else:
                    i = keys.index(min(keys[:window]), 0, window)
                del keys[i]
            if not fast:
                b, rank, g, row, k = reqs.pop(i)
            n -= 1
            left -= k
            # ---- serve it: refresh if due, PRE/ACT if needed, its bursts on the bus
            start = now if now > bus else bus
            refreshed = start >= next_ref[rank]
            if refreshed:  # every row of the rank closes: every key can change
                self._refresh(rank, start)
            o = open_row[b]
            if o == row:
                first = cas_ok[b]
                hits += 1
            else:
                if o >= 0:
                    a = (pre_ok[b] if pre_ok[b] > now else now) + trp
                    conflicts += 1
                else:
                    a = now
                    misses += 1
                if act_ok[b] > a:
                    a = act_ok[b]
                x = last_act[rank] + trrd_s
                if x > a:
                    a = x
                x = last_act_bg[g] + trrd_l
                if x > a:
                    a = x
                faw = faws[rank]
                if len(faw) == 4:
                    x = faw[0] + tfaw
                    if x > a:
                        a = x
                    del faw[0]
                faw.append(a)
                last_act[rank] = last_act_bg[g] = a
                act_ok[b] = a + trc
                pre_ok[b] = a + tras
                open_row[b] = row
                first = a + trcd
            if now > first:
                first = now
            if bg_next[g] > first:
                first = bg_next[g]
            x = (last_read if write else last_wdata) + turn
            if x > first:
                first = x
            bus = (bus if bus > first else first) + k * tb
            last = first + (k - 1) * tccd_l
            if bus - tb > last:
                last = bus - tb
            bg_next[g] = cas_ok[b] = last + tccd_l
            e = last + tail
            if write:
                p = e + recover
                if e > last_wdata:
                    last_wdata = e
            else:
                p = last + recover
                if last > last_read:
                    last_read = last
            if p > pre_ok[b]:
                pre_ok[b] = p
            if not open_page:  # auto-precharge
                open_row[b] = -1
                x = pre_ok[b] + trp
                if x > act_ok[b]:
                    act_ok[b] = x
            if e > end:
                end = e
            if fast:
                if refreshed:  # every row of the rank closed: every candidate again
                    cand = [candidate(b_) for b_ in range(len(open_row))]
                else:  # the served bank's first hit and miss again, its group's readiness
                    hm[b] = hit_miss(b)
                    bgn = bg_next[g]
                    lab = last_act_bg[g] + trrd_l
                    for b_ in range(g * bpg, g * bpg + bpg):
                        hit, miss = hm[b_]
                        best = _NONE
                        if hit >= 0:  # as candidate(b_)
                            x = cas_ok[b_]
                            if bgn > x:
                                x = bgn
                            best = (x if x > now else now, hit)
                        if miss >= 0:
                            x = act_ok[b_]
                            if open_row[b_] >= 0 and pre_ok[b_] + trp > x:
                                x = pre_ok[b_] + trp
                            if lab > x:
                                x = lab
                            c = (x if x > now else now, miss)
                            if c < best:
                                best = c
                        cand[b_] = best
            elif keys is not None:
                if refreshed:  # all of them again
                    keys = _readiness(reqs, now, open_row, cas_ok, act_ok, pre_ok, bg_next,
                                      last_act_bg, trp, trrd_l)
                elif n > 1:  # the keys that can have changed: requests in its bank group
                    for j in range(n):
                        q = reqs[j]
                        if q[2] != g:
                            continue
                        b_, g_ = q[0], g
                        o_ = open_row[b_]
                        if o_ == q[3]:  # a hit: its column command
                            x = cas_ok[b_]
                            if bg_next[g_] > x:
                                x = bg_next[g_]
                        else:  # a miss: its activate
                            x = act_ok[b_]
                            if o_ >= 0 and pre_ok[b_] + trp > x:
                                x = pre_ok[b_] + trp
                            if last_act_bg[g_] + trrd_l > x:
                                x = last_act_bg[g_] + trrd_l
                        keys[j] = x if x > now else now

        self.bus, self.last_read, self.last_wdata = bus, last_read, last_wdata
        self.hits += hits
        self.misses += misses
        self.conflicts += conflicts
        if stop is not None:
            self._requeue([reqs[j] for j in sorted(j for lst in pend for j in lst)] if fast
                          else reqs)
        return end

    def _serve(self, r: Request, now: float, write: bool) -> float:
        """One request on its own: the end of its last data burst."""
        return self._batch([r], now, write, 1, None)

    def _refresh(self, rank: int, at: float) -> None:
        """The refreshes due by DRAM clock `at` on `rank` (module docstring)."""
        t = self.t
        late = int((at - self.next_ref[rank]) // t.tREFI)
        due = self.next_ref[rank] + late * t.tREFI  # earlier ones fell in idle time
        per = t.bank_groups * t.banks_per_group
        banks = range(rank * per, (rank + 1) * per)
        start = due
        opened = False
        for b in banks:
            if self.open_row[b] >= 0:
                opened = True
                if self.pre_ok[b] > start:
                    start = self.pre_ok[b]
        if opened:
            start += t.tRP
        end = start + t.tRFC
        for b in banks:
            self.open_row[b] = -1
            if self.act_ok[b] < end:
                self.act_ok[b] = end
        self.next_ref[rank] = due + t.tREFI
        self.refreshes += late + 1

    # ---- the write queue ----------------------------------------------------------------------
    def _queued(self) -> list[Request]:
        return [(b, rank, g, row, k) for (b, rank, g, row), k in self.writes.items()]

    def _requeue(self, reqs: list[Request]) -> None:
        self.writes = {(b, rank, g, row): k for b, rank, g, row, k in reqs}
        self.pending = sum(self.writes.values())

    def _drain(self, now: float) -> float:
        """Drain the write queue down to the low watermark; the last write data end."""
        return self._batch(self._queued(), now, True, self.t.write_queue, self.t.write_low)

    def _drain_idle(self, until: float) -> None:
        """The channel is idle before `until`: drain queued writes one request at a time."""
        reqs = self._queued()
        while reqs and self.bus < until:
            r = reqs.pop(0)
            self._serve(r, self.bus, True)
        self._requeue(reqs)


def _readiness(reqs: list[Request], now: float, open_row: list[int], cas_ok: list[float],
               act_ok: list[float], pre_ok: list[float], bg_next: list[float],
               last_act_bg: list[float], trp: int, trrd_l: int) -> list[float]:
    """Each waiting request's readiness (`now` at the earliest): a row hit when its column
    command may issue, a miss when its activate may (after its bank's precharge and the
    group's tRRD_L). `ChannelController._batch` keeps these keys and recomputes, inline, only
    those of the bank group it served."""
    keys = []
    for q in reqs:
        b_, g_ = q[0], q[2]
        o_ = open_row[b_]
        if o_ == q[3]:  # a hit: its column command
            x = cas_ok[b_]
            if bg_next[g_] > x:
                x = bg_next[g_]
        else:  # a miss: its activate
            x = act_ok[b_]
            if o_ >= 0 and pre_ok[b_] + trp > x:
                x = pre_ok[b_] + trp
            if last_act_bg[g_] + trrd_l > x:
                x = last_act_bg[g_] + trrd_l
        keys.append(x if x > now else now)
    return keys
