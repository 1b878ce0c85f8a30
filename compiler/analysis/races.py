"""A static proof that a program's DMAs are race-free (isl), for every instance of every op.

The control program is sequential; a DMA runs from its `affine.dma_start` to the first
`affine.dma_wait` after it on the same tag element (the simulator's tag file: one transfer
per tag element). Instances are ordered as the program runs them: of two ops, the one whose
common enclosing loops' IVs are lexicographically smaller, and at equal IVs the one first
in the text (`_Program.before`: a few disjuncts per pair, the common loops only). An access
is in a DMA instance's window when it runs after the start and no wait on the start's tag
element runs between them (an existential isl decides: no lexmin, no schedule vectors). The
program is race-free when no access of an element that a DMA in flight reads or writes
falls in that DMA's window, unless both only read:

- loads and stores, and the src/dst sides of every DMA start (a DMA whose window holds the
  start of another is caught from the other's side too: two windows overlap iff one start
  lies inside the other window);
- a start on a tag element whose DMA is still in flight (the tag reused before its wait);
- `memref.dealloc` of a buffer a DMA is in flight on (every element);
- `func.call` of a function defined in the module: what its affine loads and stores (and its
  own calls) touch of each memref operand, with its index parameters bound to the operands'
  affine functions of the loops (`compiler.analysis.call_effects`); an external callee, an
  operand the callee uses otherwise, and ops of unknown effect: every element of each memref
  operand, read and written.

`check_clusters` adds the machine of many clusters: between two `accel.barrier`s, no element
of a function argument one cluster writes (a DMA counts in every phase from its start to its
last possible wait) is read or written by another — every element a DMA moves, used or not.

Ops the polyhedral analysis cannot model (a non-affine index, a DMA whose element count is
not an affine function of the loops) are left out and listed in `RaceReport.unchecked`;
everything else is exact (isl decides emptiness; no sampling, no bounds on trip counts).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import islpy as isl

from compiler.analysis.access import is_exact_side, relation_in_frame
from compiler.analysis.call_effects import CallSummaries
from compiler.analysis.domain import domain_frame
from compiler.analysis.isl_bridge import CTX, AnalysisError, Frame, isl_name
from compiler.diagnostics import Location
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineStoreOp,
    CallOp,
    FuncOp,
)
from compiler.ir.ops.opaque import BARRIER_OP
from compiler.ir.types import MemRefType

_REGION = 1 << 20   # an op in region r of its parent: position r * _REGION + its index


@dataclass(frozen=True, slots=True)
class Race:
    """One race: `op` touches `buffer` at `element` while `dma` (started at `dma_at`, the
    IVs of that instance) is in flight. `kind`: "in-flight", "tag-reuse" or "cluster"."""

    kind: str
    op: Operation
    dma: Operation
    buffer: str
    element: tuple[int, ...]
    op_at: tuple[int, ...]
    dma_at: tuple[int, ...]
    message: str

    @property
    def loc(self) -> Location:
        return self.op.loc


@dataclass
class RaceReport:
    races: list[Race] = field(default_factory=list)
    unchecked: list[tuple[Operation, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.races


@dataclass(slots=True)
class _Acc:
    """One access relation `o<k>[ivs] -> B[e]` of unit `op` to buffer `buf`; `at`: the op to
    name in a message (a load or store inside a summarized nest)."""

    op: Operation
    name: str          # the unit's isl tuple name
    buf: Value
    rel: isl.Map
    write: bool
    dma_side: bool     # a DMA start's src/dst/tag side (then `op` has a window)
    at: Operation


def _has_dma(op: Operation) -> bool:
    return any(isinstance(o, AffineDmaStartOp | AffineDmaWaitOp) or o.NAME == BARRIER_OP
               for o in op.walk())


class _Program:
    """The units of one function (DMA ops, DMA-free loop nests summarized at their outermost
    loop, other memory ops) with their isl names, schedules and accesses. A loop nest without
    DMA ops runs between the same DMA events in all of its iterations, so an access inside it
    is in a window exactly when the nest's instance is: its footprint over the outer loops
    stands for all of its accesses."""

    def __init__(self, func: FuncOp):
        self.func = func
        self.calls = CallSummaries.of(func)
        self.names: dict[int, str] = {}
        self.unchecked: list[tuple[Operation, str]] = []
        self.units: list[Operation] = []
        self._collect(func.body.ops)
        for k, op in enumerate(self.units):
            self.names[id(op)] = f"o{k}"
        self.accesses: list[_Acc] = []
        self.starts: list[AffineDmaStartOp] = []
        self.waits: list[AffineDmaWaitOp] = []
        self.doms: dict[int, tuple[object, isl.Set]] = {}
        self._before: dict[tuple[int, int], isl.Map] = {}
        for op in self.units:
            try:
                self._add(op)
            except AnalysisError as exc:
                self.unchecked.append((op, str(exc)))

    def _collect(self, ops: Sequence[Operation]) -> None:
        for op in ops:
            if isinstance(op, AffineForOp | AffineIfOp):
                if isinstance(op, AffineForOp) and not _has_dma(op):
                    if any(isinstance(o, AffineLoadOp | AffineStoreOp) or _memory_op(o)
                           for o in op.walk()):
                        self.units.append(op)
                    continue
                for b in op.blocks:
                    self._collect(b.ops)
            elif isinstance(op, AffineLoadOp | AffineStoreOp | AffineDmaStartOp | AffineDmaWaitOp) \
                    or _memory_op(op):
                self.units.append(op)

    # ---- schedules -------------------------------------------------------------------
    def _add(self, op: Operation) -> None:
        frame, dom = domain_frame(op)
        name = self.names[id(op)]
        if isinstance(op, AffineForOp):
            self._add_nest(op, name, dom.dim(isl.dim_type.set))
        elif isinstance(op, AffineLoadOp | AffineStoreOp):
            rel = relation_in_frame(op, "", frame, dom)
            self.accesses.append(_Acc(op, name, op.memref, _named_in(rel, name),
                                      isinstance(op, AffineStoreOp), False, op))
        elif isinstance(op, AffineDmaStartOp):
            for side, buf, write in (("src", op.src, False), ("dst", op.dst, True)):
                if not is_exact_side(op, side):
                    self.unchecked.append((op, f"the {side} side's element count is not an affine "
                                               "function of the loops"))
                    continue
                rel = relation_in_frame(op, side, frame, dom)
                self.accesses.append(_Acc(op, name, buf, _named_in(rel, name), write, True, op))
            tag = relation_in_frame(op, "tag", frame, dom)
            self.accesses.append(_Acc(op, name, op.tag, _named_in(tag, name), True, True, op))
            self.starts.append(op)
            self.doms[id(op)] = (frame, dom)
        elif isinstance(op, AffineDmaWaitOp):
            self.waits.append(op)
            self.doms[id(op)] = (frame, dom)
        elif isinstance(op, CallOp):
            self._add_call(op, name, dom.dim(isl.dim_type.set), op, frame, dom)
        else:
            self._add_opaque(op, name, dom, op)

    def _add_nest(self, nest: AffineForOp, name: str, outer: int) -> None:
        """The footprint of a DMA-free nest per instance of its outer loops, per buffer and
        kind: `{ o<k>[outer ivs] -> B[e] }`."""
        got: dict[tuple[int, bool], _Acc] = {}
        for o in nest.walk():
            if isinstance(o, AffineLoadOp | AffineStoreOp):
                try:
                    frame, dom = domain_frame(o)
                    rel = relation_in_frame(o, "", frame, dom)
                except AnalysisError as exc:
                    self.unchecked.append((o, str(exc)))
                    continue
                n = rel.dim(isl.dim_type.in_)
                rel = _named_in(rel.project_out(isl.dim_type.in_, outer, n - outer), name)
                key = (id(o.memref), isinstance(o, AffineStoreOp))
                if key in got:
                    got[key].rel = got[key].rel.union(rel)
                else:
                    got[key] = _Acc(nest, name, o.memref, rel, key[1], False, o)
            elif _memory_op(o):
                frame, dom = domain_frame(o)
                if isinstance(o, CallOp):
                    self._add_call(nest, name, outer, o, frame, dom)
                    continue
                n = dom.dim(isl.dim_type.set)
                self._add_opaque(nest, name, dom.project_out(isl.dim_type.set, outer, n - outer), o)
        self.accesses.extend(got.values())

    def _add_call(self, unit: Operation, name: str, outer: int, call: CallOp, frame: Frame,
                  dom: isl.Set) -> None:
        """A call's accesses per memref operand (`call_effects`), over the unit's `outer` loops:
        `{ o<k>[outer ivs] -> B[e] }`; the operands the callee's summary leaves opaque count as
        every element, read and written."""
        n = dom.dim(isl.dim_type.set)
        opaque: list[Value] = []
        for ce in self.calls.at_call(call, frame, dom):
            if ce.opaque:
                opaque.append(ce.operand)
                continue
            for rel, write in ((ce.read, False), (ce.write, True)):
                if rel is not None:
                    # { [ivs] -> B[e] } -> { o<k>[outer ivs] -> B[e] }
                    rel = _named_in(rel.project_out(isl.dim_type.in_, outer, n - outer), name)
                    self.accesses.append(_Acc(unit, name, ce.operand, rel, write, False, call))
        if opaque:
            self._add_opaque(unit, name, dom.project_out(isl.dim_type.set, outer, n - outer), call,
                             opaque)

    def _add_opaque(self, unit: Operation, name: str, dom: isl.Set, op: Operation,
                    only: Sequence[Value] | None = None) -> None:
        """dealloc (writes every element), a call or an op of unknown effect (reads and writes
        every element of each memref operand, or of those in `only`)."""
        whole = op.NAME == "memref.dealloc"
        for v in op.operands:
            t = v.type
            if not isinstance(t, MemRefType) or (only is not None and not any(v is o for o in only)):
                continue
            rel = _everything(dom, name, v, t)
            if rel is None:
                self.unchecked.append((op, f"{_show(v)} has a dynamic shape"))
                continue
            self.accesses.append(_Acc(unit, name, v, rel, True, False, op))
            if not whole:
                self.accesses.append(_Acc(unit, name, v, rel, False, False, op))

    # ---- order and waits ----------------------------------------------------------------
    def before(self, x: Operation, y: Operation) -> isl.Map:
        """`{ o_x[ix] -> o_y[iy] : instance ix of x runs before instance iy of y }`: an outer
        common loop's IV smaller, the IVs of the common loops equal and x first in the text
        (iteration order of the loops, positive steps). No domain constraints."""
        key = (id(x), id(y))
        got = self._before.get(key)
        if got is not None:
            return got
        cx, cy = _ancestry(x), _ancestry(y)
        k = 0
        while k < min(len(cx), len(cy)) and cx[k] is cy[k]:
            k += 1
        loops = sum(1 for o in cx[:k] if isinstance(o, AffineForOp) and o is not x and o is not y)
        nx = sum(1 for o in cx[:-1] if isinstance(o, AffineForOp))
        ny = sum(1 for o in cy[:-1] if isinstance(o, AffineForOp))
        x_first = k < len(cx) and k < len(cy) and _position(cx[k]) < _position(cy[k])
        shape = _order_map(nx, ny, loops, x_first)
        got = shape.set_tuple_name(isl.dim_type.in_, self.names[id(x)]).set_tuple_name(
            isl.dim_type.out, self.names[id(y)])
        self._before[key] = got
        return got

    def closers(self) -> dict[int, list[tuple[AffineDmaWaitOp, isl.Map]]]:
        """Per DMA start: for each wait op on its tag memref, `{ o_s[s] -> o_w[w] }`: the wait
        instances on s's tag element after s."""
        tags: dict[int, isl.Map] = {}
        for w in self.waits:
            frame, dom = self.doms[id(w)]
            tags[id(w)] = _named_in(relation_in_frame(w, "tag", frame, dom), self.names[id(w)])
        out: dict[int, list[tuple[AffineDmaWaitOp, isl.Map]]] = {}
        for st in self.starts:
            frame, dom = self.doms[id(st)]
            tag = _named_in(relation_in_frame(st, "tag", frame, dom), self.names[id(st)])
            got = []
            for w in self.waits:
                if w.tag is not st.tag:
                    continue
                sw = tag.apply_range(tags[id(w)].reverse()).intersect(self.before(st, w))
                if not sw.is_empty():
                    got.append((w, sw))
            out[id(st)] = got
        return out


