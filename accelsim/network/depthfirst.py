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

`band_plan` chooses the band: the tallest band (fewest bands: fewest weight re-reads and
least recomputation) whose buffers leave every kernel `MIN_TILE_KIB` of the level for its own
tiles, within `RESIDENT_SHARE` of it; the grouping's analytic estimate then keeps the group
only when it is no slower than layer-by-layer and moves fewer DRAM bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelsim.network.links import Link, kernel_args

if TYPE_CHECKING:
    from accelsim.network.fused import Group, GroupProgram, _Plan


class NotBandable(Exception):
    """A kernel or link the depth-first transform cannot cut into row bands (says why)."""


def row_dim(shape: Sequence[int]) -> int | None:
    """The dimension of a tensor that bands cut: H of a batch-1 NCHW tensor, the rows of a
    matrix; None for any other shape."""
    if len(shape) == 4 and shape[0] == 1:
        return 2
    if len(shape) == 2:
        return 0
    return None


def view(plan: _Plan, ln: Link) -> tuple[int, ...] | None:
    """The shape `ln`'s tensor is banded in (the consumer's, or the producer's when the
    consumer reads it flat); None when neither has rows."""
    a = kernel_args(plan.flat[ln.producer][1].workload)
    b = kernel_args(plan.flat[ln.consumer][1].workload)
    cs, ps = b.shapes[b.index(ln.in_arg)], a.shapes[a.index(ln.out_arg)]
    if ln.pad:
        return cs if row_dim(cs) is not None else None
    if row_dim(cs) is not None and (len(ps) == 1 or ps == cs):
        return cs
    if row_dim(ps) is not None and len(cs) == 1:
        return ps
    return None


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


