"""Chunked fused groups: a transformer's feed-forward block with its hidden tensor on chip, a
chunk of the hidden dimension at a time.

A *chunked* group (`Group.chunk` > 0) is the chain

    up    gemm        T[M, H]  += X[M, K] · W1[K, H]
    f     unary elementwise kernels on T (GELU, ReLU, ...; zero or more)
    down  gemm        Y[M, N]  += f(T)[M, H] · W2[H, N]

whose hidden tensor T is too large for the on-chip level. Its hidden dimension H is cut into
chunks of `chunk` columns; chunk c runs

    up_c    T_c[M, h]  = X · W1[:, c*h : (c+1)*h]     (T_c on chip, zeroed first)
    f_c     T_c = f(T_c)                               (on chip, in place)
    down_c  Y += T_c · W2[c*h : (c+1)*h, :]            (Y accumulated across chunks)

so T never goes to DRAM. What it costs is counted, not assumed: X is read again by every
chunk's up gemm, every chunk's down gemm reads and writes Y (the output accumulated across
chunks: its spill when it does not fit on chip beside T_c), and each weight column/row block
is read by its chunk's kernels as their tiles need it; the analytic estimate walks the whole
group program and the grouping keeps it only when it is no slower than layer-by-layer and
moves fewer DRAM bytes (`fused._pays`).

Each chunk's kernels are their workloads' own loop nests at the chunk's size (`gemm` with
N = h, resp. K = h; the elementwise kernel with h * M elements, retyped onto the (M, h) chunk
buffer), compiled once by the accelerator pipeline (tile search, copies, pipelining, race
proof) for the capacity the chunk buffer leaves; chunk c's copy of a compiled kernel is chunk
0's with every access of the sliced weight moved c*h columns (rows) on — the same program on
a shifted window of the same array, so it is not compiled again. The whole group function is
then proven race-free and simulated like any fused group (`accelsim.network.fused.run_group`).

`chunk_group` finds the chain starting at a layer and the widths worth estimating: the widest
divisors of H whose chunk buffer fits `RESIDENT_SHARE` of the level and leaves `MIN_TILE_KIB`
for the kernels' tiles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelsim.network.links import Link, kernel_args
from compiler.diagnostics import AccelsimError

if TYPE_CHECKING:
    from accelsim.network.group_model import Group, GroupProgram, _Plan

GEMM = "gemm"
TRIES = 2    # chunk widths estimated per chain (the widest that fit, then the next)


class NotChunkable(AccelsimError):
    """A chain the chunked transform cannot cut along its hidden dimension (says why)."""


@dataclass(frozen=True)
class Chain:
    """Flat kernel indices of the chain: `up`, the elementwise kernels `mid`, `down`; the
    sizes M (rows), K (up's reduction), H (hidden), N (down's output columns); the hidden
    tensor's element bytes."""

    up: int
    mid: tuple[int, ...]
    down: int
    M: int
    K: int
    H: int
    N: int
    elt: int

    @property
    def kernels(self) -> tuple[int, ...]:
        return (self.up, *self.mid, self.down)


def _params(spec: str) -> tuple[str, dict[str, str]]:
    from workloads.spec import parse_spec

    return parse_spec(spec)


def _with(spec: str, **values: int) -> str:
    name, params = _params(spec)
    for k, v in values.items():
        if k not in params:
            raise NotChunkable(f"{spec}: no parameter {k}")
        params[k] = str(v)
    return f"{name}:" + ",".join(f"{k}={v}" for k, v in params.items())


def _gemm_sizes(spec: str) -> tuple[int, int, int] | None:
    """(M, N, K) of a plain gemm C[M, N] += A[M, K] · B[K, N] (it reads its output), else
    None."""
    from accelsim.network.group_model import _accumulates

    name, params = _params(spec)
    if name != GEMM or "out" in params or not {"M", "N", "K"} <= set(params):
        return None
    a = kernel_args(spec)
    if a.names != ("A", "B", "C") or not _accumulates(spec, "C"):
        return None
    (m, k), (k2, n), (m2, n2) = a.shapes
    return (m, n, k) if (k, m, n) == (k2, m2, n2) else None


