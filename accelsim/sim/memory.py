"""Run-time memory: a memref's buffer, the DMAs in flight on it, the data a DMA moves.

A `Buffer` is a memref value while the program runs: its numpy array (functional mode) and
the DMAs in flight that read or write it, in issue order (what the hazard checks scan). An
`InFlightDma` is one issued descriptor: the SimPy event the engine completes (a
`accelsim.hw.dma.Transfer`) plus the regions it covers on both buffers; it leaves the
buffers' lists when it completes, and in functional mode (`InFlightCopy`) it moves the data
then.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from accelsim.cost.dram_timing import Pattern
from accelsim.hw.dma import Transfer, transfer_done
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.sim.regions import Region
from accelsim.sim.scalar import Scalar
from compiler.ir.core import Operation, Value
from compiler.ir.types import MemRefType, row_major_strides

_tnew = tuple.__new__  # NamedTuples without the generated __new__'s frame


class Buffer:
    """A memref value at run time: its array (functional mode) and in-flight DMA regions."""

    __slots__ = (
        "addr",
        "alive",
        "array",
        "ebytes",
        "flat",
        "handle",
        "reading",
        "name",
        "numel",
        "shape",
        "space",
        "strides",
        "type",
        "writing",
    )

    def __init__(self, name: str, type: MemRefType, shape: tuple[int, ...], array: np.ndarray | None):
        self.name = name
        self.type = type
        self.shape = shape
        self.space = type.memory_space
        self.numel = math.prod(shape)
        self.ebytes = type.element.byte_width
        self.strides = row_major_strides(shape)
        self.array = array
        self.flat = array.reshape(-1) if array is not None else None
        # DMAs in flight whose source / destination this buffer is, in issue order
        self.reading: list[InFlightDma] = []
        self.writing: list[InFlightDma] = []
        self.handle: int | None = None  # its SRAM allocation, if it lives in SRAM
        self.addr = 0  # its DRAM address, if it lives in DRAM (the timing model's mapping)
        self.alive = True

    def __repr__(self) -> str:
        return f"<Buffer {self.name} {self.type}>"


RuntimeValue = Buffer | Scalar         # what an SSA value holds while the program runs
Vals = dict[Value, RuntimeValue]       # the run's SSA values


def linear_index(buf: Buffer, idx: tuple[int, ...]) -> int:
    """Row-major linear index, or -1 when an index is out of bounds (the caller reports it)."""
    lin = 0
    for i, n, st in zip(idx, buf.shape, buf.strides):
        if not 0 <= i < n:
            return -1
        lin += i * st
    return lin


class TransferShape(NamedTuple):
    """What a transfer's element count, stride and elements per stride decide (per op)."""

    nchunks: int
    s_tail: tuple[int, int, int, int]  # source Region fields after `start`
    d_tail: tuple[int, int, int, int]  # destination Region fields after `start`
    s_ext: int                         # source region end - start
    d_ext: int
    per: int
    col_inner: int   # row length when the strided side's rows must not be overrun, else 0
    col_src: bool    # the strided side is the source
    desc: tuple[int, int, int, int, str, str]  # Transfer.desc (cost, kind, location)
    sram_bytes: int
    op: Operation
    count: int       # elements moved (what the matching dma_wait must name)
    hops: tuple = ()  # type: ignore[type-arg]  # memory levels: its `accelsim.cost.dma.Hop`s


class InFlightDma(Transfer):
    """A transfer with the executor's bookkeeping: it is in flight on its source's `reading`
    and its destination's `writing` list (spans `[s0, s_end)`, `[d0, d_end)`) and leaves them
    when it completes."""

    __slots__ = ("d0", "d_end", "dst", "issued", "s0", "s_end", "seq", "shape", "src")

    def __init__(self, env: SimEnv, sh: TransferShape, label: str, issued: int, seq: int,
                 src: Buffer, s0: int, s_end: int, dst: Buffer, d0: int, d_end: int):
        self.env = env
        self.callbacks = [self.on_done]
        self.desc = sh.desc
        self.label = label
        self.shape = sh
        self.issued = issued
        self.seq = seq  # issue order
        self.src, self.s0, self.s_end = src, s0, s_end
        self.dst, self.d0, self.d_end = dst, d0, d_end

    @property
    def op(self) -> Operation:
        return self.shape.op

    def region(self, writes: bool) -> Region:
        """Its destination region (`writes`) or its source region."""
        if writes:
            return Region(self.d0, *self.shape.d_tail)
        return Region(self.s0, *self.shape.s_tail)

    def completed(self) -> None:
        self.src.reading.remove(self)
        self.dst.writing.remove(self)

    @staticmethod
    def on_done(xfer: InFlightDma) -> None:  # type: ignore[override]
        """`transfer_done` and `completed` in one call (one DMA, one SimPy callback)."""
        xfer.loads[xfer.engine] -= 1
        xfer.src.reading.remove(xfer)
        xfer.dst.writing.remove(xfer)

    def dram_patterns(self) -> tuple[tuple[bool, Pattern], ...]:
        """Its DRAM sides (`kind`: "read" from DRAM, "write" to it, "copy" with DRAM bytes:
        both) as the bytes they move at their buffers' DRAM addresses."""
        kind = self.desc[4]
        sh = self.shape
        if kind == "read":
            return ((False, _pattern(self.src, self.s0, sh.s_tail)),)
        if kind == "write":
            return ((True, _pattern(self.dst, self.d0, sh.d_tail)),)
        if self.desc[1] > 0:  # a copy with DRAM bytes: DRAM to DRAM
            return ((False, _pattern(self.src, self.s0, sh.s_tail)),
                    (True, _pattern(self.dst, self.d0, sh.d_tail)))
        return ()


def _pattern(buf: Buffer, start: int, tail: tuple[int, int, int, int]) -> Pattern:
    """A region (`start` and its `Region` fields after it: stride, per, count, last) of `buf`
    as DRAM bytes."""
    eb = buf.ebytes
    stride, per, count, last = tail
    return _tnew(Pattern, (buf.addr + start * eb, per * eb, stride * eb, count, last * eb))


class InFlightCopy(InFlightDma):
    """Functional mode: the data moves at completion, then the transfer leaves its buffers."""

    __slots__ = ()
    on_done = staticmethod(transfer_done)  # type: ignore[assignment]

    def completed(self) -> None:
        copy_region(self.src, self.region(False), self.dst, self.region(True), self.shape.nchunks)
        self.src.reading.remove(self)
        self.dst.writing.remove(self)


def copy_region(src: Buffer, sreg: Region, dst: Buffer, dreg: Region, nchunks: int) -> None:
    """Copy the `nchunks` chunks of `sreg` in `src` into `dreg` in `dst`."""
    sf, df = src.flat, dst.flat
    assert sf is not None and df is not None
    if nchunks == 0:
        return
    if nchunks == 1:
        n = sreg.last
        df[dreg.start: dreg.start + n] = sf[sreg.start: sreg.start + n]
        return
    full = nchunks - 1
    per = sreg.per
    isz = sf.itemsize
    sv = np.lib.stride_tricks.as_strided(sf[sreg.start:], shape=(full, per),
                                         strides=(sreg.stride * isz, isz), writeable=False)
    dv = np.lib.stride_tricks.as_strided(df[dreg.start:], shape=(full, per),
                                         strides=(dreg.stride * df.itemsize, df.itemsize))
    dv[...] = sv
    s_last = sreg.start + full * sreg.stride
    d_last = dreg.start + full * dreg.stride
    df[d_last: d_last + sreg.last] = sf[s_last: s_last + sreg.last]
