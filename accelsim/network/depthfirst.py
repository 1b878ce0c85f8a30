"""Depth-first fused groups: an intermediate too large for the on-chip level lives there as the
band of rows its consumer needs.

A *banded* group (`Group.band_rows` > 0) is a chain of linked kernels computed band by band:
the last kernel's output is cut into bands of `band_rows` rows, and for each band, from the
last kernel back to the first, the rows each kernel must produce are derived from the row
indices of its consumer's accesses (the halo: a 3x3 stride-1 convolution needs two more input
rows than it writes, stride 2 twice as many). Every band then runs every kernel of the group
in order, restricted to its rows:

- an intermediate is a `memref.alloc` in the fast space holding only the band's rows (indexed
  from the band's first row), made before its producer and freed after its consumer; halo
  rows are *recomputed* by each band that needs them (no row is carried from one band to the
  next), so a group of convolutions does more MACs than layer-by-layer, counted by the run;
- the group's input rows (and any other operand read row by row, e.g. a residual) are DMA'd
  from DRAM into a fast band buffer, halo rows included (read again by the next band), and the
  last kernel's band is DMA'd out to DRAM;
- operands not read row by row (weights) stay DRAM arguments the compiled kernel streams
  itself, once per band: those re-reads are in the run's DRAM bytes.

Each band's kernel is its workload's own loop nest (a 1-D elementwise kernel first lifted to
the shape of the tensor it reads or writes) with its row loop restricted to the band and
shifted to start at 0, its band operands retyped to the band's shape: an interior band's
kernel is the same program for every band and is compiled once, by the accelerator pipeline
(tile search, copies, pipelining, race proof) for the capacity its band buffers leave. The
whole group function is then proven race-free and simulated as any fused group
(`accelsim.network.fused.run_group`).

`band_budget.band_plan` chooses the band: the tallest band (fewest bands: fewest weight re-reads and
least recomputation) whose buffers leave every kernel `MIN_TILE_KIB` of the level for its own
tiles, within `RESIDENT_SHARE` of it; the grouping's analytic estimate then keeps the group
only when it is no slower than layer-by-layer and moves fewer DRAM bytes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accelsim.network.band_copies import Axis, copy_rows, rows_nest
from accelsim.network.links import Link, kernel_args
from compiler.diagnostics import AccelsimError

if TYPE_CHECKING:
    from accelsim.network.group_model import Group, GroupProgram, _Plan


class NotBandable(AccelsimError):
    """A kernel or link the depth-first transform cannot cut into row bands (says why)."""


def row_dim(shape: Sequence[int]) -> int | None:
    """The dimension of a tensor that bands cut: H of a batch-1 NCHW tensor, the rows of a
    matrix; None for any other shape."""
    if len(shape) == 4 and shape[0] == 1:
        return 2
    if len(shape) == 2:
        return 0
    return None


def _merges(img: Sequence[int], flat: Sequence[int]) -> bool:
    """`flat` is batch-1 NCHW `img` with its pixels in one dimension: (C, H*W)."""
    return len(img) == 4 and img[0] == 1 and len(flat) == 2 and flat[0] == img[1] \
        and flat[1] == img[2] * img[3]


def view(plan: _Plan, ln: Link) -> tuple[int, ...] | None:
    """The shape `ln`'s tensor is banded in (the consumer's; the producer's when the consumer
    reads it flat; the (C, H*W) one when one side is that of the other's NCHW); None when
    neither has rows."""
    a = kernel_args(plan.flat[ln.producer][1].workload)
    b = kernel_args(plan.flat[ln.consumer][1].workload)
    cs, ps = b.shapes[b.index(ln.in_arg)], a.shapes[a.index(ln.out_arg)]
    if ln.pad:
        return cs if row_dim(cs) is not None else None
    if row_dim(cs) is not None and (len(ps) == 1 or ps == cs):
        return cs
    if row_dim(ps) is not None and len(cs) == 1:
        return ps
    if _merges(ps, cs):
        return cs
    if _merges(cs, ps):
        return ps
    return None


def _width(plan: _Plan, ln: Link) -> int | None:
    """The image width of `ln`'s tensor when it is (or is seen as) a batch-1 NCHW image."""
    a = kernel_args(plan.flat[ln.producer][1].workload)
    b = kernel_args(plan.flat[ln.consumer][1].workload)
    for s in (b.shapes[b.index(ln.in_arg)], a.shapes[a.index(ln.out_arg)]):
        if len(s) == 4 and s[0] == 1:
            return s[3]
    return None


def widths(plan: _Plan, chain: Sequence[tuple[int, Link | None, Link | None]]) -> list[int | None]:
    """Per kernel of a chain, the image width its (C, H*W) operands are banded by (the nearest
    link's that is an image: a 1x1 convolution run as a gemm keeps the pixels); None in a
    chain of matrices (rows are rows)."""
    lws = [_width(plan, lout) if lout is not None else None for _, _, lout in chain[:-1]]
    known = [i for i, w in enumerate(lws) if w is not None]
    out: list[int | None] = []
    for n in range(len(chain)):
        near = sorted(known, key=lambda i: min(abs(i - n), abs(i - (n - 1))))
        out.append(lws[near[0]] if near else None)
    return out