def _unary(spec: str, n: int) -> bool:
    """Whether `spec` is a unary elementwise kernel over `n` elements: two 1-D arguments (one
    read, one written) and one loop over them whose every access is `[i]` — so it can run in
    place on any buffer holding those elements."""
    import workloads
    from compiler.ir.ops.affine import AffineForOp, AffineLoadOp, AffineStoreOp

    a = kernel_args(spec)
    if len(a.names) != 2 or any(s != (n,) for s in a.shapes) or len(a.outputs) != 1 \
            or a.dtypes[0] != a.dtypes[1] or "N" not in _params(spec)[1]:
        return False
    w = workloads.get(spec)
    f = next(f for f in w.module().funcs if f.sym_name == w.func_name)
    loops = [op for op in f.body.ops if isinstance(op, AffineForOp)]
    if len(loops) != 1 or loops[0].constant_lower != 0 or loops[0].constant_upper != n \
            or loops[0].step != 1:
        return False
    (loop,) = loops
    for op in loop.body.walk():
        if isinstance(op, AffineForOp):
            return False
        if isinstance(op, AffineLoadOp | AffineStoreOp):
            if op.indices != [loop.iv] or not op.map.is_identity:
                return False
        elif loop.iv in op.operands:
            return False
    return True


def chain_at(plan: _Plan, layer: int) -> tuple[Chain, int] | None:
    """The chunkable chain whose up gemm is the first kernel of `layer`, and the last layer it
    takes; None when there is none."""
    ks = plan.kernels_of(layer, len(plan.network.layers) - 1)
    if not ks or plan.flat[ks[0]][0] != layer:
        return None
    up = ks[0]
    sizes = _gemm_sizes(plan.flat[up][1].workload)
    if sizes is None:
        return None
    M, H, K = sizes
    mid: list[int] = []
    p = up
    while True:
        ln: Link | None = plan.links.get(p)
        if ln is None or ln.consumer >= len(plan.flat):
            return None
        q = ln.consumer
        spec = plan.flat[q][1].workload
        if p == up and ln.out_arg != "C":
            return None
        down = _gemm_sizes(spec)
        if down is not None:
            m2, n2, k2 = down
            if ln.in_arg != "A" or m2 != M or k2 != H:
                return None
            break
        if not _unary(spec, M * H) or ln.in_arg != kernel_args(spec).names[0] or len(mid) > 4:
            return None
        mid.append(q)
        p = q
    a = kernel_args(plan.flat[up][1].workload)
    d = kernel_args(plan.flat[q][1].workload)
    elt = a.bits[2] // 8
    if d.dtypes[0] != a.dtypes[2] or any(kernel_args(plan.flat[x][1].workload).dtypes[0] != a.dtypes[2]
                                         for x in mid):
        return None
    last = plan.flat[q][0]
    if plan.kernels_of(layer, last) != [up, *mid, q]:
        return None
    return Chain(up, tuple(mid), q, M, K, H, n2, elt), last


def widths(plan: _Plan, chain: Chain) -> list[int]:
    """The chunk widths worth estimating, widest first (at most `TRIES`): divisors h < H whose
    chunk buffer (M x h) fits `RESIDENT_SHARE` of the level and leaves `MIN_TILE_KIB`."""
    from accelsim.network.group_model import MIN_TILE_KIB, RESIDENT_SHARE, _capacity

    cap = _capacity(plan.config)
    out = []
    for h in range(chain.H - 1, 0, -1):
        if chain.H % h:
            continue
        live = chain.M * h * chain.elt
        if live <= RESIDENT_SHARE * cap and cap - live >= MIN_TILE_KIB * 1024:
            out.append(h)
            if len(out) == TRIES:
                break
    return out


def chunk_groups(plan: _Plan, layer: int) -> list[Group]:
    """The chunked groups starting at `layer` worth estimating (widest chunk first)."""
    from accelsim.network.group_model import Group

    found = chain_at(plan, layer)
    if found is None:
        return []
    chain, last = found
    if chain.M * chain.H * chain.elt <= RESIDENT_FRACTION_WHOLE * _cap(plan):
        return []   # the whole hidden tensor fits: the whole-intermediate group holds it
    onchip = tuple(plan.links[p] for p in chain.kernels[:-1])
    return [Group(layer, last, onchip, (), chunk=h) for h in widths(plan, chain)]


RESIDENT_FRACTION_WHOLE = 0.75   # as fused.LINK_SHARE: a hidden tensor this small stays whole


def _cap(plan: _Plan) -> int:
    from accelsim.network.group_model import _capacity

    return _capacity(plan.config)


# -------------------------------------------------------------------------------------------
# the program

def _kernel(spec: str) -> tuple[Any, Any, str]:
    import workloads

    w = workloads.get(spec)
    module = w.module()
    return module, next(f for f in module.funcs if f.sym_name == w.func_name), w.func_name


