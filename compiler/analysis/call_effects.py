"""What a `func.call` reads and writes of each memref it is passed, as isl relations.

A callee defined in the module with a body is summarized once per memref parameter: the union
of its `affine.load`s (reads) and `affine.store`s (writes) over its own loops, as a function
of its `index` parameters, `{ [x0, ..., xk] -> M[e] }` (x: the index arguments in order;
calls inside the callee are summarized the same way and composed). At a call site each x is
bound to the operand's affine function of the caller's loop IVs and symbols (`Frame.value`:
a loop IV, a constant, a symbol or an `affine.apply`/`min`/`max` of them), giving
`{ [caller ivs] -> B[e] }` on the actual memref B.

Everything is a may-access over-approximation, so the race proof built on it stays sound:
- an index operand the caller's frame cannot express is any value (its x is projected out);
- a value the callee computes outside its loops' affine reach but that isl can still name
  (a symbol local to the callee) is any value (its parameter is projected out);
- a parameter the callee uses other than as the memref of an affine load/store, of a
  `memref.dim` or as an operand of a call that can itself be summarized (an unknown op, a
  dealloc, a DMA, a subview, a return, a non-affine index, ...) is OPAQUE: every element,
  read and written;
- a callee that is external (a declaration), missing or recursive, or a call whose operands
  do not match its parameters (a memref for a memref, an index for an index), makes every
  memref operand of the call OPAQUE.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import relation_in_frame
from compiler.analysis.domain import domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import CTX, AnalysisError, Frame, isl_name
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineLoadOp, AffineStoreOp, CallOp, DimOp, FuncOp, ModuleOp
from compiler.ir.types import MemRefType


@dataclass(frozen=True, slots=True)
class ParamEffect:
    """A memref parameter's accesses, `{ [x0, ..., xk] -> M[e] }` over the callee's index
    parameters (None: no access of that kind); `opaque`: every element, read and written."""

    read: isl.Map | None = None
    write: isl.Map | None = None
    opaque: bool = False


OPAQUE = ParamEffect(opaque=True)


@dataclass(frozen=True, slots=True)
class Summary:
    """A callee's effect: `index_args` the argument positions of its index parameters (the x
    dims, in order), `effects` per memref argument position."""

    index_args: tuple[int, ...]
    effects: dict[int, ParamEffect]
    arg_kinds: tuple[str, ...]   # per argument: "memref", "index" or "other"

    def fits(self, call: CallOp) -> bool:
        """The call passes a memref where the callee takes one and an index where it takes
        one (else nothing of the summary applies)."""
        return tuple(_kind(v) for v in call.operands) == self.arg_kinds


@dataclass(frozen=True, slots=True)
class CallEffect:
    """One memref operand of a call, in the caller: `{ [caller frame dims] -> B[e] }` on the
    call's domain (None: no access of that kind), or `opaque`."""

    operand: Value
    read: isl.Map | None
    write: isl.Map | None
    opaque: bool


def _is_index(v: Value) -> bool:
    return getattr(v.type, "kind", None) == "index" and not isinstance(v.type, MemRefType)


def _kind(v: Value) -> str:
    return "memref" if isinstance(v.type, MemRefType) else "index" if _is_index(v) else "other"


def _module_of(op: Operation) -> ModuleOp | None:
    anc = op.parent_op
    while anc is not None and not isinstance(anc, ModuleOp):
        anc = anc.parent_op
    return anc


def _union(a: isl.Map | None, b: isl.Map | None) -> isl.Map | None:
    if a is None:
        return b
    if b is None:
        return a
    return a.union(b).coalesce()


def _drop_params(rel: isl.Map) -> isl.Map:
    """Callee-local symbols mean nothing in the caller: any value (existential)."""
    return rel.project_out(isl.dim_type.param, 0, rel.dim(isl.dim_type.param))


def _bind(frame: Frame, dom: isl.Set, call: CallOp, s: Summary, rel: isl.Map) -> isl.Map:
    """The callee's `{ [x...] -> M[e] }` at `call`: `{ [frame dims] -> M[e] }` on `dom`, each x
    the operand's function in `frame` (any value where the frame cannot express it)."""
    parts: list[isl.PwAff] = []
    unknown: list[int] = []
    for k, pos in enumerate(s.index_args):
        try:
            parts.append(frame.value(call.operands[pos]))
        except AnalysisError:
            unknown.append(k)
    for k in reversed(unknown):
        rel = rel.project_out(isl.dim_type.in_, k, 1)
    # { [frame dims] -> [x...] }
    if parts:
        bind = isl.Map.from_pw_aff(parts[0])
        for p in parts[1:]:
            bind = bind.flat_range_product(isl.Map.from_pw_aff(p))
    else:
        bind = isl.Map.from_domain_and_range(frame.universe,
                                             isl.Set.universe(isl.Space.set_alloc(CTX, 0, 0)))
    bind = bind.intersect_domain(dom)
    # x dims of the summary are named after the callee's arguments; the binding's are not
    for k in range(rel.dim(isl.dim_type.in_)):
        rel = rel.set_dim_name(isl.dim_type.in_, k, f"x{k}")
    for k in range(bind.dim(isl.dim_type.out)):
        bind = bind.set_dim_name(isl.dim_type.out, k, f"x{k}")
    return bind.apply_range(rel)