def check_races(func: FuncOp, first_only: bool = True) -> RaceReport:
    """The races of `func` (see the module docstring); `first_only`: stop at the first."""
    prog = _Program(func)
    report = RaceReport(unchecked=list(prog.unchecked))
    if not prog.starts:
        return report
    closers = prog.closers()
    spans = {id(st): _span_to_wait(st) for st in prog.starts}
    by_buf: dict[int, list[_Acc]] = {}
    for a in prog.accesses:
        by_buf.setdefault(id(a.buf), []).append(a)
    for accs in by_buf.values():
        dmas = [a for a in accs if a.dma_side]
        if not dmas:
            continue
        units: dict[int, list[_Acc]] = {}
        for a in accs:
            units.setdefault(id(a.op), []).append(a)
        rels: dict[tuple[int, bool], isl.Map] = {}
        for d in dmas:
            tag_side = d.buf is d.op.tag   # type: ignore[attr-defined]
            drel = d.rel.coalesce()
            for group in units.values():
                unit = group[0].op
                if tag_side and not group[0].dma_side:
                    continue   # a wait is not an access of the tag; only starts reuse it
                mine = [a for a in group if a.write or d.write]
                if not mine or _never_after(unit, d.op) or _closed_before(unit, spans[id(d.op)]):
                    continue
                key = (id(unit), d.write)
                if key not in rels:   # { B[e] -> o_a[a] }
                    rel = mine[0].rel
                    for a in mine[1:]:
                        rel = rel.union(a.rel)
                    rels[key] = rel.reverse().coalesce()
                # { o_d[s] -> o_a[a] : a touches an element d moves, after d's start }
                hit = drel.apply_range(rels[key]).intersect(prog.before(d.op, unit))
                if hit.is_empty():
                    continue
                for w, sw in closers[id(d.op)]:
                    # a wait of s's element between s and a closes the window
                    hit = hit.subtract(sw.apply_range(prog.before(w, unit)))
                    if hit.is_empty():
                        break
                else:
                    a = next((x for x in mine if not _race_free(d, x, hit)), mine[0])
                    report.races.append(_race(d, a, hit, "tag-reuse" if tag_side else "in-flight"))
                    if first_only:
                        return report
    return report


