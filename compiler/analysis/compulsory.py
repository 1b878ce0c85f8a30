"""Compulsory traffic: the slow-memory bytes a program needs whatever its schedule.

Each input element is read once, each output element written once. From the access relations
of the function as the user gave it (before tiling and copies), per memref argument in the slow
memory space, counted exactly with isl:

- written: every element some store or DMA destination writes;
- read: every element some load or DMA source reads *before* the program first writes it
  (an element the program writes first is not an input: its old value is never needed).

"Before" is program order: every access gets the 2d+1 schedule of its op (the op's position in
its block and the IV of each enclosing loop, outer to inner, e.g. `T[0, i, 1, j, 2, 0]`; the
last term orders the two sides of a DMA), and the first write of each element is a lexmin.
Calls are followed: a callee's accesses to a memref it was passed count against the caller's
argument, its schedule nested under the call's, its index arguments bound to the call's
operands. Memrefs the function allocates itself are temporaries, not compulsory traffic.

    traffic = compulsory_traffic(module, memory_space=0)
    traffic.read_bytes, traffic.written_bytes   # syrk 240x200: 231,360 and 115,680
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import islpy as isl

if TYPE_CHECKING:
    from compiler.analysis.nest_kernel import NestFigures

from compiler.analysis.access import access_relation, is_exact_side
from compiler.analysis.contraction import ContractionMatch, find_contraction
from compiler.analysis.domain import domain_frame, enclosing_loops
from compiler.analysis.isl_bridge import CTX, AnalysisError, isl_name
from compiler.ir.core import BlockArgument, Operation, Value
from compiler.ir.entry import entry_function
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    CallOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
    ReturnOp,
)
from compiler.ir.types import MemRefType

TIME = "T"  # the tuple name of schedule vectors


@dataclass(frozen=True, slots=True)
class ArgumentTraffic:
    """One memref argument: how many of its elements are inputs and outputs of the program."""

    name: str
    element_bytes: int
    elements: int          # the memref's size
    read_elements: int     # elements read before the program writes them: its inputs
    written_elements: int  # elements the program writes: its outputs
    exact: bool = True     # False: some DMA side's range was not modelled (start element only)

    @property
    def read_bytes(self) -> int:
        return self.read_elements * self.element_bytes

    @property
    def written_bytes(self) -> int:
        return self.written_elements * self.element_bytes


@dataclass(frozen=True, slots=True)
class CompulsoryTraffic:
    """The compulsory traffic of a function's slow-memory arguments, and its contraction shape
    (for the I/O lower bound), or why it is unknown (`unknown_reason`)."""

    func: str
    memory_space: int
    arguments: tuple[ArgumentTraffic, ...]
    contraction: ContractionMatch
    unknown_reason: str = ""
    # bytes of outputs written only from values computed from an input load
    # (`analysis/input_derived.py`): they cannot leave before an input arrives
    input_derived_written_bytes: int = 0
    # the entry function's top-level loop nests' op counts and GEMM roles
    # (`nest_kernel.top_nests`), for the roofline's compute roof; None: work outside such nests
    nests: tuple[NestFigures, ...] | None = field(
        default=None, compare=False, repr=False)
    # the longest loop-carried dependence chain (`recurrence.longest_recurrence`), for the
    # report's critical-path bound; None: no such chain
    recurrence: object | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def unknown(func: str, memory_space: int, reason: str) -> CompulsoryTraffic:
        return CompulsoryTraffic(func, memory_space, (), ContractionMatch(None, reason), reason)

    @property
    def known(self) -> bool:
        return not self.unknown_reason

    @property
    def read_bytes(self) -> int:
        return sum(a.read_bytes for a in self.arguments)

    @property
    def written_bytes(self) -> int:
        return sum(a.written_bytes for a in self.arguments)

    @property
    def bytes(self) -> int:
        return self.read_bytes + self.written_bytes

    @property
    def exact(self) -> bool:
        """Every access range was modelled: the figure is the exact compulsory traffic (else a
        lower bound of it)."""
        return self.known and all(a.exact for a in self.arguments)


def compulsory_traffic(module: ModuleOp | FuncOp, func: str | None = None,
                       memory_space: int = 0) -> CompulsoryTraffic:
    """The compulsory traffic of the entry function's memref arguments in `memory_space`.

    Raises AnalysisError when an access is not affine, a memref argument is used by an op this
    analysis does not know, a call recurses, or a count depends on an index argument.
    """
    try:
        return _compulsory_traffic(module, func, memory_space)
    except isl.Error as exc:
        raise AnalysisError(f"isl could not analyse the accesses ({exc})") from None


def _compulsory_traffic(module: ModuleOp | FuncOp, func: str | None, memory_space: int
                        ) -> CompulsoryTraffic:
    f = module if isinstance(module, FuncOp) else entry_function(module, func, AnalysisError)
    mod = module if isinstance(module, ModuleOp) else _module_of(f)
    walker = _Walker(mod)
    rows = []
    for k, arg in enumerate(f.args):
        mt = arg.type
        if not isinstance(mt, MemRefType) or mt.memory_space != memory_space:
            continue
        reads, writes, exact = walker.relations(f, k)
        shape = _shape_set(arg, mt)
        longest = max(reads.dim(isl.dim_type.in_), writes.dim(isl.dim_type.in_))
        reads, writes = (_padded(m, longest).intersect_range(shape) for m in (reads, writes))
        # { M[a] -> T[t] }: when each element is read, written
        r_at, w_at = reads.reverse(), writes.reverse()
        first_write = w_at.lexmin()
        # { M[a] -> T[y] : first write of a >lex y }: the times before it
        before = first_write.apply_range(isl.Map.lex_gt(first_write.get_space().range()))
        inputs = r_at.intersect(before).domain().union(r_at.domain().subtract(w_at.domain()))
        name = f.arg_names()[k]
        rows.append(ArgumentTraffic(name, mt.element.byte_width, _count(shape, name, "size"),
                                    _count(inputs, name, "read"), _count(w_at.domain(), name, "written"),
                                    exact))
    from compiler.analysis.input_derived import input_derived_written_bytes
    from compiler.analysis.nest_kernel import top_nests
    from compiler.analysis.recurrence import longest_recurrence

    return CompulsoryTraffic(f.sym_name, memory_space, tuple(rows), find_contraction(f),
                             input_derived_written_bytes=input_derived_written_bytes(f, memory_space),
                             nests=top_nests(f), recurrence=longest_recurrence(f))


def _module_of(f: FuncOp) -> ModuleOp | None:
    parent = f.parent_op
    return parent if isinstance(parent, ModuleOp) else None


def _shape_set(arg: Value, mt: MemRefType) -> isl.Set:
    """`{ M[a] : 0 <= a_d < shape_d }` (dynamic extents unbounded above)."""
    dims = [f"a{d}" for d in range(mt.rank)]
    cons = [f"0 <= a{d}" + (f" < {n}" if n is not None else "") for d, n in enumerate(mt.shape)]
    text = f"{{ {isl_name(arg)}[{', '.join(dims)}]" + (f" : {' and '.join(cons)}" if cons else "") + " }"
    return isl.Set.read_from_str(CTX, text)


def _count(s: isl.Set, name: str, what: str) -> int:
    s = s.coalesce()
    if s.dim(isl.dim_type.param):
        s = s.drop_unused_params() if hasattr(s, "drop_unused_params") else s
    if s.dim(isl.dim_type.param):
        params = ", ".join(s.get_dim_name(isl.dim_type.param, k) for k in range(s.dim(isl.dim_type.param)))
        raise AnalysisError(f"the {what} elements of %{name} depend on index arguments ({params}): "
                            "compulsory traffic needs constant sizes")
    size = _bounding_box_size(s)
    if size is None:
        raise AnalysisError(f"the {what} elements of %{name} are unbounded (a dynamic extent)")
    if size == 0 or _is_its_bounding_box(s):
        return size  # a rectangle: counted at once, however many elements (10^22 included)
    if size > _MAX_ENUMERATED:
        raise AnalysisError(f"the {what} elements of %{name} form a set too large to count exactly "
                            f"(its bounding box has {size:,} elements)")
    return int(s.count_val().to_python())  # isl enumerates: at most `size` points


_MAX_ENUMERATED = 50_000_000  # points isl may enumerate to count a set that is not a box


def _bounding_box_size(s: isl.Set) -> int | None:
    """Elements of the smallest box around `s` (0 when empty, None when unbounded)."""
    if s.is_empty():
        return 0
    n = 1
    for d in range(s.dim(isl.dim_type.set)):
        lo, hi = s.dim_min_val(d), s.dim_max_val(d)
        if not (lo.is_int() and hi.is_int()):
            return None
        n *= hi.to_python() - lo.to_python() + 1
    return n


def _is_its_bounding_box(s: isl.Set) -> bool:
    cons = " and ".join(f"{s.dim_min_val(d).to_python()} <= a{d} <= {s.dim_max_val(d).to_python()}"
                        for d in range(s.dim(isl.dim_type.set)))
    box = isl.Set.read_from_str(CTX, f"{{ {_tuple(s)}" + (f" : {cons}" if cons else "") + " }")
    return box.is_subset(s)


def _tuple(s: isl.Set) -> str:
    name = s.get_tuple_name() or ""
    return f"{name}[{', '.join(f'a{k}' for k in range(s.dim(isl.dim_type.set)))}]"


# ---- access relations with schedules ----------------------------------------------------

# ops that may take a data memref; the last three touch none of its elements
_ACCESS_OPS = (AffineLoadOp, AffineStoreOp, AffineDmaStartOp, CallOp, AffineDmaWaitOp, DeallocOp, ReturnOp)


class _Walker:
    """Per (function, memref argument): `{ T[t] -> M[a] }` of its reads and of its writes,
    schedules padded to one length so relations of different depths compare."""

    def __init__(self, module: ModuleOp | None):
        self.module = module
        self.active: list[str] = []
        self.memo: dict[tuple[int, int], tuple[isl.Map, isl.Map, bool]] = {}

    def relations(self, f: FuncOp, k: int) -> tuple[isl.Map, isl.Map, bool]:
        key = (id(f), k)
        hit = self.memo.get(key)
        if hit is None:
            if f.sym_name in self.active:
                raise AnalysisError(f"@{f.sym_name} calls itself (through "
                                    f"{' -> '.join('@' + n for n in self.active)}): compulsory "
                                    "traffic needs a call tree", f.loc)
            self.active.append(f.sym_name)
            try:
                hit = self.memo[key] = self._relations(f, f.args[k])
            finally:
                self.active.pop()
        return hit

    def _relations(self, f: FuncOp, arg: BlockArgument) -> tuple[isl.Map, isl.Map, bool]:
        name = isl_name(arg)
        reads: list[isl.Map] = []
        writes: list[isl.Map] = []
        exact = True
        for op in f.body.walk():
            if not any(v is arg for v in op.operands):
                continue
            if not isinstance(op, _ACCESS_OPS):
                raise AnalysisError(f"%{arg.name_hint or '?'} is used by {op.NAME}, whose accesses "
                                    "the compulsory-traffic analysis does not know", op.loc)
            if isinstance(op, CallOp):
                r, w, ex = self._call(op, arg)
                reads.append(r)
                writes.append(w)
                exact = exact and ex
                continue
            for side, is_write, memref in _sides(op):
                if memref is not arg:
                    continue
                rel = access_relation(op, side).apply_domain(_time_map(op, side))
                (writes if is_write else reads).append(rel)
                exact = exact and is_exact_side(op, side)
        return _union(reads, name, _rank(arg)), _union(writes, name, _rank(arg)), exact

    def _call(self, call: CallOp, arg: Value) -> tuple[isl.Map, isl.Map, bool]:
        callee = self.module.lookup(call.callee) if self.module is not None else None
        if callee is None or callee.is_declaration:
            raise AnalysisError(f"%{arg.name_hint or '?'} is passed to @{call.callee}, whose body "
                                "is not in the module", call.loc)
        frame, dom = domain_frame(call)
        positions = [p for p, v in enumerate(call.operands) if v is arg]
        index_args = [a for a in callee.args if getattr(a.type, "is_index", False)]
        # { [caller ivs] -> P[callee index arguments] }, on the call's domain
        binding = isl.Map.from_domain_and_range(dom, isl.Set.universe(
            isl.Space.set_alloc(CTX, 0, 0))).set_tuple_name(isl.dim_type.out, "P")
        for a in index_args:
            binding = binding.flat_range_product(
                isl.Map.from_pw_aff(frame.value(call.operands[a.index])).intersect_domain(dom))
        binding = binding.set_tuple_name(isl.dim_type.out, "P")
        prefix = _schedule(call)
        out: list[list[isl.Map]] = [[], []]
        exact = True
        for p in positions:
            r, w, ex = self.relations(callee, p)
            exact = exact and ex
            for which, rel in enumerate((r, w)):
                # [P] -> { T[t] -> Mg[a] }  ->  { P[p] -> [T[t] -> Mg[a]] }
                wrapped = rel.wrap()
                if index_args:
                    for a in index_args:
                        wrapped = _ensure_param(wrapped, isl_name(a))
                    bound = wrapped.unbind_params_insert_domain(
                        _param_ids(wrapped, [isl_name(a) for a in index_args], binding.get_space().range()))
                else:
                    bound = isl.Map.from_domain_and_range(
                        isl.Set.universe(isl.Space.set_alloc(CTX, 0, 0)).set_tuple_name("P"), wrapped)
                # { [caller ivs] -> [T[t] -> Mg[a]] } -> { [[caller ivs] -> T[t]] -> Mg[a] }
                nested = binding.apply_range(bound).uncurry()
                nested = nested.apply_domain(_nest_map(tuple(map(str, prefix)), len(frame.dims),
                                                       rel.dim(isl.dim_type.in_)))
                out[which].append(nested.set_tuple_name(isl.dim_type.out, isl_name(arg)))
        rank = _rank(arg)
        return _union(out[0], isl_name(arg), rank), _union(out[1], isl_name(arg), rank), exact


def _param_ids(s: isl.Set, names: list[str], space: isl.Space) -> isl.MultiId:
    """The isl ids of `s`'s parameters `names` (ids compare by identity: take the set's own),
    as a multi id over `space`."""
    ids = isl.IdList.alloc(CTX, len(names))
    for name in names:
        ids = ids.add(s.get_dim_id(isl.dim_type.param, s.find_dim_by_name(isl.dim_type.param, name)))
    return isl.MultiId.from_id_list(space, ids)


def _ensure_param(s: isl.Set, name: str) -> isl.Set:
    if s.find_dim_by_name(isl.dim_type.param, name) >= 0:
        return s
    return s.align_params(isl.Space.create_from_names(CTX, set=[], params=[name]))


def _sides(op: Operation) -> Iterator[tuple[str, bool, Value]]:
    if isinstance(op, AffineLoadOp):
        yield "", False, op.memref
    elif isinstance(op, AffineStoreOp):
        yield "", True, op.memref
    elif isinstance(op, AffineDmaStartOp):
        yield "src", False, op.src
        yield "dst", True, op.dst
    # dma_wait and dealloc touch no element of a data memref (a tag is not data)


def _schedule(op: Operation) -> list[int | str]:
    """The 2d+1 schedule of `op` inside its function: block positions, with `d<k>` (frame dim k,
    the k-th enclosing loop's IV) after each loop's position."""
    levels: list[tuple[int, Operation]] = []
    node = op
    while node.parent_block is not None and not isinstance(node.parent_op, FuncOp):
        levels.append((node.parent_block.index_of(node), node))
        node = node.parent_op  # type: ignore[assignment]
    if node.parent_block is not None:
        levels.append((node.parent_block.index_of(node), node))
    terms: list[int | str] = []
    depth = 0
    for pos, anc in reversed(levels):
        terms.append(pos)
        if anc is not op:
            if isinstance(anc, AffineForOp):
                terms.append(f"d{depth}")
                depth += 1
            else:
                terms.append(0)
    return terms


def _time_map(op: Operation, side: str) -> isl.Map:
    """`{ [ivs] -> T[schedule of op, side order] }`"""
    terms = [*_schedule(op), 1 if side == "dst" else 0]
    return _text_map(len(enclosing_loops(op)), tuple(map(str, terms)))


@functools.lru_cache(maxsize=1024)
def _text_map(n_dims: int, terms: tuple[str, ...]) -> isl.Map:
    dims = ", ".join(f"d{k}" for k in range(n_dims))
    return isl.Map.read_from_str(CTX, f"{{ [{dims}] -> {TIME}[{', '.join(terms)}] }}")


@functools.lru_cache(maxsize=1024)
def _nest_map(prefix: tuple[str, ...], n_outer: int, n_inner: int) -> isl.Map:
    """`{ [[outer ivs] -> T[t]] -> T[prefix, t] }`: a callee's schedule under its call's."""
    outer = ", ".join(f"d{k}" for k in range(n_outer))
    inner = ", ".join(f"t{k}" for k in range(n_inner))
    sep = ", " if inner else ""
    return isl.Map.read_from_str(
        CTX, f"{{ [[{outer}] -> {TIME}[{inner}]] -> {TIME}[{', '.join(prefix)}{sep}{inner}] }}")


@functools.lru_cache(maxsize=1024)
def _pad_map(n: int, to: int) -> isl.Map:
    """`{ T[t0..t(n-1)] -> T[t0..t(n-1), 0, ...] }` (to terms): a shorter schedule padded."""
    ts = [f"t{k}" for k in range(n)]
    padded = ", ".join(ts + ["0"] * (to - n))
    return isl.Map.read_from_str(CTX, f"{{ {TIME}[{', '.join(ts)}] -> {TIME}[{padded}] }}")


def _padded(m: isl.Map, to: int) -> isl.Map:
    n = m.dim(isl.dim_type.in_)
    return m if n == to else m.apply_domain(_pad_map(n, to))


def _rank(v: Value) -> int:
    mt = v.type
    return mt.rank if isinstance(mt, MemRefType) else 0


def _union(maps: list[isl.Map], name: str, rank: int) -> isl.Map:
    """The union of `{ T[t] -> M[a] }` maps, each schedule padded with zeros to the longest
    (2d+1 schedules of different depths then compare lexicographically in program order)."""
    if not maps:
        dims = ", ".join(f"a{k}" for k in range(rank))
        return isl.Map.read_from_str(CTX, f"{{ {TIME}[] -> {name}[{dims}] : false }}")
    longest = max(m.dim(isl.dim_type.in_) for m in maps)
    out = None
    for m in maps:
        m = _padded(m, longest)
        out = m if out is None else out.union(m)
    assert out is not None
    return out.coalesce()


__all__ = ["ArgumentTraffic", "CompulsoryTraffic", "compulsory_traffic"]
