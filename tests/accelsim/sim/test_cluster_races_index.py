"""The indexed race check (`ClusterRaces`) against the plain scan of every earlier access in
the interval: on random strided regions of one shared buffer from several clusters, both raise
on the same transfer with the same message, or neither raises. The regions of the second test
share a few row lengths, so most candidates are decided as boxes (rows x columns)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim.errors import HazardError
from accelsim.sim.cluster_races import ClusterRaces
from accelsim.sim.regions import Region


@dataclass
class FakeBuffer:
    name: str
    shape: tuple[int, ...]


@dataclass
class FakeOp:
    NAME: str
    loc: str


class FakeXfer:
    """What `ClusterRaces` reads of a transfer: its buffers, spans, regions, op and label."""

    def __init__(self, src: FakeBuffer, sreg: Region, dst: FakeBuffer, dreg: Region, n: int):
        self.src, self.dst = src, dst
        self._regions = {False: sreg, True: dreg}
        self.s0, self.s_end = sreg.start, sreg.end
        self.d0, self.d_end = dreg.start, dreg.end
        self.op = FakeOp("affine.dma_start", f"t.mlir:{n}:1")
        self.label = f"x{n}"
        self.issued = n

    def region(self, writes: bool) -> Region:
        return self._regions[writes]


def plain_scan(seen: list, cluster: int, xfer: FakeXfer, buf: FakeBuffer,  # type: ignore[type-arg]
               writes: bool) -> tuple[int, str, list[int]] | None:
    """Today's rule, spelled out: the first earlier access (issue order) of another cluster,
    not two reads, sharing an element: (its cluster, its label, the element)."""
    mine = xfer.region(writes)
    for k, reads, other in seen:
        if k == cluster or (reads and not writes):
            continue
        theirs = other.region(not reads)
        lin = mine.first_common(theirs) if mine.overlaps(theirs) else None
        if lin is not None:
            return k, other.label, [int(x) for x in np.unravel_index(lin, buf.shape)]
    return None


regions = st.builds(
    lambda start, stride, per, count: Region(start, max(stride, per), per, count, per),
    st.integers(0, 200), st.integers(1, 40), st.integers(1, 12), st.integers(1, 6))


# boxes of rows of 8 or 16 elements (some wrapping a row, some with a short last chunk)
boxes = st.builds(
    lambda start, stride, per, count, short: Region(start, stride, min(per, stride), count,
                                                    max(1, min(per, stride) - short)),
    st.integers(0, 120), st.sampled_from([8, 16]), st.integers(1, 16), st.integers(1, 6),
    st.sampled_from([0, 0, 0, 1]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), regions, regions), min_size=1,
                max_size=24))
def test_indexed_check_equals_the_plain_scan(accesses: list) -> None:  # type: ignore[type-arg]
    _check_against_scan(accesses)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), boxes, boxes), min_size=1,
                max_size=24))
def test_box_decisions_equal_the_plain_scan(accesses: list) -> None:  # type: ignore[type-arg]
    _check_against_scan(accesses)


def _check_against_scan(accesses: list) -> None:  # type: ignore[type-arg]
    shared = FakeBuffer("S", (16, 32))
    local = [FakeBuffer(f"L{k}", (512,)) for k in range(4)]
    races = ClusterRaces({id(shared)})
    wrapped = {k: races.wrap(k, lambda x: None) for k in range(4)}
    seen: list = []  # type: ignore[type-arg]
    read_labels: set[str] = set()
    for n, (cluster, to_shared, sreg, dreg) in enumerate(accesses):
        if to_shared:  # local -> shared: a write of the shared buffer
            xfer = FakeXfer(local[cluster], sreg, shared, dreg, n)
        else:          # shared -> local: a read of it
            xfer = FakeXfer(shared, sreg, local[cluster], dreg, n)
        expected = plain_scan(seen, cluster, xfer, shared, to_shared)
        try:
            wrapped[cluster](xfer)  # type: ignore[arg-type]
        except HazardError as e:
            assert expected is not None, f"indexed check raised, the scan did not: {e}"
            k, label, idx = expected
            assert (f"cluster c{cluster}: affine.dma_start ({xfer.label}) "
                    f"{'writes' if to_shared else 'reads'} S element {idx} that cluster c{k} "
                    f"{'read' if label in read_labels else 'wrote'} "
                    f"(affine.dma_start ({label})") in str(e)
            return
        assert expected is None, f"the scan found a race the indexed check missed: {expected}"
        if not to_shared:
            read_labels.add(xfer.label)
        seen.append((cluster, not to_shared, xfer))