def _span_to_wait(st: AffineDmaStartOp) -> tuple[Block, int, int] | None:
    """The block of `st`, its position and that of the first `affine.dma_wait` after it in
    the block on the same tag element (the same tag memref, map and index operands), or
    None. Every instance of `st` is then waited for in the same iteration of its loops,
    before anything at a later position of the block and before every later iteration runs:
    only the ops strictly between the two can run in its window (`_closed_before`)."""
    blk = st.parent_block
    if blk is None:
        return None
    at = blk.index_of(st)
    for k in range(at + 1, len(blk.ops)):
        w = blk.ops[k]
        if isinstance(w, AffineDmaWaitOp) and w.tag is st.tag and w.tag_map == st.tag_map \
                and len(w.tag_indices) == len(st.tag_indices) \
                and all(x is y for x, y in zip(w.tag_indices, st.tag_indices, strict=True)):
            return blk, at, k
    return None


def _closed_before(unit: Operation, span: tuple[Block, int, int] | None) -> bool:
    """No instance of `unit` runs in the window of the start of `span` (`_span_to_wait`):
    `unit` is not (inside) an op strictly between the start and its wait. Program order
    alone decides, without isl: the windows of a start waited for in its own block (most of
    the compiler's copies) cost nothing to prove."""
    if span is None:
        return False
    blk, start, wait = span
    for anc in _ancestry(unit):
        if anc.parent_block is blk:
            return not start < blk.index_of(anc) < wait
    return True   # outside the block: before the first start or after the last wait