def axis(shape: Sequence[int], width: int | None) -> Axis | None:
    """How bands cut a tensor of `shape`: an NCHW image's rows, a (C, H*W) image's pixel
    dimension `width` at a time, a matrix's rows."""
    if len(shape) == 4 and shape[0] == 1:
        return (2, 1)
    if len(shape) == 2:
        return (1, width) if width else (0, 1)
    return None


def _merge_maps(func: Any, name: str, shape: tuple[int, ...]) -> None:
    """Argument `name` (a batch-1 NCHW image) read or written as its (C, H*W) view `shape`:
    [0, c, h, w] -> [c, h * W + w], linear."""
    from compiler.ir.ops.affine import AffineLoadOp, AffineStoreOp
    from compiler.ir.types import FunctionType, MemRefType

    arg = func.args[func.arg_names().index(name)]
    w = arg.type.shape[3]
    arg.type = MemRefType(tuple(shape), arg.type.element, arg.type.memory_space)
    for op in func.walk():
        if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is arg:
            r = op.map.results
            op.map = op.map.with_results([r[1], r[2] * w + r[3]])
    func.function_type = FunctionType(tuple(a.type for a in func.args), func.function_type.results)


# -------------------------------------------------------------------------------------------
# one kernel, one band

@dataclass
class BandKernel:
    """Kernel `p` restricted to one band: `module` its band program as written; `fast`: its
    band operands (argument -> full rows [lo, hi) of the tensor they hold); `out`: its output
    argument; `dram`: its other arguments (read whole from DRAM); `full`: the full type of
    every band operand read from or written to DRAM; `zero`: its output starts at zero."""

    p: int
    module: Any
    func_name: str
    fast: dict[str, tuple[int, int]]
    link_in: str | None
    out: str
    dram: tuple[str, ...]
    full: dict[str, Any]
    zero: bool
    resident: int
    computed: tuple[int, int] = (0, 0)   # the output rows it computes this band
    axes: dict[str, Axis] = field(default_factory=dict)   # how bands cut each band operand
    idle: bool = False   # computes nothing this band (its windows stay as they were)
    no_input: bool = False   # reads no row of its linked input this band


_FRESH: dict[Any, tuple[Any, str]] = {}


def _fresh(plan: _Plan, p: int, lin: Link | None, lout: Link | None,
           width: int | None) -> tuple[Any, Any, str]:
    """Kernel p's module as its workload builds it, lifted / retyped to the banded views (a
    copy: the same kernel in the same views is built once)."""
    key = (plan.flat[p][1].workload, lin and (lin.in_arg, view(plan, lin)),
           lout and (lout.out_arg, lout.pad, view(plan, lout)), width)
    if key not in _FRESH:
        if len(_FRESH) > 256:
            _FRESH.clear()
        module, _, name = _build(plan, p, lin, lout, width)
        _FRESH[key] = (module, name)
    module, name = _FRESH[key]
    module = module.clone()
    return module, next(f for f in module.funcs if f.sym_name == name), name