def _fresh(plan: _Plan, p: int, lin: Link | None, lout: Link | None) -> tuple[Any, Any, str]:
    """Kernel p's module as its workload builds it, lifted / retyped to the banded views."""
    import workloads
    from accelsim.network.fused import _retype

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
        target = vin or vout
        if vin is not None and vout is not None and vin != vout:
            raise NotBandable(f"{spec}: its input and output are banded in different shapes")
        if target is None:
            raise NotBandable(f"{spec}: flat and linked to nothing with rows")
        _lift(func, target)
        return module, func, w.func_name
    if lin is not None and tuple(func.args[func.arg_names().index(lin.in_arg)].type.shape) != vin:
        raise NotBandable(f"{spec}: reads its input in another shape")
    if lout is not None:
        o = tuple(func.args[func.arg_names().index(lout.out_arg)].type.shape)
        if lout.pad:
            _retype(func, lout.out_arg, vout, None, lout.pad)
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
                rows: tuple[int, int], fast_space: int) -> BandKernel:
    """Kernel p (its group links `lin` / `lout`) restricted to output rows `rows` = [a, b)
    of its output (as written: a padded consumer's coordinates)."""
    from compiler.ir.ops.affine import AffineForOp, AffineLoadOp, AffineStoreOp
    from compiler.ir.types import FunctionType, MemRefType

    module, func, fname = _fresh(plan, p, lin, lout)
    a_out = kernel_args(plan.flat[p][1].workload).outputs
    out = lout.out_arg if lout is not None else (a_out[0] if len(a_out) == 1 else None)
    if out is None:
        raise NotBandable(f"{plan.flat[p][1].workload}: more than one output")
    names = func.arg_names()
    args = dict(zip(names, func.args))
    full = {n: a.type for n, a in args.items()}
    rd = row_dim(full[out].shape)
    if rd is None:
        raise NotBandable(f"{plan.flat[p][1].workload}: its output has no rows")
    a, b = rows
    # 1. the row loop of each nest (the loop whose index, plus a constant, is the row its
    #    output stores write) restricted to the rows of the band
    restricted: list[tuple[Any, int]] = []
    for nest in [op for op in func.body.ops if isinstance(op, AffineForOp)]:
        found: set[tuple[Any, int]] = set()
        for op in nest.walk():
            if isinstance(op, AffineStoreOp) and op.memref is args[out]:
                coeffs, c0 = _row_expr(op, rd)
                if len(coeffs) != 1 or next(iter(coeffs.values())) != 1:
                    raise NotBandable(f"{fname}: output rows not one loop index plus a constant")
                (v,) = coeffs
                found.add((_loop_of(v), c0))
        if not found:
            raise NotBandable(f"{fname}: a loop nest that writes no output")
        if len(found) != 1 or next(iter(found))[0] is None:
            raise NotBandable(f"{fname}: its output rows come from more than one loop")
        ((loop, d),) = found
        lo, hi = _range(loop)
        if loop.step != 1:
            raise NotBandable(f"{fname}: a row loop of step {loop.step}")
        new_lo, new_hi = max(lo, a - d), min(hi + 1, b - d)
        if new_hi <= new_lo:
            nest.erase()
            continue
        _set_bounds(loop, new_lo, new_hi)
        restricted.append((loop, new_lo))
    # 2. the rows of every operand read row by row (its row index moves with a row loop):
    #    [ band ] -> { S[...] -> X[row] } over the restricted nests, as an interval
    row_loops = {loop for loop, _ in restricted}
    fast: dict[str, tuple[int, int]] = {}
    rowwise: set[str] = set()
    for name, arg in args.items():
        if name == out:
            continue
        ext: list[int] = []
        r_arg = row_dim(full[name].shape)
        for op in func.walk():
            if isinstance(op, AffineLoadOp) and op.memref is arg and r_arg is not None:
                coeffs, c0 = _row_expr(op, r_arg)
                if not any(_loop_of(v) in row_loops for v in coeffs):
                    continue
                rowwise.add(name)
                lo_, hi_ = c0, c0
                for v, c in coeffs.items():
                    lp = _loop_of(v)
                    if lp is None:
                        raise NotBandable(f"{fname}: a row index of {name} reads a non-loop value")
                    x0, x1 = _range(lp)
                    lo_ += min(c * x0, c * x1)
                    hi_ += max(c * x0, c * x1)
                ext += [lo_, hi_]
        if name in rowwise:
            fast[name] = (min(ext), max(ext) + 1)
    if lin is not None and lin.in_arg not in fast:
        raise NotBandable(f"{fname}: its linked input is not read row by row")
    # 3. band operands retyped to their band (rows from the band's first), in the fast space
    fast[out] = (a, b)
    for name, (lo, hi) in fast.items():
        arg = args[name]
        t = arg.type
        r = row_dim(t.shape)
        shape = list(t.shape)
        shape[r] = max(1, hi - lo)
        arg.type = MemRefType(tuple(shape), t.element, fast_space)
        for op in func.walk():
            if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is arg:
                res = list(op.map.results)
                res[r] = res[r] - lo
                op.map = op.map.with_results(res)
    func.function_type = FunctionType(tuple(x.type for x in func.args), func.function_type.results)
    # 4. every row loop from 0: the same program for every interior band
    for loop, lo in restricted:
        _shift(loop, lo)
    from accelsim.network.fused import _accumulates

    zero = bool(lout is not None and lout.pad) or _accumulates(plan.flat[p][1].workload, out)
    resident = sum(math.prod(args[n].type.shape) * args[n].type.element.bitwidth // 8 for n in fast)
    dram = tuple(n for n in names if n not in fast)
    return BandKernel(p, module, fname, fast, lin.in_arg if lin is not None else None, out, dram,
                      {n: full[n] for n in fast}, zero, resident)


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
    p, lin, _ = chain[-1]
    a = kernel_args(plan.flat[p][1].workload)
    if len(a.outputs) != 1:
        raise NotBandable("the group's last kernel has more than one output")
    shape = a.shapes[a.index(a.outputs[0])]
    if len(shape) == 1 and lin is not None:
        shape = view(plan, lin) or shape
    r = row_dim(shape)
    if r is None:
        raise NotBandable("the group's output has no rows")
    return shape[r]


def bands(plan: _Plan, group: Group, height: int) -> list[list[BandKernel]]:
    """Every band of `group` with `height` output rows: its kernels, first to last."""
    chain = _chain(plan, group)
    total = _out_rows(plan, chain)
    fast = plan.config.spaces.sram
    out = []
    for a in range(0, total, height):
        rows = (a, min(total, a + height))
        ks: list[BandKernel] = []
        for p, lin, lout in reversed(chain):
            bk = band_kernel(plan, p, lin, lout, rows, fast)
            ks.append(bk)
            if lin is not None:
                rows = bk.fast[lin.in_arg]
        out.append(ks[::-1])
    return out


def band_plan(plan: _Plan, group: Group) -> int | None:
    """The tallest band of `group` whose buffers leave every kernel its tiles (module
    docstring); None when none does or the group cannot be banded."""
    from accelsim.network.fused import MIN_TILE_KIB, RESIDENT_SHARE, _capacity

    cap = _capacity(plan.config)
    try:
        chain = _chain(plan, group)
        total = _out_rows(plan, chain)
        fast = plan.config.spaces.sram
        tried: set[int] = set()
        for nb in range(2, total + 1):
            h = -(-total // nb)
            if h in tried:
                continue
            tried.add(h)
            ok = True
            # the largest buffers: a band away from the edges (no clipped halo)
            start = h * min(1, nb - 1)
            rows = (start, min(total, start + h))
            for p, lin, lout in reversed(chain):
                bk = band_kernel(plan, p, lin, lout, rows, fast)
                live = bk.resident
                if live > RESIDENT_SHARE * cap or cap - live < MIN_TILE_KIB * 1024:
                    ok = False
                    break
                if lin is not None:
                    rows = bk.fast[lin.in_arg]
            if ok:
                return h
    except NotBandable:
        return None
    return None


def banded_modules(plan: _Plan, group: Group) -> GroupProgram:
    """The banded group as one program (`fused.GroupProgram`): per band, its band buffers'
    allocs, the DMAs of its input rows in and output rows out, and its kernels."""
    from accelsim.network.fused import GroupProgram, _compile_band, _unique
    from compiler.ir.ops import ModuleOp
    from compiler.ir.ops.func import FuncOp, ReturnOp
    from compiler.ir.types import FunctionType, MemRefType

    all_bands = bands(plan, group, group.band_rows)
    dram_space = plan.config.spaces.dram
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
    src_f = FuncOp("group", FunctionType(tuple(arg_types), ()), names)
    run_f = FuncOp("group", FunctionType(tuple(arg_types), ()), names)
    src_mod, run_mod = ModuleOp(), ModuleOp()
    helpers: dict[int, dict[str, str]] = {}
    peak = 0
    for band in all_bands:
        prevs: dict[int, dict[str, Any]] = {id(src_f): {}, id(run_f): {}}
        for n, bk in enumerate(band):
            done, own = _compile_band(plan, bk)
            peak = max(peak, bk.resident + own)
            for fn, mod, compiled in ((src_f, src_mod, False), (run_f, run_mod, True)):
                _emit(fn, mod, bk, n, len(band), done if compiled else bk.module, labels, prevs[id(fn)],
                      compiled, plan.config.spaces.tag, helpers)
    for fn, mod in ((src_f, src_mod), (run_f, run_mod)):
        fn.body.append(ReturnOp())
        mod.body.append(fn)
    return GroupProgram(src_mod, run_mod, peak,
                        tuple((label, first[n].p, name) for label, n, name in arg_list))


def _entry_func(module: Any, name: str) -> Any:
    return next(f for f in module.funcs if f.sym_name == name)


def _emit(fn: Any, mod: Any, bk: BandKernel, n: int, count: int, module: Any,
          labels: dict[tuple[int, str], int], prev: dict[str, Any], compiled: bool,
          tag_space: int, helpers: dict[int, dict[str, str]]) -> None:
    """Append kernel `bk` of one band to `fn`: its band buffers (copied in), the kernel, the
    output copied out (the last kernel), the buffers freed."""
    from accelsim.network.fused import _zero_fill
    from compiler.ir.ops.func import CallOp, ReturnOp
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
    body = fn.body
    mapping: dict[Any, Any] = {}
    mine: list[Any] = []
    for a, name in zip(entry.args, entry.arg_names()):
        if name == bk.link_in:
            mapping[a] = prev.pop("out")
            mine.append(mapping[a])
        elif name in bk.fast:
            buf = body.append(AllocOp(a.type, name_hint=f"b{bk.p}_{name}")).results[0]
            mapping[a] = buf
            if name == bk.out:
                if bk.zero:
                    _zero_fill(body, buf)
                continue
            mine.append(buf)
            lo, hi = bk.fast[name]
            if hi > lo:
                _copy(fn, body, fn.args[labels[(n, name)]], lo, buf, hi - lo, compiled, tag_space,
                      inward=True)
        else:
            mapping[a] = fn.args[labels[(n, name)]]
    for op in entry.body.ops:
        if isinstance(op, ReturnOp):
            continue
        new = body.append(op.clone(mapping))
        for o in new.walk():
            if isinstance(o, CallOp) and o.callee in renames:
                o.callee = renames[o.callee]
    out = mapping[entry.args[entry.arg_names().index(bk.out)]]
    for v in mine:
        body.append(DeallocOp(v))
    if n + 1 < count:
        prev["out"] = out
        return
    lo, hi = bk.fast[bk.out]
    _copy(fn, body, fn.args[labels[(n, bk.out)]], lo, out, hi - lo, compiled, tag_space,
          inward=False)
    body.append(DeallocOp(out))


def _copy(fn: Any, body: Any, full: Any, lo: int, buf: Any, rows: int, dma: bool, tag_space: int,
          inward: bool) -> None:
    """Rows [lo, lo + rows) of DRAM tensor `full` into band buffer `buf` (`inward`) or back:
    one strided DMA (compiled) or a copy nest (as written)."""
    from compiler.ir.affine_expr import Dim, as_expr
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops.affine import (
        AffineDmaStartOp,
        AffineDmaWaitOp,
        AffineForOp,
        AffineLoadOp,
        AffineStoreOp,
        AffineYieldOp,
    )
    from compiler.ir.ops.memref import AllocOp, DeallocOp
    from compiler.ir.types import I32, MemRefType
    from compiler.transforms.rewrite.structure import constant_index

    shape = tuple(full.type.shape)
    r = row_dim(shape)
    band = list(shape)
    band[r] = rows
    off = [0] * len(shape)
    off[r] = lo
    if not dma:
        ivs, inner, loops = [], body, []
        for d in band:
            f = AffineForOp(AffineMap.constant(0), [], AffineMap.constant(d), [])
            inner.append(f)
            loops.append(f)
            ivs.append(f.iv)
            inner = f.body
        k = len(band)
        at_full = AffineMap(k, 0, tuple(Dim(i) + off[i] for i in range(k)))
        ident = AffineMap.identity(k)
        src, sm, dst, dm = (full, at_full, buf, ident) if inward else (buf, ident, full, at_full)
        v = inner.append(AffineLoadOp(src, sm, ivs)).results[0]
        inner.append(AffineStoreOp(v, dst, dm, ivs))
        for f in loops:
            f.body.append(AffineYieldOp())
        return
    inner_elems = math.prod(band[r:])
    count = math.prod(band)
    strided = math.prod(band[:r]) > 1
    def c(x: int) -> Any:
        return constant_index(fn, x, fn.loc)

    tag = body.append(AllocOp(MemRefType((1,), I32, tag_space), name_hint="btag")).results[0]
    at = AffineMap(0, 0, tuple(as_expr(x) for x in off))
    zero = AffineMap(0, 0, tuple(as_expr(0) for _ in off))
    t0 = AffineMap(0, 0, (as_expr(0),))
    stride = c(math.prod(shape[r:])) if strided else None
    per = c(inner_elems) if strided else None
    if inward:
        op = AffineDmaStartOp(full, at, [], buf, zero, [], tag, t0, [], c(count), stride, per)
    else:
        op = AffineDmaStartOp(buf, zero, [], full, at, [], tag, t0, [], c(count), stride, per)
    body.append(op)
    body.append(AffineDmaWaitOp(tag, t0, [], c(count)))
    body.append(DeallocOp(tag))