def _set_type(func: Any, name: str, shape: tuple[int, ...] | None, space: int | None) -> None:
    """Argument `name` of `func` as `shape` in `space` (None: as it is), its accesses' maps
    unchanged (a larger array holding the same elements at the same indices)."""
    from compiler.ir.types import FunctionType, MemRefType

    arg = func.args[func.arg_names().index(name)]
    t = arg.type
    arg.type = MemRefType(tuple(shape or t.shape), t.element,
                          t.memory_space if space is None else space)
    func.function_type = FunctionType(tuple(a.type for a in func.args), func.function_type.results)


def shift_accesses(func: Any, name: str, offsets: tuple[int, ...]) -> None:
    """Every access of argument `name` in `func` (loads, stores, DMA sides) moved by `offsets`
    — the program run on the window of the array that starts there. An argument passed to a
    call or to an op we do not model is refused (its accesses are not ours to move)."""
    from compiler.ir.affine_expr import as_expr
    from compiler.ir.ops.affine import AffineDmaStartOp, AffineLoadOp, AffineStoreOp

    arg = func.args[func.arg_names().index(name)]

    def moved(m: Any) -> Any:
        return m.with_results([e + as_expr(o) if o else e for e, o in zip(m.results, offsets)])

    for op in func.walk():
        if arg not in op.operands:
            continue
        if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is arg:
            op.map = moved(op.map)
        elif isinstance(op, AffineDmaStartOp) and arg in (op.src, op.dst):
            if op.src is arg:
                op.src_map = moved(op.src_map)
            if op.dst is arg:
                op.dst_map = moved(op.dst_map)
        else:
            raise NotChunkable(f"{func.sym_name}: {op.NAME} takes {name} (its accesses cannot be moved)")


@dataclass
class _Piece:
    """One kernel of a chunk: its program as written and compiled (chunk 0), its entry
    function's name, and the argument whose accesses move with the chunk (with the move per
    chunk: offsets of one chunk)."""

    source: Any
    compiled: Any
    func_name: str
    sliced: str | None
    step: tuple[int, ...]
    own: int


def _piece(plan: _Plan, spec: str, fast: dict[str, tuple[int, ...]],
           full: dict[str, tuple[int, ...]], sliced: str | None, step: tuple[int, ...],
           resident: int) -> _Piece:
    """Kernel `spec` with arguments `fast` on chip (as those shapes) and `full` retyped to
    the whole array it windows, compiled for the capacity `resident` bytes leave (once per
    program)."""
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.errors import InputError
    from accelsim.network.group_model import MIN_TILE_KIB, _fast_bytes, _retype

    key = ("chunk", spec, tuple(sorted(fast.items())), tuple(sorted(full.items())), resident)
    fs = plan.config.spaces.sram
    if key not in plan.compiled:
        module, func, name = _kernel(spec)
        for arg, shape in fast.items():
            _retype(func, arg, shape, fs, 0)
        for arg, shape in full.items():
            _set_type(func, arg, shape, None)
        source = module.clone()
        cap_kib = plan.config.memory_chain()[1].capacity_kib - math.ceil(resident / 1024)
        if cap_kib < MIN_TILE_KIB:
            raise InputError(f"kernel {spec}: {cap_kib} KiB left beside its chunk buffer")
        cfg = plan.config.with_overrides({"sram.capacity_kib": cap_kib})
        compile_for_accelerator(cfg, module, name)
        plan.compiled[key] = (source, module, _fast_bytes(module, fs))
    source, done, own = plan.compiled[key]
    return _Piece(source, done, _kernel(spec)[2], sliced, step, own)


def _pieces(plan: _Plan, chain: Chain, h: int) -> list[_Piece]:
    up_spec = plan.flat[chain.up][1].workload
    down_spec = plan.flat[chain.down][1].workload
    live = chain.M * h * chain.elt
    out = [_piece(plan, _with(up_spec, N=h), {"C": (chain.M, h)}, {"B": (chain.K, chain.H)},
                  "B", (0, h), live)]
    for q in chain.mid:
        spec = plan.flat[q][1].workload
        a = kernel_args(spec)
        out.append(_piece(plan, _with(spec, N=chain.M * h),
                          {a.names[0]: (chain.M, h), a.names[1]: (chain.M, h)}, {}, None, (), live))
    out.append(_piece(plan, _with(down_spec, K=h), {"A": (chain.M, h)}, {"B": (chain.H, chain.N)},
                      "B", (h, 0), live))
    return out


