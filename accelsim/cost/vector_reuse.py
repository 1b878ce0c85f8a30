"""The vector unit's register file: how many memory accesses a kernel's loads and stores make
on the lanes, for the SRAM bytes, the SRAM bound and the bank streams (`accelsim.cost.kernel`,
`accelsim.cost.kernel_streams`, `accelsim.compile.tile_model`). One home for those counts.

`compute.vector_registers` registers, each `compute.lanes` elements wide. A vector op runs
`lanes` consecutive iterations of an access's innermost enclosing loop L0. Per access, with
its enclosing loops L0 (innermost), L1, ... of trip counts t0, t1, ... and address steps
(elements of the linearized row-major index per iteration) c0, c1, ...:

- *held*: the access is invariant along loop L_z (c_z = 0, t_z > 1; z the first such loop
  from the inside) and in every loop out to L_g (the next loop with c != 0 and t > 1): its
  values over the loops inside L_z are kept in registers across L_z .. L_{g-1}, loaded (or
  stored) once per iteration of the loops outside. It needs ceil(t0 / lanes) * t1 * ... *
  t_{z-1} registers (one for z = 0: a scalar) and gets them when they fit in the registers
  left; accesses are allocated innermost-first (by z, then program order). A load and a
  store of the same address in the same loops share their registers (an accumulator held
  across its reduction loop is read once and written once). Accesses: t0 * ... * t_{z-1} *
  t_g * ... (every enclosing trip count but those of the loops it is held across).
- *broadcast*: otherwise, an access with c0 = 0 is one scalar access per vector op:
  ceil(t0 / lanes) * t1 * t2 * ... accesses.
- *each*: otherwise one access per execution, t0 * t1 * ... (the model without a register
  file, `vector_registers = 0`, for every access).

The counts need a rectangular kernel's trip counts (`accelsim.cost.kernel_shape`) and static
memref shapes with linear indices; otherwise (None) callers keep one access per execution.
No access is counted below its distinct footprint (it is invariant along the loops it is held
across, so its addresses depend only on the others) nor above its executions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.ir.affine_expr import AffineExpr, Binary, Dim, Sym
from compiler.ir.affine_map import AffineMap
from compiler.ir.analysis_cache import ObjectCache
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp
from compiler.ir.types import MemRefType, row_major_strides

Stream = tuple[int, int, int, int, int, int]  # as accelsim.cost.sram_banks.Stream


@dataclass(frozen=True, slots=True)
class Access:
    """One `affine.load` / `affine.store`, argument-value independent."""

    loops: tuple[int, ...]   # enclosing loops by walk index, innermost first
    steps: tuple[int, ...]   # address step (elements) along each of them, signed
    ebytes: int
    space: int
    store: bool
    group: int               # accesses of one address in the same loops share a group


@dataclass(frozen=True, slots=True)
class Counted:
    """An access's count in one call and its SRAM stream (`accelsim.cost.sram_banks`)."""

    access: Access
    kind: str                # "held" | "broadcast" | "each"
    count: int               # memory accesses
    stream: Stream | None    # None: no access at all (a loop of trip 0)

    @property
    def bytes(self) -> int:
        return self.count * self.access.ebytes


# per kernel: (None,) -> its accesses, (trips, lanes, registers) -> a call's plan
_PER_FUNC: ObjectCache[dict[tuple[object, ...], list | None]] = \
    ObjectCache("vector_reuse accesses and plans")  # type: ignore[type-arg]


def accesses(func: FuncOp) -> list[Access] | None:
    """Every load/store of `func` in walk order, or None (a dynamic shape, a non-linear index)."""
    table = _PER_FUNC.table(func)
    if (None,) in table:
        return table[(None,)]
    out = table[(None,)] = _read(func)
    return out


def plan(func: FuncOp, trips: Sequence[int], lanes: int, registers: int) -> list[Counted] | None:
    """Each access's count for one call with these loop trip counts (walk order)."""
    key = (tuple(trips), lanes, registers)
    table = _PER_FUNC.table(func)
    if key in table:
        return table[key]
    acc = accesses(func)
    out = table[key] = None if acc is None else _plan(acc, trips, lanes, registers)
    return out


def bytes_by_space(func: FuncOp, trips: Sequence[int], lanes: int, registers: int
                   ) -> dict[int, int] | None:
    """Bytes loaded + stored per memory space under the register model, or None."""
    counted = plan(func, trips, lanes, registers)
    if counted is None:
        return None
    out: dict[int, int] = {}
    for c in counted:
        sp = c.access.space
        out[sp] = out.get(sp, 0) + c.bytes
    return out


def streamed_bytes_per_point(func: FuncOp, space: int, depth: int) -> int | None:
    """A lower bound on the bytes per iteration of a `depth`-deep band under any register
    file and any trip counts: the accesses in `space` inside all `depth` loops whose address
    moves along every one of them (no register can hold them, no vector op broadcasts them);
    None when the accesses cannot be read."""
    acc = accesses(func)
    if acc is None:
        return None
    return sum(a.ebytes for a in acc
               if a.space == space and len(a.loops) >= depth and all(a.steps))