def _build(plan: _Plan, p: int, lin: Link | None, lout: Link | None,
           width: int | None) -> tuple[Any, Any, str]:
    import workloads
    from accelsim.network.group_model import _retype

    spec = plan.flat[p][1].workload
    w = workloads.get(spec)
    module = w.module()
    func = next(f for f in module.funcs if f.sym_name == w.func_name)
    vin = view(plan, lin) if lin is not None else None
    vout = view(plan, lout) if lout is not None else None
    if (lin is not None and vin is None) or (lout is not None and vout is None):
        raise NotBandable(f"{spec}: a linked tensor has no rows")
    shapes = [tuple(a.type.shape) for a in func.args]
    if all(len(s) == 1 for s in shapes):  # elementwise: lifted to the shape it is read in
        views = [v for v in (vin, vout) if v is not None]
        if not views:
            raise NotBandable(f"{spec}: flat and linked to nothing with rows")
        target = next((v for v in views if len(v) == 4), None)
        if target is None and width and len(views[0]) == 2 and views[0][1] % width == 0:
            target = (1, views[0][0], views[0][1] // width, width)
        target = target or views[0]
        _lift(func, target)
        for ln, v, name in ((lin, vin, lin and lin.in_arg), (lout, vout, lout and lout.out_arg)):
            if ln is not None and v != target:
                if not _merges(target, v):
                    raise NotBandable(f"{spec}: its input and output are banded in different shapes")
                _merge_maps(func, name, v)
        return module, func, w.func_name
    if lin is not None:
        i = tuple(func.args[func.arg_names().index(lin.in_arg)].type.shape)
        if _merges(i, vin):
            _merge_maps(func, lin.in_arg, vin)
        elif i != vin:
            raise NotBandable(f"{spec}: reads its input in another shape")
    if lout is not None:
        o = tuple(func.args[func.arg_names().index(lout.out_arg)].type.shape)
        if lout.pad:
            _retype(func, lout.out_arg, vout, None, lout.pad)
        elif _merges(o, vout):
            _merge_maps(func, lout.out_arg, vout)
        elif o != vout:
            raise NotBandable(f"{spec}: writes its output in another shape")
    return module, func, w.func_name


def _lift(func: Any, shape: tuple[int, ...]) -> None:
    """A 1-D elementwise kernel (one loop over N, every access `[i]`) as a nest over `shape`
    (same element order), its arguments of that shape."""
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops.affine import AffineForOp, AffineLoadOp, AffineStoreOp, AffineYieldOp
    from compiler.ir.types import FunctionType, MemRefType

    loops = [op for op in func.body.ops if isinstance(op, AffineForOp)]
    n = math.prod(shape)
    if len(loops) != 1 or loops[0].constant_lower != 0 or loops[0].constant_upper != n \
            or loops[0].step != 1:
        raise NotBandable(f"{func.sym_name}: not one loop over {n} elements")
    (loop,) = loops
    for op in loop.body.walk():
        if isinstance(op, AffineForOp):
            raise NotBandable(f"{func.sym_name}: a nested loop")
        if loop.iv in op.operands and not (
                isinstance(op, AffineLoadOp | AffineStoreOp) and op.indices == [loop.iv]
                and op.map.is_identity):
            raise NotBandable(f"{func.sym_name}: {op.NAME} uses the index other than as [i]")
    for a in func.args:
        a.type = MemRefType(shape, a.type.element, a.type.memory_space)
    func.function_type = FunctionType(tuple(a.type for a in func.args), func.function_type.results)
    # [ shape ] -> { S[d0, ..., dk] -> X[d0, ..., dk] }: the same elements, in the same order
    nest, inner, ivs = None, func.body, []
    for d in shape:
        f = AffineForOp(AffineMap.constant(0), [], AffineMap.constant(d), [])
        if nest is None:
            nest = f
            func.body.insert_before(loop, f)
        else:
            inner.append(f)
        ivs.append(f.iv)
        inner = f.body
    ident = AffineMap.identity(len(shape))
    mapping: dict[Any, Any] = {}
    for op in loop.body.ops:
        if isinstance(op, AffineYieldOp):
            continue
        new = inner.append(op.clone(mapping))
        if isinstance(new, AffineLoadOp | AffineStoreOp):
            new.set_access(new.memref, ident, ivs)
    body = nest.body
    while True:
        body.append(AffineYieldOp())
        sub = next((o for o in body.ops if isinstance(o, AffineForOp)), None)
        if sub is None:
            break
        body = sub.body
    loop.erase()


def _loop_of(v: Any) -> Any:
    from compiler.ir.core import BlockArgument
    from compiler.ir.ops.affine import AffineForOp

    if isinstance(v, BlockArgument):
        owner = v.block.parent_op
        if isinstance(owner, AffineForOp) and owner.iv is v:
            return owner
    return None


def _row_expr(op: Any, rd: int) -> tuple[dict[Any, int], int]:
    """The row index of access `op` as {loop value: coefficient} and a constant."""
    m = op.map
    got = m.results[rd].linear_coeffs(m.num_dims, m.num_symbols)
    if got is None:
        raise NotBandable(f"{op.NAME}: a row index not linear in its loops")
    dc, sc, c0 = got
    coeffs: dict[Any, int] = {}
    for v, c in zip(op.indices, [*dc, *sc]):
        if c:
            coeffs[v] = coeffs.get(v, 0) + c
    return coeffs, c0


def _range(loop: Any) -> tuple[int, int]:
    lo, hi = loop.constant_lower, loop.constant_upper
    if lo is None or hi is None:
        raise NotBandable("a loop without constant bounds")
    return lo, lo + loop.step * max(0, -((lo - hi) // loop.step) - 1)


def band_kernel(plan: _Plan, p: int, lin: Link | None, lout: Link | None,
                rows: tuple[int, int], fast_space: int, out_base: int | None = None,
                sizes: dict[str, int] | None = None, width: int | None = None) -> BandKernel:
    """Kernel p (its group links `lin` / `lout`) restricted to output rows `rows` = [a, b)
    of its output (as written: a padded consumer's coordinates), its output buffer holding
    rows from `out_base` (default a); `sizes`: the rows of each band buffer (default: the
    rows the band reads or writes); `width`: the image width of its (C, H*W) operands."""
    from compiler.ir.ops.affine import AffineForOp, AffineLoadOp, AffineStoreOp
    from compiler.ir.types import FunctionType, MemRefType

    module, func, fname = _fresh(plan, p, lin, lout, width)
    a_out = kernel_args(plan.flat[p][1].workload).outputs
    out = lout.out_arg if lout is not None else (a_out[0] if len(a_out) == 1 else None)
    if out is None:
        raise NotBandable(f"{plan.flat[p][1].workload}: more than one output")
    names = func.arg_names()
    args = dict(zip(names, func.args))
    full = {n: a.type for n, a in args.items()}
    axes = {n: axis(t.shape, width) for n, t in full.items()}
    if axes[out] is None:
        raise NotBandable(f"{plan.flat[p][1].workload}: its output has no rows")
    a, b = rows
    # 1. the row loop of each nest (the loop whose index, plus a constant, is the row its
    #    output stores write) restricted to the rows of the band
    restricted: list[tuple[Any, int]] = []
    for nest in [op for op in func.body.ops if isinstance(op, AffineForOp)]:
        found: set[tuple[Any, int, int]] = set()
        for op in nest.walk():
            if isinstance(op, AffineStoreOp) and op.memref is args[out]:
                found.add(_row_loop(op, axes[out], fname))
        if not found:
            raise NotBandable(f"{fname}: a loop nest that writes no output")
        if len(found) != 1:
            raise NotBandable(f"{fname}: its output rows come from more than one loop")
        ((loop, d, per_row),) = found
        lo, hi = _range(loop)
        if loop.step != 1:
            raise NotBandable(f"{fname}: a row loop of step {loop.step}")
        # per_row: the loop's index is the row (+ d); else it is the element (+ d) of a
        # dimension `unit` elements a row
        unit = 1 if per_row else axes[out][1]
        new_lo, new_hi = max(lo, a * unit - d), min(hi + 1, b * unit - d)
        if new_hi <= new_lo:
            nest.erase()
            continue
        _set_bounds(loop, new_lo, new_hi)
        restricted.append((loop, new_lo))
    # 2. the rows of every operand read row by row (its row index moves with a row loop):
    #    [ band ] -> { S[...] -> X[row] } over the restricted nests, as an interval
    row_loops = {loop for loop, _ in restricted}
    fast: dict[str, tuple[int, int]] = {}
    for name, arg in args.items():
        ax = axes[name]
        if name == out or ax is None:
            continue
        ext: list[int] = []
        for op in func.walk():
            if isinstance(op, AffineLoadOp) and op.memref is arg:
                coeffs, c0 = _row_expr(op, ax[0])
                if not any(_loop_of(v) in row_loops for v in coeffs):
                    if lin is not None and name == lin.in_arg:
                        # e.g. a gemm's reduction rows: every band needs all of them
                        raise NotBandable(f"{fname}: reads rows of {name} its band does not move")
                    continue
                lo_, hi_ = _interval(coeffs, c0, fname, name)
                ext += [lo_ // ax[1], hi_ // ax[1]]
        if ext:
            fast[name] = (min(ext), max(ext) + 1)
    idle = not restricted   # the band needs no row of this kernel's output it lacks
    no_input = lin is not None and lin.in_arg not in fast
    if lin is not None and lin.in_arg not in fast:
        # this band reads none of it (a padding's border rows only): the producer's window
        # stays as it was
        f0 = workloads_func(plan, p)
        a0 = f0.args[f0.arg_names().index(lin.in_arg)]
        if not any(isinstance(op, AffineLoadOp) and op.memref is a0 for op in f0.walk()):
            raise NotBandable(f"{fname}: its linked input is not read row by row")
        fast[lin.in_arg] = (0, 0)
    # 3. band operands retyped to their band (rows from the band's first), in the fast space
    fast[out] = (a if out_base is None else out_base, b)
    for name, (lo, hi) in fast.items():
        arg = args[name]
        t = arg.type
        r, unit = axes[name]  # type: ignore[misc]
        shape = list(t.shape)
        shape[r] = max(1, hi - lo, (sizes or {}).get(name, 0)) * unit
        arg.type = MemRefType(tuple(shape), t.element, fast_space)
        for op in func.walk():
            if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is arg:
                res = list(op.map.results)
                res[r] = res[r] - lo * unit
                op.map = op.map.with_results(res)
    func.function_type = FunctionType(tuple(x.type for x in func.args), func.function_type.results)
    # 4. every row loop from 0: the same program for every interior band
    for loop, lo in restricted:
        _shift(loop, lo)
    from accelsim.network.group_model import _accumulates

    zero = bool(lout is not None and lout.pad) or _accumulates(plan.flat[p][1].workload, out)
    resident = sum(math.prod(args[n].type.shape) * args[n].type.element.bitwidth // 8 for n in fast)
    dram = tuple(n for n in names if n not in fast)
    return BandKernel(p, module, fname, fast, lin.in_arg if lin is not None else None, out, dram,
                      {n: full[n] for n in fast}, zero, resident, (a, b),
                      {n: axes[n] for n in fast}, idle, no_input)  # type: ignore[misc]


def _row_loop(op: Any, ax: Axis, fname: str) -> tuple[Any, int, bool]:
    """The loop an output store's row moves with: (loop, d, True) when the row is the loop's
    index + d, (loop, d, False) when the element of the banded dimension is (a dimension of
    `unit` elements a row, indexed by one loop alone)."""
    coeffs, c0 = _row_expr(op, ax[0])
    unit = ax[1]
    if unit == 1:
        if len(coeffs) != 1 or next(iter(coeffs.values())) != 1:
            raise NotBandable(f"{fname}: output rows not one loop index plus a constant")
        (v,) = coeffs
        loop = _loop_of(v)
        if loop is None:
            raise NotBandable(f"{fname}: output rows not a loop index")
        return loop, c0, True
    rows = [v for v, c in coeffs.items() if c == unit]
    if rows:
        rest = {v: c for v, c in coeffs.items() if v is not rows[0]}
        lo, hi = _interval(rest, c0, fname, "its output")
        loop = _loop_of(rows[0])
        if loop is None or lo // unit != hi // unit:
            raise NotBandable(f"{fname}: output rows not one loop index plus a constant")
        return loop, lo // unit, True
    if len(coeffs) == 1 and next(iter(coeffs.values())) == 1:
        loop = _loop_of(next(iter(coeffs)))
        if loop is not None:
            return loop, c0, False
    raise NotBandable(f"{fname}: output rows not one loop index plus a constant")


def _interval(coeffs: dict[Any, int], c0: int, fname: str, name: str) -> tuple[int, int]:
    lo, hi = c0, c0
    for v, c in coeffs.items():
        lp = _loop_of(v)
        if lp is None:
            raise NotBandable(f"{fname}: an index of {name} reads a non-loop value")
        x0, x1 = _range(lp)
        lo += min(c * x0, c * x1)
        hi += max(c * x0, c * x1)
    return lo, hi


def workloads_func(plan: _Plan, p: int) -> Any:
    """Kernel p's function as its workload builds it (the input `_fresh` checks against)."""
    import workloads

    w = workloads.get(plan.flat[p][1].workload)
    return next(f for f in w.module().funcs if f.sym_name == w.func_name)


def _set_bounds(loop: Any, lo: int, hi: int) -> None:
    from compiler.ir.affine_map import AffineMap

    loop.set_lower_bound(AffineMap.constant(lo), [])
    loop.set_upper_bound(AffineMap.constant(hi), [])


def _shift(loop: Any, lo: int) -> None:
    """Loop `loop` (from `lo`) from 0, its index read as `iv + lo` by every access."""
    from compiler.ir.affine_expr import Dim, Sym
    from compiler.ir.ops.affine import AffineLoadOp, AffineStoreOp

    if lo == 0:
        return
    hi = loop.constant_upper
    _set_bounds(loop, 0, hi - lo)
    iv = loop.iv
    for op in loop.body.walk():
        if iv not in op.operands:
            continue
        if not isinstance(op, AffineLoadOp | AffineStoreOp):
            raise NotBandable(f"{op.NAME} reads a row loop's index")
        m = op.map
        dims = [Dim(i) + lo if v is iv else Dim(i) for i, v in enumerate(op.indices[:m.num_dims])]
        syms = [Sym(j) + lo if v is iv else Sym(j)
                for j, v in enumerate(op.indices[m.num_dims:])]
        op.map = m.with_results([e.substitute(dims, syms) for e in m.results])


# -------------------------------------------------------------------------------------------
# the group's bands

def _chain(plan: _Plan, group: Group) -> list[tuple[int, Link | None, Link | None]]:
    ks = plan.kernels_of(group.first, group.last)
    by_p = {ln.producer: ln for ln in group.onchip}
    out = []
    for n, p in enumerate(ks):
        lin = by_p.get(ks[n - 1]) if n else None
        lout = by_p.get(p) if n + 1 < len(ks) else None
        if (n and lin is None) or (n + 1 < len(ks) and lout is None):
            raise NotBandable("a kernel of the group is not linked to the next")
        out.append((p, lin, lout))
    return out


def _out_rows(plan: _Plan, chain: list[tuple[int, Link | None, Link | None]]) -> int:
    p, lin, lout = chain[-1]
    bk = band_kernel(plan, p, lin, lout, (0, 1), plan.config.spaces.sram,
                     width=widths(plan, chain)[-1])
    r, unit = bk.axes[bk.out]
    return bk.full[bk.out].shape[r] // unit


@dataclass
class Layout:
    """A banded group: per band its kernels (first to last); per band buffer (a link's
    producer index, or (kernel position, argument) of a DRAM operand read row by row) the
    rows it holds in each band and its height (the tallest window)."""

    bands: list[list[BandKernel]]
    windows: dict[Any, list[tuple[int, int]]]
    height: dict[Any, int]
    out_rows: int      # the band of the last output


def _key(n: int, bk: BandKernel, name: str) -> Any:
    return ("link", bk.p) if name == bk.out else (n, name)


def layout(plan: _Plan, group: Group, height: int, limit: int | None = None) -> Layout:
    """Every band of `group` with `height` output rows (the first `limit` bands), halo rows
    reused: a kernel computes only the rows of its output the previous band did not (the
    window of each intermediate rolls down; its overlap is moved up, not recomputed), and
    only the new rows of the group's input are read from DRAM."""
    chain = _chain(plan, group)
    total = _out_rows(plan, chain)
    fast = plan.config.spaces.sram
    last = len(chain) - 1
    ws = widths(plan, chain)
    starts = list(range(0, total, height))[:limit]

    def walk(sizes: dict[Any, int] | None) -> tuple[list[list[BandKernel]], dict[Any, list]]:
        prev_hi: dict[Any, int] = {}
        windows: dict[Any, list[tuple[int, int]]] = {}
        out: list[list[BandKernel]] = []
        for a in starts:
            need = (a, min(total, a + height))   # rows of the current kernel's output needed
            ks: list[BandKernel] = []
            for n in range(last, -1, -1):
                p, lin, lout = chain[n]
                lo, hi = need
                new = lo if n == last else max(lo, prev_hi.get(("link", p), lo))
                sz = None
                if sizes is not None:
                    sz = {name: sizes[k] for k in sizes for name in [k[1]]
                          if isinstance(k[0], int) and k[0] == n}
                    if n < last:
                        sz[lout.out_arg] = sizes[("link", p)]  # type: ignore[union-attr]
                    if lin is not None:
                        sz[lin.in_arg] = sizes[("link", lin.producer)]
                bk = band_kernel(plan, p, lin, lout, (min(new, hi), hi), fast, lo, sz, ws[n])
                ks.append(bk)
                if n < last:
                    windows.setdefault(("link", p), []).append((lo, hi))
                    prev_hi[("link", p)] = hi
                for name, (l0, h0) in bk.fast.items():
                    if name in (bk.out, bk.link_in):
                        continue
                    k = (n, name)
                    windows.setdefault(k, []).append((l0, h0))
                if bk.idle:   # what it reads stays as the previous band left it
                    for k in [k for k in windows if isinstance(k[0], int) and k[0] == n]:
                        if len(windows[k]) < len(out) + 1:
                            windows[k].append(windows[k][-1] if windows[k] else (0, 0))
                if lin is not None:
                    need = bk.fast[lin.in_arg]
                    if bk.no_input:
                        prev = windows.get(("link", lin.producer))
                        need = prev[-1] if prev else (0, 0)
            out.append(ks[::-1])
        return out, windows

    _, windows = walk(None)
    for k, wins in windows.items():
        if any(b[0] < a[0] or b[1] < a[1] for a, b in itertools.pairwise(wins)):
            raise NotBandable(f"the rows of {k} do not move down band by band")
    sizes = {k: max(h - lo for lo, h in wins) for k, wins in windows.items()}
    done, windows = walk(sizes)
    return Layout(done, windows, sizes, height)


def bands(plan: _Plan, group: Group, height: int) -> list[list[BandKernel]]:
    """Every band of `group` with `height` output rows: its kernels, first to last."""
    return layout(plan, group, height).bands


def resident(plan: _Plan, lay: Layout) -> int:
    """Bytes of every band buffer (all live from the first band to the last, the output
    band's included)."""
    total = 0
    first = lay.bands[0]
    for k, rows in lay.height.items():
        total += rows * _row_bytes(plan, lay, k)
    last = first[-1]
    return total + _bytes_of(last.full[last.out], lay.out_rows, last.axes[last.out])


def _row_bytes(plan: _Plan, lay: Layout, k: Any) -> int:
    for n, bk in enumerate(lay.bands[0]):
        for name in bk.fast:
            if _key(n, bk, name) == k and not (name == bk.out and n == len(lay.bands[0]) - 1):
                return _bytes_of(bk.full[name], 1, bk.axes[name])
    raise KeyError(k)


def _bytes_of(t: Any, rows: int, ax: Axis) -> int:
    shape = list(t.shape)
    shape[ax[0]] = rows * ax[1]
    return math.prod(shape) * t.element.bitwidth // 8


def _loaded(bk: BandKernel, names: Sequence[str]) -> list[str]:
    """The arguments among `names` band kernel `bk` loads (a border-only band of a padding
    reads none of its input)."""
    from compiler.ir.ops.affine import AffineLoadOp

    f = _entry_func(bk.module, bk.func_name)
    args = {f.args[f.arg_names().index(n)]: n for n in names}
    return list(dict.fromkeys(args[op.memref] for op in f.walk()
                              if isinstance(op, AffineLoadOp) and op.memref in args))


def weights(plan: _Plan, lay: Layout) -> dict[tuple[int, str], int]:
    """Every operand a band kernel of `lay` reads whole from DRAM ((kernel position,
    argument) -> bytes)."""
    sizes: dict[tuple[int, str], int] = {}
    for band in lay.bands:
        for n, bk in enumerate(band):
            if not bk.idle:
                a = kernel_args(plan.flat[bk.p][1].workload)
                for name in _loaded(bk, bk.dram):
                    sizes[(n, name)] = a.nbytes(a.index(name))
    return sizes


def stationary(plan: _Plan, group: Group, lay: Layout) -> dict[tuple[int, str], int]:
    """The weights of banded `group` held in the fast level across its bands ((kernel
    position, argument) -> bytes): none unless `group.weights_onchip`; else every operand a
    band kernel reads whole from DRAM, smallest first, while they fit beside the band buffers
    (within `RESIDENT_SHARE` of the level, `MIN_TILE_KIB` left for the kernels' tiles)."""
    from accelsim.network.group_model import MIN_TILE_KIB, RESIDENT_SHARE, _capacity

    if not group.weights_onchip:
        return {}
    cap = _capacity(plan.config)
    live = resident(plan, lay)
    sizes = weights(plan, lay)
    held: dict[tuple[int, str], int] = {}
    for k, size in sorted(sizes.items(), key=lambda kv: (kv[1], kv[0])):
        if live + size <= RESIDENT_SHARE * cap and cap - live - size >= MIN_TILE_KIB * 1024:
            held[k] = size
            live += size
    return held


def full_layout(plan: _Plan, group: Group) -> Layout:
    """Every band of banded `group` (`layout` at its `band_rows`), made once per plan."""
    key = (group.first, group.last, group.band_rows)
    if key not in plan.layouts:
        plan.layouts[key] = layout(plan, group, group.band_rows)
    return plan.layouts[key]


def banded_modules(plan: _Plan, group: Group) -> GroupProgram:
    """The banded group as one program (`fused.GroupProgram`): its band buffers made once,
    then per band the new rows of its inputs DMA'd in (the overlap moved up), its kernels,
    its output band DMA'd out."""
    from accelsim.network.group_model import GroupProgram, _compile_band, _unique
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops import ModuleOp
    from compiler.ir.ops.affine import AffineForOp, AffineYieldOp
    from compiler.ir.ops.func import FuncOp, ReturnOp
    from compiler.ir.ops.memref import AllocOp, DeallocOp
    from compiler.ir.types import FunctionType, MemRefType

    lay = full_layout(plan, group)
    all_bands = lay.bands
    dram_space = plan.config.spaces.dram
    fast_space = plan.config.spaces.sram
    first = all_bands[0]
    used: set[str] = set()
    labels: dict[tuple[int, str], int] = {}
    arg_list: list[tuple[str, int, str]] = []
    arg_types: list[Any] = []
    for n, bk in enumerate(first):
        layer = plan.network.layers[plan.flat[bk.p][0]].name
        f = _entry_func(bk.module, bk.func_name)
        types = dict(zip(f.arg_names(), (a.type for a in f.args)))
        for name in f.arg_names():
            if name == bk.link_in or (name == bk.out and n + 1 < len(first)):
                continue
            if name in bk.fast:
                t = bk.full[name]
                t = MemRefType(tuple(t.shape), t.element, dram_space)
            else:
                t = types[name]
            labels[(n, name)] = len(arg_list)
            arg_list.append((_unique(f"{layer}.{name}", used), n, name))
            arg_types.append(t)
    names = [a for a, _, _ in arg_list]
    fns = {False: FuncOp("group", FunctionType(tuple(arg_types), ()), names),
           True: FuncOp("group", FunctionType(tuple(arg_types), ()), names)}
    mods = {False: ModuleOp(), True: ModuleOp()}
    helpers: dict[int, dict[str, str]] = {}
    held = stationary(plan, group, lay)
    live = resident(plan, lay) + sum(held.values())
    bufs: dict[bool, dict[Any, Any]] = {False: {}, True: {}}
    for compiled in (False, True):  # the band buffers, made once
        for n, bk in enumerate(first):
            for name in bk.fast:
                k = _key(n, bk, name)
                if name == bk.link_in or (n + 1 == len(first) and name == bk.out) \
                        or k in bufs[compiled]:
                    continue
                t = bk.full[name]
                shape = list(t.shape)
                r, unit = bk.axes[name]
                shape[r] = lay.height[k] * unit
                op = AllocOp(MemRefType(tuple(shape), t.element, fast_space),
                             name_hint=f"w{bk.p}_{name}")
                bufs[compiled][k] = fns[compiled].body.append(op).results[0]
        for n, name in held:   # the weights held on chip: read once, before the first band
            t = arg_types[labels[(n, name)]]
            op = AllocOp(MemRefType(tuple(t.shape), t.element, fast_space),
                         name_hint=f"wt{first[n].p}_{name}")
            buf = bufs[compiled][("weight", n, name)] = fns[compiled].body.append(op).results[0]
            copy_rows(fns[compiled], fns[compiled].body, fns[compiled].args[labels[(n, name)]], 0,
                      buf, 0, t.shape[0], compiled, plan.config.spaces.tag, True, (0, 1))
    peak = 0
    for b, band in enumerate(all_bands):
        # each band one nest of one iteration: the function's top block stays short
        nests = {c: fns[c].body.append(AffineForOp(AffineMap.constant(0), [],
                                                   AffineMap.constant(1), []))
                 for c in (False, True)}
        for n, bk in enumerate(band):
            if bk.idle:
                continue
            if any((n, name) in held for name in bk.dram):
                bk = _weights_in(bk, n, held, fast_space)
            done, own = _compile_band(plan, bk, live)
            peak = max(peak, live + own)
            for compiled in (False, True):
                _emit(fns[compiled], nests[compiled].body, mods[compiled], bk, n, len(band),
                      done if compiled else bk.module, labels, bufs[compiled], lay, b,
                      compiled, plan.config.spaces.tag, helpers)
        for c in (False, True):
            nests[c].body.append(AffineYieldOp())
    for compiled in (False, True):
        for v in bufs[compiled].values():
            fns[compiled].body.append(DeallocOp(v))
        fns[compiled].body.append(ReturnOp())
        mods[compiled].body.append(fns[compiled])
    return GroupProgram(mods[False], mods[True], peak,
                        tuple((label, first[n].p, name) for label, n, name in arg_list))


def _weights_in(bk: BandKernel, n: int, held: dict[tuple[int, str], int],
                fast_space: int) -> BandKernel:
    """Band kernel `bk` (position n) with its weights that are held on chip as arguments in
    the fast space: compiled, no copy moves them."""
    from dataclasses import replace

    from accelsim.network.group_model import _retype

    module = bk.module.clone()
    f = _entry_func(module, bk.func_name)
    for name in bk.dram:
        if (n, name) in held:
            _retype(f, name, None, fast_space, 0)
    return replace(bk, module=module)


def _entry_func(module: Any, name: str) -> Any:
    return next(f for f in module.funcs if f.sym_name == name)


def _emit(fn: Any, body: Any, mod: Any, bk: BandKernel, n: int, count: int, module: Any,
          labels: dict[tuple[int, str], int], bufs: dict[Any, Any], lay: Layout, b: int,
          compiled: bool, tag_space: int, helpers: dict[int, dict[str, str]]) -> None:
    """Append kernel `bk` of band `b` to `fn`: the overlap of its windows moved up and their
    new rows read (DMA) or zeroed, the kernel, its output band copied out (the last kernel)."""
    from accelsim.network.group_model import inline_entry
    from compiler.ir.ops.memref import AllocOp, DeallocOp

    entry = _entry_func(module, bk.func_name)
    key = id(module)
    store = helpers.setdefault(id(fn), {})
    renames: dict[str, str] = {}
    for f in module.funcs:
        if f is entry:
            continue
        tag = f"{key}:{f.sym_name}"
        if tag not in store:
            store[tag] = f"k{len(store)}_{f.sym_name}"
            g = f.clone()
            g.sym_name = store[tag]
            mod.body.append(g)
        renames[f.sym_name] = store[tag]
    mapping: dict[Any, Any] = {}
    last = n + 1 == count
    for a, name in zip(entry.args, entry.arg_names()):
        if name == bk.link_in:
            mapping[a] = bufs[("link", bk.p - 1)]
            continue
        if ("weight", n, name) in bufs:
            mapping[a] = bufs[("weight", n, name)]
            continue
        if name not in bk.fast:
            mapping[a] = fn.args[labels[(n, name)]]
            continue
        if last and name == bk.out:
            buf = body.append(AllocOp(a.type, name_hint=f"b{bk.p}_{name}")).results[0]
            mapping[a] = buf
            if bk.zero:
                ax = bk.axes[name]
                rows_nest(body, buf, None, 0, 0, a.type.shape[ax[0]] // ax[1], ax)
            continue
        k = _key(n, bk, name)
        buf = mapping[a] = bufs[k]
        lo, hi = lay.windows[k][b]
        keep = 0
        if b:
            plo, phi = lay.windows[k][b - 1]
            keep = max(0, phi - lo)
            if keep:   # the overlap with the previous band's window, moved to the top
                rows_nest(body, buf, buf, lo - plo, 0, keep, bk.axes[name])
        if name == bk.out:
            if bk.zero and hi - lo > keep:
                rows_nest(body, buf, None, 0, keep, hi - lo - keep, bk.axes[name])
        elif hi - lo > keep:
            copy_rows(fn, body, fn.args[labels[(n, name)]], lo + keep, buf, keep, hi - lo - keep,
                  compiled, tag_space, True, bk.axes[name])
    inline_entry(entry, body, mapping, renames)
    if not last:
        return
    out = mapping[entry.args[entry.arg_names().index(bk.out)]]
    lo, hi = bk.fast[bk.out]
    copy_rows(fn, body, fn.args[labels[(n, bk.out)]], lo, out, 0, hi - lo, compiled, tag_space,
          False, bk.axes[bk.out])
    body.append(DeallocOp(out))