def chunked_modules(plan: _Plan, group: Group) -> GroupProgram:
    """The chunked group as one program (`fused.GroupProgram`): the chunk buffer made once,
    then per chunk (a nest of one iteration) the buffer zeroed, the up gemm into it, the
    elementwise kernels in place, the down gemm accumulating into the group's output."""
    from accelsim.network.fused import _entry, _zero_fill
    from accelsim.network.group_model import GroupProgram, _unique
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops import ModuleOp
    from compiler.ir.ops.affine import AffineForOp, AffineYieldOp
    from compiler.ir.ops.func import CallOp, FuncOp, ReturnOp
    from compiler.ir.ops.memref import AllocOp, DeallocOp
    from compiler.ir.types import ELEMENT_TYPES, FunctionType, MemRefType

    found = chain_at(plan, group.first)
    if found is None or group.chunk <= 0 or found[0].H % group.chunk:
        raise NotChunkable(f"layers {group.first}..{group.last}: not a chunkable chain")
    chain, _ = found
    h = group.chunk
    pieces = _pieces(plan, chain, h)
    up_args = kernel_args(plan.flat[chain.up][1].workload)
    down_args = kernel_args(plan.flat[chain.down][1].workload)
    # the group function's arguments: X, W1 (up's A, B), W2, Y (down's B, C)
    used: set[str] = set()
    spec_args = [(chain.up, "A", up_args), (chain.up, "B", up_args),
                 (chain.down, "B", down_args), (chain.down, "C", down_args)]
    args: list[tuple[str, int, str]] = []
    types = []
    for p, name, a in spec_args:
        layer = plan.network.layers[plan.flat[p][0]].name
        args.append((_unique(f"{layer}.{name}", used), p, name))
        i = a.index(name)
        types.append(MemRefType(a.shapes[i], ELEMENT_TYPES[a.dtypes[i]], plan.config.spaces.dram))
    fast = plan.config.spaces.sram
    t_type = MemRefType((chain.M, h), ELEMENT_TYPES[up_args.dtypes[2]], fast)
    live = chain.M * h * chain.elt
    peak = live + max(pc.own for pc in pieces)
    programs: dict[bool, ModuleOp] = {}
    for compiled in (False, True):
        fn = FuncOp("group", FunctionType(tuple(types), ()), [a for a, _, _ in args])
        mod = ModuleOp()
        t = fn.body.append(AllocOp(t_type, name_hint="chunk")).results[0]
        helpers: dict[int, dict[str, str]] = {}
        for c in range(chain.H // h):
            nest = fn.body.append(AffineForOp(AffineMap.constant(0), [], AffineMap.constant(1), []))
            _zero_fill(nest.body, t)
            for n, pc in enumerate(pieces):
                module = (pc.compiled if compiled else pc.source).clone()
                entry = _entry(module)
                if pc.sliced is not None and c:
                    shift_accesses(entry, pc.sliced, tuple(c * s for s in pc.step))
                renames = helpers.setdefault(n, {})
                for f in module.funcs:
                    if f is entry:
                        continue
                    if f.sym_name not in renames:
                        renames[f.sym_name] = f"k{n}_{f.sym_name}"
                        g = f.clone()
                        g.sym_name = renames[f.sym_name]
                        for o in g.walk():
                            if isinstance(o, CallOp) and o.callee in renames:
                                o.callee = renames[o.callee]
                        mod.body.append(g)
                mapping: dict[Any, Any] = {}
                for a, name in zip(entry.args, entry.arg_names()):
                    if n == 0:
                        mapping[a] = {"A": fn.args[0], "B": fn.args[1], "C": t}[name]
                    elif n == len(pieces) - 1:
                        mapping[a] = {"A": t, "B": fn.args[2], "C": fn.args[3]}[name]
                    else:
                        mapping[a] = t   # elementwise, in place
                for op in entry.body.ops:
                    if isinstance(op, ReturnOp):
                        continue
                    new = nest.body.append(op.clone(mapping))
                    for o in new.walk():
                        if isinstance(o, CallOp) and o.callee in renames:
                            o.callee = renames[o.callee]
            nest.body.append(AffineYieldOp())
        fn.body.append(DeallocOp(t))
        fn.body.append(ReturnOp())
        mod.body.append(fn)
        programs[compiled] = mod
    return GroupProgram(programs[False], programs[True], peak, tuple(args))


__all__ = ["Chain", "NotChunkable", "chain_at", "chunk_groups", "chunked_modules",
           "shift_accesses", "widths"]