def _plan(acc: list[Access], trips: Sequence[int], lanes: int, registers: int) -> list[Counted]:
    # the reuse each group of accesses could get: (z, g, registers needed)
    options: dict[int, tuple[int, int, int]] = {}
    if registers > 0:
        for a in acc:
            if a.group in options:
                continue
            t = [trips[i] for i in a.loops]
            z = next((k for k, (c, n) in enumerate(zip(a.steps, t, strict=True)) if not c and n > 1),
                     None)
            if z is None:
                continue
            g = z + 1
            while g < len(t) and (not a.steps[g] or t[g] <= 1):
                g += 1
            need = 1 if z == 0 else -(-t[0] // lanes) * math.prod(t[1:z])
            options[a.group] = (z, g, need)
    held: dict[int, tuple[int, int]] = {}
    left = registers
    for grp, (z, g, need) in sorted(options.items(), key=lambda kv: (kv[1][0], kv[0])):
        if need <= left:  # innermost-first: the reuse of the innermost loops comes first
            left -= need
            held[grp] = (z, g)
    out: list[Counted] = []
    for a in acc:
        t = [trips[i] for i in a.loops]
        eb = a.ebytes
        steps = [abs(c) * eb for c in a.steps]
        execs = math.prod(t)
        if a.group in held:
            z, g = held[a.group]
            outer = math.prod(t[g:])
            if z == 0:
                count = outer
                stream: Stream = (1, eb, 0, 1, outer, steps[g] if g < len(t) else 0)
            else:
                reps = math.prod(t[1:z]) * outer
                count = t[0] * reps
                ostep = steps[1] if z >= 2 else (steps[g] if g < len(t) else 0)
                stream = (t[0], eb, steps[0], lanes, reps, ostep)
            out.append(Counted(a, "held", count, stream if count else None))
            continue
        inner = t[0] if t else 1
        outer = math.prod(t[1:])
        stream = (inner, eb, steps[0] if t else 0, lanes if t else 1, outer,
                  steps[1] if len(t) > 1 else 0)
        if registers > 0 and t and not a.steps[0] and t[0] > 1:
            count = -(-t[0] // lanes) * outer
            out.append(Counted(a, "broadcast", count, stream if count else None))
        else:
            out.append(Counted(a, "each", execs, stream if execs else None))
    return out


def _read(func: FuncOp) -> list[Access] | None:
    index: dict[int, int] = {}
    for op in func.walk():
        if isinstance(op, AffineForOp):
            index[id(op)] = len(index)
    groups: dict[tuple[object, ...], int] = {}
    out: list[Access] = []
    for op in func.walk():
        if not isinstance(op, AffineLoadOp | AffineStoreOp):
            continue
        t = op.memref.type
        if not isinstance(t, MemRefType) or not t.has_static_shape:
            return None
        # the kernel's loops only (a nest costed in place has more around it: values there)
        loops = [a for a in op.ancestors() if isinstance(a, AffineForOp) and id(a) in index]
        steps = [0] * len(loops)
        m = op.map
        at = {id(lp.iv): k for k, lp in enumerate(loops)}
        strides = row_major_strides(tuple(t.shape))  # type: ignore[arg-type]
        indices = op.indices
        for form, st in zip(_forms(m), strides, strict=True):
            if form[0] is None:
                if any(id(indices[p]) in at for p in form[1]):
                    return None  # a non-linear function of an induction variable
                continue  # reads no induction variable: the same along every loop
            for p, c in form[0]:
                k = at.get(id(indices[p]))
                if k is not None:
                    steps[k] += c * st * loops[k].step
        where = tuple(index[id(a)] for a in loops)
        gkey = (id(op.memref), m, tuple(id(v) for v in op.indices), where)
        grp = groups.setdefault(gkey, len(groups))
        out.append(Access(where, tuple(steps), t.element.byte_width, t.memory_space,
                          isinstance(op, AffineStoreOp), grp))
    return out


# per map: each result as ((operand position, coefficient) for its nonzero coefficients, ())
# when linear, else (None, the positions it reads)
_FORMS: ObjectCache[tuple[tuple[tuple[tuple[int, int], ...] | None, frozenset[int]], ...]] = \
    ObjectCache("vector_reuse linear forms per map")


def _forms(m: AffineMap) -> tuple[tuple[tuple[tuple[int, int], ...] | None, frozenset[int]], ...]:
    hit = _FORMS.get(id(m))
    if hit is not None:
        return hit
    out = []
    for r in m.results:
        lin = r.linear_coeffs(m.num_dims, m.num_symbols)
        if lin is None:
            out.append((None, frozenset(_positions(r, m.num_dims))))
        else:
            out.append((tuple((p, c) for p, c in enumerate([*lin[0], *lin[1]]) if c),
                        frozenset()))
    return _FORMS.put(m, tuple(out))


def _positions(e: AffineExpr, nd: int) -> set[int]:
    """The operand positions (dims, then symbols) `e` reads."""
    if isinstance(e, Binary):
        return _positions(e.lhs, nd) | _positions(e.rhs, nd)
    if isinstance(e, Dim):
        return {e.pos}
    if isinstance(e, Sym):
        return {nd + e.pos}
    return set()


def clear_caches() -> None:
    _PER_FUNC.clear()
    _FORMS.clear()
