"""Which tensor of a network flows from one kernel to the next, and the honest network bound.

A network is its kernels in order (`flat_kernels`: every layer's kernels, view layers adding
none). Consecutive kernels are *linked* when the first one's output is what the second one
reads (`links`):

- a model with data (ONNX) names its tensors (`Kernel.reads` / `writes`, views renaming them):
  the link is the tensor the producer writes and the consumer reads, when nothing after the
  consumer reads it, it is not a graph output and the producer does not start it from another
  tensor (a bias it accumulates onto);
- a layer list or a topology names none: the consumer's first read argument with the
  producer output's element type and element count (a reshape), or, both NCHW, the same batch
  and channels with a border of `pad` zeros on every side (a SCALE-Sim topology gives each
  convolution's input with its padding: a 56x56 output feeding a 58x58 input). An output
  nothing links is the network's, an input nothing feeds the network's; the chain is what the
  file states, no more (a layer list has no skip connections).

The honest network bound (`honest_bound`): every byte a schedule cannot avoid moving through
DRAM. Every read argument no link feeds (weights, the network's inputs) read once, every
output no link consumes written once, plus the spills the on-chip capacity forces: a linked
tensor one slice of which (along its outermost dimension longer than 1) does not fit the
on-chip level goes out and back (2 x its bytes); any other can stay on chip in slices, so it
costs nothing in the bound. Its cycles: the larger of the network's MACs at the machine's peak
and those bytes at DRAM's peak bandwidth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from accelsim.network.model import Kernel, Network


@dataclass(frozen=True, slots=True)
class KernelArgs:
    """One kernel's arguments as its workload builds them: names, shapes, element types
    (MLIR names), element bytes, and which it writes."""

    spec: str
    func: str
    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    bits: tuple[int, ...]
    outputs: tuple[str, ...]

    def index(self, name: str) -> int:
        return self.names.index(name)

    def nbytes(self, i: int) -> int:
        return math.prod(self.shapes[i]) * self.bits[i] // 8

    @property
    def reads(self) -> tuple[int, ...]:
        """The arguments it only reads."""
        return tuple(i for i, n in enumerate(self.names) if n not in self.outputs)


@lru_cache(maxsize=1024)
def kernel_args(spec: str) -> KernelArgs:
    import workloads

    w = workloads.get(spec)
    funcs = [f for f in w.module().funcs if not f.is_declaration]
    f = next(f for f in funcs if f.sym_name == w.func_name)
    types = [a.type for a in f.args]
    return KernelArgs(spec, w.func_name, tuple(f.arg_names()),
                      tuple(tuple(t.shape) for t in types),
                      tuple(t.element.name for t in types),
                      tuple(t.element.bitwidth for t in types), tuple(w.outputs))


@dataclass(frozen=True, slots=True)
class Link:
    """Kernel `producer` (index into `flat_kernels`) writes argument `out_arg`, which kernel
    `producer + 1` reads as `in_arg`; `pad`: the zero border (rows and columns on each side)
    the consumer's NCHW input has around the producer's NCHW output; `nbytes`: the tensor as
    the consumer reads it."""

    producer: int
    out_arg: str
    in_arg: str
    pad: int
    nbytes: int

    @property
    def consumer(self) -> int:
        return self.producer + 1


def flat_kernels(network: Network) -> list[tuple[int, Kernel]]:
    """(layer index, kernel) of every kernel, in the order they run."""
    return [(i, k) for i, layer in enumerate(network.layers) for k in layer.kernels]


def links(network: Network) -> list[Link]:
    """Every producer -> consumer link between consecutive kernels (module docstring)."""
    flat = flat_kernels(network)
    named = any(k.reads or k.writes for _, k in flat)
    alias = _views(network)
    out: list[Link] = []
    for p in range(len(flat) - 1):
        a, b = kernel_args(flat[p][1].workload), kernel_args(flat[p + 1][1].workload)
        found = (_named_link(network, flat, p, a, b, alias) if named
                 else _shape_link(p, a, b))
        if found is not None:
            out.append(found)
    return out


def _views(network: Network) -> dict[str, str]:
    """View name -> the tensor it renames (transitively)."""
    alias: dict[str, str] = {}
    for layer in network.layers:
        for new, old in layer.views:
            alias[new] = alias.get(old, old)
    return alias


def _named_link(network: Network, flat: list[tuple[int, Kernel]], p: int, a: KernelArgs,
                b: KernelArgs, alias: dict[str, str]) -> Link | None:
    writes = {alias.get(t, t): arg for arg, t in flat[p][1].writes}
    if len(writes) != 1:
        return None
    (tensor, out_arg), = writes.items()
    if out_arg in dict(flat[p][1].reads):  # it starts from a tensor (a bias): kept in DRAM
        return None
    outputs = {alias.get(t, t) for t in network.outputs}
    later = {alias.get(t, t) for _, k in flat[p + 2:] for _, t in k.reads}
    reads = [arg for arg, t in flat[p + 1][1].reads if alias.get(t, t) == tensor]
    if len(reads) != 1 or tensor in outputs or tensor in later or tensor in network.constants:
        return None
    i, o = b.index(reads[0]), a.index(out_arg)
    if b.names[i] in b.outputs or b.dtypes[i] != a.dtypes[o] \
            or math.prod(b.shapes[i]) != math.prod(a.shapes[o]):
        return None
    return Link(p, out_arg, reads[0], 0, b.nbytes(i))


def _shape_link(p: int, a: KernelArgs, b: KernelArgs) -> Link | None:
    if len(a.outputs) != 1:
        return None
    o = a.index(a.outputs[0])
    for i in b.reads:
        if b.dtypes[i] != a.dtypes[o]:
            continue
        if math.prod(b.shapes[i]) == math.prod(a.shapes[o]):
            return Link(p, a.names[o], b.names[i], 0, b.nbytes(i))
        pad = _pad(a.shapes[o], b.shapes[i])
        if pad:
            return Link(p, a.names[o], b.names[i], pad, b.nbytes(i))
    return None


def _pad(out: tuple[int, ...], inp: tuple[int, ...]) -> int:
    """The border p of an NCHW input equal to the NCHW output padded by p on every side (0:
    none)."""
    if len(out) != 4 or len(inp) != 4 or out[:2] != inp[:2]:
        return 0
    dh, dw = inp[2] - out[2], inp[3] - out[3]
    return dh // 2 if dh == dw and dh > 0 and dh % 2 == 0 else 0


def forced_spill(link: Link, shape: tuple[int, ...], capacity_bytes: int) -> int:
    """The DRAM bytes the on-chip capacity forces on `link`'s tensor (of `shape`, as the
    consumer reads it): out and back when one slice along its outermost dimension longer than 1
    does not fit."""
    dims = list(shape)
    while dims and dims[0] == 1:
        dims.pop(0)
    if not dims:
        return 0
    slice_bytes = link.nbytes // dims[0]
    return 2 * link.nbytes if slice_bytes > capacity_bytes else 0


def honest_bound(network: Network, config: Any, macs: int) -> dict[str, int]:
    """`honest_bound_bytes`, `honest_bound_cycles` and `honest_forced_spill_bytes` of
    `network` on `config` (module docstring); `macs`: the network's MACs."""
    from accelsim.report.roofline import peak_compute_cycles, peak_dram_bytes_per_cycle

    flat = flat_kernels(network)
    found = {ln.producer: ln for ln in links(network)}
    fed = {ln.consumer: ln.in_arg for ln in found.values()}
    capacity = int(config.memory_chain()[1].capacity_kib * 1024) if len(config.memory_chain()) > 1 \
        else 0
    total = spill = 0
    for p, (_, k) in enumerate(flat):
        a = kernel_args(k.workload)
        total += sum(a.nbytes(i) for i in a.reads if a.names[i] != fed.get(p))
        if p in found:
            ln = found[p]
            b = kernel_args(flat[p + 1][1].workload)
            spill += forced_spill(ln, b.shapes[b.index(ln.in_arg)], capacity)
        else:
            total += sum(a.nbytes(a.index(n)) for n in a.outputs)
    total += spill
    cycles = max(peak_compute_cycles(config, macs, 0, 0),
                 math.ceil(total / float(peak_dram_bytes_per_cycle(config))))
    return {"honest_bound_bytes": total, "honest_bound_cycles": int(cycles),
            "honest_forced_spill_bytes": spill}