class CallSummaries:
    """Summaries of the callees of one module, computed on first use and kept by callee name
    (the symbol names a function for the module's life; build a new object after the IR
    changes)."""

    def __init__(self, module: ModuleOp | None):
        self.module = module
        self._cache: dict[str, Summary | None] = {}
        self._active: set[str] = set()   # callees being summarized (recursion guard)

    @classmethod
    def of(cls, op: Operation) -> CallSummaries:
        return cls(_module_of(op))

    def summary(self, callee: str) -> Summary | None:
        """None: the callee cannot be summarized (external, missing, recursive)."""
        if callee in self._cache:
            return self._cache[callee]
        if callee in self._active or self.module is None:
            return None
        func = self.module.lookup(callee)
        if func is None or func.is_declaration:
            self._cache[callee] = None
            return None
        self._active.add(callee)
        try:
            got = self._summarize(func)
        finally:
            self._active.discard(callee)
        self._cache[callee] = got
        return got

    def at_call(self, call: CallOp, frame: Frame, dom: isl.Set) -> list[CallEffect]:
        """Each memref operand of `call` (in `frame`, on `dom`) with what the callee does to it."""
        s = self.summary(call.callee)
        if s is not None and not s.fits(call):
            s = None
        out: list[CallEffect] = []
        for pos, v in enumerate(call.operands):
            if not isinstance(v.type, MemRefType):
                continue
            eff = s.effects.get(pos, OPAQUE) if s is not None else OPAQUE
            if eff.opaque:
                out.append(CallEffect(v, None, None, True))
                continue
            assert s is not None
            rels = []
            for rel in (eff.read, eff.write):
                if rel is None:
                    rels.append(None)
                    continue
                got = _bind(frame, dom, call, s, rel)
                rels.append(got.set_tuple_name(isl.dim_type.out, isl_name(v)))
            out.append(CallEffect(v, rels[0], rels[1], False))
        return out

    # ---- one callee ---------------------------------------------------------------------
    def _summarize(self, func: FuncOp) -> Summary:
        args = func.args
        index_args = tuple(p for p, a in enumerate(args) if _is_index(a))
        xs = [args[p] for p in index_args]
        pos = {id(a): p for p, a in enumerate(args) if isinstance(a.type, MemRefType)}
        effects: dict[int, ParamEffect] = {p: ParamEffect() for p in pos.values()}

        def add(p: int, rel: isl.Map | None, write: bool) -> None:
            e = effects[p]
            if e.opaque or rel is None:
                return
            # { [x..., ivs] -> M[e] } -> { [x...] -> M[e] }
            n = rel.dim(isl.dim_type.in_)
            rel = _drop_params(rel.project_out(isl.dim_type.in_, len(xs), n - len(xs)))
            rel = rel.set_tuple_name(isl.dim_type.out, "M")
            effects[p] = ParamEffect(e.read if write else _union(e.read, rel),
                                     _union(e.write, rel) if write else e.write)

        for op in func.body.walk():
            used = [pos[id(v)] for v in op.operands if id(v) in pos]
            if not used:
                continue
            if isinstance(op, AffineLoadOp | AffineStoreOp) and \
                    [v for v in op.operands if id(v) in pos] == [op.memref]:
                p = pos[id(op.memref)]
                if effects[p].opaque:
                    continue
                try:
                    frame = Frame(xs + [loop.iv for loop in enclosing_loops(op)])
                    rel = relation_in_frame(op, "", frame, domain_in_frame(op, frame))
                except AnalysisError:
                    effects[p] = OPAQUE
                    continue
                add(p, rel, isinstance(op, AffineStoreOp))
            elif isinstance(op, CallOp):
                try:
                    frame = Frame(xs + [loop.iv for loop in enclosing_loops(op)])
                    inner = self.at_call(op, frame, domain_in_frame(op, frame))
                except AnalysisError:
                    inner = [CallEffect(v, None, None, True) for v in op.operands
                             if isinstance(v.type, MemRefType)]
                for ce in inner:
                    p2 = pos.get(id(ce.operand))
                    if p2 is None:
                        continue   # a buffer of the callee's own
                    if ce.opaque:
                        effects[p2] = OPAQUE
                        continue
                    add(p2, ce.read, False)
                    add(p2, ce.write, True)
            elif isinstance(op, DimOp):
                continue   # the shape, no element
            else:
                for p in used:
                    effects[p] = OPAQUE
        return Summary(index_args, effects, tuple(_kind(a) for a in args))