def _race_free(d: _Acc, a: _Acc, hit: isl.Map) -> bool:
    """Whether access `a` of the unit has no part in `hit` (to name the access that races)."""
    return d.rel.apply_range(a.rel.reverse()).intersect(hit).is_empty()


def _race(d: _Acc, a: _Acc, hit: isl.Map, kind: str) -> Race:
    """The race of a witness in `hit` (`{ o_d[s] -> o_a[a] }`): both instances' IVs and the
    element."""
    one = d.rel.apply_range(a.rel.reverse()).intersect(hit)
    # { [o_d[s] -> o_a[a]] -> B[e] }
    wit = one.range_map().apply_range(a.rel).intersect(one.domain_map().apply_range(d.rel))
    vals = _point(wit.wrap().sample_point(), wit.wrap().get_space())
    nd, na = one.dim(isl.dim_type.in_), one.dim(isl.dim_type.out)
    dma_at, op_at, elem = tuple(vals[:nd]), tuple(vals[nd:nd + na]), tuple(vals[nd + na:])
    return Race(kind, a.at, d.op, _show(d.buf), elem, op_at, dma_at,
                _message(kind, a, d, elem, op_at, dma_at))


def _message(kind: str, a: _Acc, d: _Acc, elem: tuple[int, ...], op_at: tuple[int, ...],
             dma_at: tuple[int, ...]) -> str:
    dma = d.op
    assert isinstance(dma, AffineDmaStartOp)
    label = f"{_show(dma.src)} -> {_show(dma.dst)}"
    at = f" (loop IVs {list(op_at)})" if op_at else ""
    dat = f" (loop IVs {list(dma_at)})" if dma_at else ""
    if kind == "tag-reuse":
        return (f"{a.at.NAME}{at} starts a DMA on tag {_show(d.buf)}{list(elem)} while the DMA "
                f"{label} at {dma.loc}{dat} on that tag element is in flight: its dma_wait must "
                "come first")
    verb = "writes" if a.write else "reads"
    direction = "into" if d.write else "out of"
    return (f"{a.at.NAME}{at} {verb} {_show(d.buf)} element {list(elem)} while the DMA {label} "
            f"{direction} it, started at {dma.loc}{dat}, may be in flight: a dma_wait on its tag "
            "must come first")


# ---- many clusters ------------------------------------------------------------------------

def check_clusters(funcs: Sequence[FuncOp]) -> RaceReport:
    """Races between the clusters' programs (one function each, the same arguments): between
    barriers, an argument element written by one cluster and touched by another.

    Every access counts as the machine makes it: a DMA's whole box, also the elements of it
    the cluster never uses (the simulator's cluster check, `accelsim.sim.cluster_races`, sees
    the transfers, not their uses, and a read of an element another cluster writes meanwhile
    is a race whatever the reader does with it)."""
    report = RaceReport()
    phases: list[list[dict[int, tuple[isl.Set | None, isl.Set | None]]]] = []
    for f in funcs:
        ph, unchecked = _phase_footprints(f)
        report.unchecked += unchecked
        phases.append(ph)
    n = max((len(p) for p in phases), default=0)
    for k in range(n):
        for c1, p1 in enumerate(phases):
            for c2, p2 in enumerate(phases):
                if c1 == c2 or k >= len(p1) or k >= len(p2):
                    continue
                for arg, (_, w1) in p1[k].items():
                    if w1 is None or arg not in p2[k]:
                        continue
                    r2, w2 = p2[k][arg]
                    for other, verb in ((w2, "writes"), (r2, "reads")):
                        if other is None:
                            continue
                        both = w1.intersect(other)
                        if both.is_empty():
                            continue
                        elem = tuple(_point(both.sample_point(), both.get_space()))
                        name = _show(funcs[c1].body.args[arg]) if arg < len(funcs[c1].body.args) \
                            else f"argument {arg}"
                        msg = (f"clusters {c1} and {c2} touch {name} element {list(elem)} between "
                               f"the same barriers (phase {k}): cluster {c1} writes it and cluster "
                               f"{c2} {verb} it, in no order")
                        report.races.append(Race("cluster", funcs[c1], funcs[c2], name, elem, (),
                                                 (), msg))
                        return report
    return report


def _phase_footprints(func: FuncOp) -> tuple[list[dict[int, tuple[isl.Set | None, isl.Set | None]]],
                                            list[tuple[Operation, str]]]:
    """Per barrier phase of `func`: per argument index, the elements read and written."""
    prog = _Program(func)
    args = {id(v): k for k, v in enumerate(func.body.args)}
    top = func.body.ops
    bars = [i for i, op in enumerate(top) if op.NAME == BARRIER_OP]

    def phase_of(op: Operation) -> int:
        anc = op
        while anc.parent_op is not func:
            assert anc.parent_op is not None
            anc = anc.parent_op
        i = top.index(anc)
        return sum(1 for b in bars if b < i)

    last_wait: dict[int, int] = {}
    for w in prog.waits:
        last_wait[id(w.tag)] = max(last_wait.get(id(w.tag), 0), phase_of(w))
    out: list[dict[int, tuple[isl.Set | None, isl.Set | None]]] = [{} for _ in range(len(bars) + 1)]
    for a in prog.accesses:
        k = args.get(id(a.buf))
        if k is None:
            continue
        p0 = phase_of(a.op)
        p1 = max(p0, last_wait.get(id(a.op.tag), len(bars))) if a.dma_side and \
            isinstance(a.op, AffineDmaStartOp) else p0
        elems = a.rel.range().set_tuple_name(f"arg{k}")
        for p in range(p0, p1 + 1):
            r, w = out[p].get(k, (None, None))
            if a.write:
                w = elems if w is None else w.union(elems)
            else:
                r = elems if r is None else r.union(elems)
            out[p][k] = (r, w)
    return out, prog.unchecked


# ---- helpers --------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def _order_map(nx: int, ny: int, loops: int, x_first: bool) -> isl.Map:
    """`{ [i0..] -> [j0..] : ix before iy }` for `loops` common loops (see `before`)."""
    xs, ys = [f"i{j}" for j in range(nx)], [f"j{j}" for j in range(ny)]
    terms = []
    for m in range(loops + (1 if x_first else 0)):
        eq = [f"i{j} = j{j}" for j in range(m)]
        if m < loops:
            eq.append(f"i{m} < j{m}")
        terms.append("(" + (" and ".join(eq) if eq else "true") + ")")
    cond = " or ".join(terms) if terms else "false"
    return isl.Map.read_from_str(CTX, f"{{ [{', '.join(xs)}] -> [{', '.join(ys)}] : {cond} }}")


def _never_after(a: Operation, d: Operation) -> bool:
    """No instance of `a` runs after an instance of `d`: `a` comes first in the text and no
    loop holds both (program order alone decides)."""
    if a is d:
        return False
    ca, cd = _ancestry(a), _ancestry(d)
    k = 0
    while k < min(len(ca), len(cd)) and ca[k] is cd[k]:
        k += 1
    if any(isinstance(x, AffineForOp) for x in ca[:k]):
        return False
    if k >= len(ca) or k >= len(cd):
        return False
    return _position(ca[k]) < _position(cd[k]) if ca[k].parent_block is cd[k].parent_block \
        else False


def _ancestry(op: Operation) -> list[Operation]:
    out = [op]
    anc = op.parent_op
    while anc is not None and not isinstance(anc, FuncOp):
        out.append(anc)
        anc = anc.parent_op
    return out[::-1]


def _memory_op(op: Operation) -> bool:
    """An op other than load/store/DMA that takes a memref: dealloc, a call, unknown effect."""
    if isinstance(op, AffineLoadOp | AffineStoreOp | AffineDmaStartOp | AffineDmaWaitOp
                  | AffineForOp | AffineIfOp | FuncOp):
        return False
    if op.NAME in ("memref.alloc", "memref.alloca", "memref.dim", "func.return", "affine.yield",
                   "memref.subview", "memref.cast"):
        return False
    return any(isinstance(v.type, MemRefType) for v in op.operands)


def _position(op: Operation) -> int:
    blk = op.parent_block
    assert blk is not None
    pos = blk.index_of(op)
    parent = blk.parent_op
    if parent is not None and len(parent.blocks) > 1:
        pos += next(i for i, b in enumerate(parent.blocks) if b is blk) * _REGION
    return pos


def _named(dom: isl.Set, name: str) -> isl.Set:
    return dom.set_tuple_name(name)


def _named_in(rel: isl.Map, name: str) -> isl.Map:
    return rel.set_tuple_name(isl.dim_type.in_, name)


def _everything(dom: isl.Set, name: str, v: Value, t: MemRefType) -> isl.Map | None:
    if not t.has_static_shape:
        return None
    dims = [f"e{j}" for j in range(t.rank)]
    cons = " and ".join(f"0 <= {e} < {int(n)}" for e, n in zip(dims, t.shape))  # type: ignore[call-overload]
    ivs = [f"i{j}" for j in range(dom.dim(isl.dim_type.set))]
    text = f"{{ {name}[{', '.join(ivs)}] -> {isl_name(v)}[{', '.join(dims)}]" + \
        (f" : {cons} }}" if cons else " }")
    return isl.Map.read_from_str(CTX, text).intersect_domain(_named(dom, name))


def _point(pt: isl.Point, space: isl.Space) -> list[int]:
    n = space.dim(isl.dim_type.set)
    return [pt.get_coordinate_val(isl.dim_type.set, j).to_python() for j in range(n)]


def _show(v: Value) -> str:
    return f"%{v.name_hint}" if v.name_hint else str(v.type)

