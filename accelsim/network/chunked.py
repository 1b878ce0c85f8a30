"""Chunked fused groups: a chain whose intermediate is too large for the on-chip level run a
chunk of its inner dimension at a time, the chunk's intermediates on chip.

A *chunked* group (`Group.chunk` > 0) is one of two chains. A transformer's feed-forward block
("hidden"):

    up    gemm        T[M, H]  += X[M, K] · W1[K, H]
    f     unary elementwise kernels on T (GELU, ReLU, ...; zero or more)
    down  gemm        Y[M, N]  += f(T)[M, H] · W2[H, N]

cut along H into chunks of h columns; chunk c runs

    up_c    T_c[M, h]  = X · W1[:, c*h : (c+1)*h]     (T_c on chip, zeroed first)
    f_c     T_c = f(T_c)                               (on chip, in place)
    down_c  Y += T_c · W2[c*h : (c+1)*h, :]            (Y accumulated across chunks)

Y stays on chip when it fits beside T_c (read in once, written back once), else every
chunk's down gemm reads and writes it in DRAM (its spill). Attention ("batch"): a batched gemm
(scores) -> row-wise kernels (softmax: each row from its own row, proven from the access maps;
out of place, a second chunk buffer) -> a batched gemm (context), cut by the batch (the
heads); a `permute` reading the context as the same tensor with a leading 1 (the merge of the
heads) is folded into the context gemm, whose output accesses then go straight to the
permuted tensor.

What a chunked group costs is counted, not assumed: X (Q, K, V) read by every chunk's
kernels as their tiles need, each weight block by its chunk, the spills; the analytic
estimate walks the whole group program and the grouping (`fused.choose_groups`) keeps it
only when it moves fewer DRAM bytes and is no slower than layer-by-layer plus the cycles the
groups kept before it saved.

Each chunk's kernels are their workloads' own loop nests at the chunk's size (`gemm` with
N = h, resp. K = h; `batched_gemm` with batch = the chunk's heads; the elementwise or
row-wise kernel at the chunk's elements or rows, retyped onto the chunk buffer), compiled once
by the accelerator pipeline (tile search, copies, pipelining, race proof) for the capacity the
chunk buffers leave; chunk c's copy of a compiled kernel is chunk 0's with every access of
the sliced operands moved by c chunks (`shift_accesses`) — the same program on a shifted
window of the same array, so it is not compiled again. The compiled group runs its chunks at
the top level of one function, its constants and constant index arithmetic first, then
`affine-dma-start-hoist` starts each kernel's first copy-ins above the on-chip kernels before
it; the whole function is proven race-free and simulated like any fused group
(`accelsim.network.fused.run_group`).

`chunk_groups` finds the chain starting at a layer and the widths worth estimating
(`widths`: divisors of the cut dimension whose buffers fit `RESIDENT_SHARE` of the level and
leave `MIN_TILE_KIB`, the widest with the output on chip first, at most `TRIES`).
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
BATCHED = "batched_gemm"
TRIES = 3    # chunk widths estimated per chain (the widest that fit, then the next ones)
MAX_MID = 4  # the most elementwise / row-wise kernels between the two gemms


class NotChunkable(AccelsimError):
    """A chain the chunked transform cannot cut along its hidden dimension (says why)."""


@dataclass(frozen=True)
class Chain:
    """Flat kernel indices of the chain: `up`, the kernels between `mid`, `down`. `kind`:
    "hidden" (two gemms, the hidden dimension H cut) or "batch" (two batched gemms, the
    batch — a transformer's heads — cut). Sizes: `batch` (1 for "hidden"), M (rows), K (up's
    reduction), H (up's output columns: the hidden dimension, or the scores' columns), N
    (down's output columns); `elt`: the intermediate's element bytes; `inplace`: per `mid`
    kernel, whether it runs in place (a unary elementwise kernel) or into the other buffer
    (a row-wise kernel)."""

    kind: str
    up: int
    mid: tuple[int, ...]
    down: int
    batch: int
    M: int
    K: int
    H: int
    N: int
    elt: int
    inplace: tuple[bool, ...] = ()
    # a `permute` after a batch chain's down gemm (attention's merge of the heads) folded into
    # it: its kernel index and permutation; the down gemm writes the permuted tensor itself
    post: int | None = None
    perm: tuple[int, ...] = ()

    @property
    def kernels(self) -> tuple[int, ...]:
        """The kernels that run (a folded permute is not one)."""
        return (self.up, *self.mid, self.down)

    @property
    def extent(self) -> int:
        """The length of the dimension chunks cut."""
        return self.H if self.kind == "hidden" else self.batch

    @property
    def buffers(self) -> int:
        """On-chip buffers of a chunk: the up gemm's output, and a second one when a row-wise
        kernel writes out of place."""
        return 1 if all(self.inplace) else 2

    def live(self, w: int) -> int:
        """Bytes of the chunk buffers for a chunk of width `w`."""
        per = self.M * w if self.kind == "hidden" else w * self.M * self.H
        return self.buffers * per * self.elt


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


def _gemm_sizes(spec: str) -> tuple[int, int, int, int] | None:
    """(batch, M, N, K) of a plain gemm C[M, N] += A[M, K] · B[K, N] (batch 1) or batched
    gemm C[b, M, N] += A[b, M, K] · B[b, K, N] (it reads its output), else None."""
    from accelsim.network.group_model import _accumulates

    name, params = _params(spec)
    if name not in (GEMM, BATCHED) or "out" in params or not {"M", "N", "K"} <= set(params):
        return None
    a = kernel_args(spec)
    if a.names != ("A", "B", "C") or not _accumulates(spec, "C"):
        return None
    shapes = a.shapes if name == BATCHED else tuple((1, *s) for s in a.shapes)
    if any(len(s) != 3 for s in shapes):
        return None
    (b, m, k), (b2, k2, n), (b3, m2, n2) = shapes
    return (b, m, n, k) if (b2, b3, k2, m2, n2) == (b, b, k, m, n) else None


def _top_loop(spec: str, n: int) -> Any:
    """The entry function of `spec` when its body is one loop from 0 to `n` by 1, else None."""
    import workloads
    from compiler.ir.ops.affine import AffineForOp

    w = workloads.get(spec)
    f = next(f for f in w.module().funcs if f.sym_name == w.func_name)
    loops = [op for op in f.body.ops if isinstance(op, AffineForOp)]
    if len(loops) != 1 or loops[0].constant_lower != 0 or loops[0].constant_upper != n \
            or loops[0].step != 1:
        return None
    return loops[0]


def _unary(spec: str, n: int) -> bool:
    """Whether `spec` is a unary elementwise kernel over `n` elements: two 1-D arguments (one
    read, one written) and one loop over them whose every access is `[i]` — so it can run in
    place on any buffer holding those elements."""
    from compiler.ir.ops.affine import AffineForOp, AffineLoadOp, AffineStoreOp

    a = kernel_args(spec)
    if len(a.names) != 2 or any(s != (n,) for s in a.shapes) or len(a.outputs) != 1 \
            or a.dtypes[0] != a.dtypes[1] or "N" not in _params(spec)[1]:
        return False
    loop = _top_loop(spec, n)
    if loop is None:
        return False
    for op in loop.body.walk():
        if isinstance(op, AffineForOp):
            return False
        if isinstance(op, AffineLoadOp | AffineStoreOp):
            if op.indices != [loop.iv] or not op.map.is_identity:
                return False
        elif loop.iv in op.operands:
            return False
    return True


def _row_param(spec: str, rows: int, cols: int) -> str | None:
    """The parameter giving the rows of a row-wise kernel `spec` on (rows, cols) arrays: two
    2-D arguments of that shape (one read, one written), one loop over the rows whose index
    is every access's first index and no other (each row computed from its own row alone);
    None for any other kernel or when no single parameter holds the row count."""
    from compiler.ir.ops.affine import AffineLoadOp, AffineStoreOp

    a = kernel_args(spec)
    if len(a.names) != 2 or any(s != (rows, cols) for s in a.shapes) or len(a.outputs) != 1 \
            or a.dtypes[0] != a.dtypes[1]:
        return None
    loop = _top_loop(spec, rows)
    if loop is None:
        return None
    for op in loop.body.walk():
        if isinstance(op, AffineLoadOp | AffineStoreOp):
            m = op.map
            got = [e.linear_coeffs(m.num_dims, m.num_symbols) for e in m.results]
            if any(g is None for g in got):
                return None
            uses = [sum(c for v, c in zip(op.indices, [*g[0], *g[1]]) if v is loop.iv)
                    for g in got]
            first = got[0]
            others = [v for v, c in zip(op.indices, [*first[0], *first[1]]) if c and v is not loop.iv]
            if uses[0] != 1 or first[2] != 0 or others or any(uses[1:]):
                return None
        elif loop.iv in op.operands:
            return None
    names = [k for k, v in _params(spec)[1].items() if v == str(rows)]
    return names[0] if len(names) == 1 else None


def chain_at(plan: _Plan, layer: int) -> tuple[Chain, int] | None:
    """The chunkable chain whose up gemm is the first kernel of `layer`, and the last layer it
    takes; None when there is none."""
    ks = plan.kernels_of(layer, len(plan.network.layers) - 1)
    if not ks or plan.flat[ks[0]][0] != layer:
        return None
    up = ks[0]
    spec0 = plan.flat[up][1].workload
    sizes = _gemm_sizes(spec0)
    if sizes is None:
        return None
    B, M, H, K = sizes
    kind = "hidden" if _params(spec0)[0] == GEMM else "batch"
    mid: list[int] = []
    inplace: list[bool] = []
    p = up
    while True:
        ln: Link | None = plan.links.get(p)
        if ln is None or ln.consumer >= len(plan.flat) or len(mid) > MAX_MID:
            return None
        q = ln.consumer
        spec = plan.flat[q][1].workload
        if p == up and ln.out_arg != "C":
            return None
        down = _gemm_sizes(spec)
        if down is not None:
            b2, m2, n2, k2 = down
            if ln.in_arg != "A" or (b2, m2, k2) != (B, M, H) or _params(spec)[0] != _params(spec0)[0]:
                return None
            break
        a = kernel_args(spec)
        if ln.in_arg != a.names[0]:
            return None
        if _unary(spec, B * M * H):
            inplace.append(True)
        elif kind == "batch" and _row_param(spec, B * M, H) is not None:
            inplace.append(False)
        else:
            return None
        mid.append(q)
        p = q
    a = kernel_args(spec0)
    d = kernel_args(plan.flat[q][1].workload)
    elt = a.bits[2] // 8
    t = a.dtypes[2]
    if d.dtypes[0] != t or d.dtypes[2] != t \
            or any(kernel_args(plan.flat[x][1].workload).dtypes[0] != t for x in mid):
        return None
    post, perm = _folded_permute(plan, q, (B, M, n2)) if kind == "batch" else (None, ())
    last = plan.flat[q if post is None else post][0]
    if plan.kernels_of(layer, last) != [up, *mid, q, *([post] if post is not None else [])]:
        return None
    return Chain(kind, up, tuple(mid), q, B, M, K, H, n2, elt, tuple(inplace), post, perm), last


def _folded_permute(plan: _Plan, q: int, shape: tuple[int, ...]) -> tuple[int | None, tuple[int, ...]]:
    """The `permute` kernel kernel q's output C (of `shape`) feeds, when it reads it as the
    same tensor with a leading 1 (so C[n, i, j] is its input [0, n, i, j]): its index and
    permutation; else (None, ())."""
    ln = plan.links.get(q)
    if ln is None or ln.out_arg != "C" or ln.consumer >= len(plan.flat):
        return None, ()
    spec = plan.flat[ln.consumer][1].workload
    name, params = _params(spec)
    a = kernel_args(spec)
    if name != "permute" or a.names != ("input", "output") or ln.in_arg != "input" \
            or a.shapes[0] != (1, *shape) or a.dtypes[0] != a.dtypes[1]:
        return None, ()
    perm = tuple(int(params.get(f"p{k}", k)) for k in range(4))
    return (ln.consumer, perm) if sorted(perm) == [0, 1, 2, 3] else (None, ())


def _permute_maps(func: Any, name: str, perm: tuple[int, ...], shape: tuple[int, ...]) -> None:
    """Every access of argument `name` (indices n, i, j) moved to the permuted tensor of
    `shape` it is folded into: [0, n, i, j] permuted by `perm` (numpy's transpose)."""
    from compiler.ir.affine_expr import as_expr
    from compiler.ir.ops.affine import AffineLoadOp, AffineStoreOp

    arg = func.args[func.arg_names().index(name)]
    for op in func.walk():
        if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is arg:
            src = (as_expr(0), *op.map.results)
            op.map = op.map.with_results([src[k] for k in perm])
        elif arg in op.operands:
            raise NotChunkable(f"{func.sym_name}: {op.NAME} takes {name}")
    _set_type(func, name, shape, None)


def _fits(plan: _Plan, live: int) -> bool:
    from accelsim.network.group_model import MIN_TILE_KIB, RESIDENT_SHARE, _capacity

    cap = _capacity(plan.config)
    return live <= RESIDENT_SHARE * cap and cap - live >= MIN_TILE_KIB * 1024


def output_on_chip(plan: _Plan, chain: Chain, w: int) -> bool:
    """Whether a feed-forward chain's output Y (M x N, accumulated by every chunk) stays on
    chip beside chunks of width `w`: read in once before the first chunk and written back
    once after the last; else every chunk's down gemm reads and writes it in DRAM (the
    spill). Attention's chunks write disjoint windows of theirs: it never stays."""
    return chain.kind == "hidden" and _fits(plan, chain.live(w) + chain.M * chain.N * chain.elt)


def resident(plan: _Plan, chain: Chain, w: int) -> int:
    """Bytes the chunk buffers (and the output, when on chip) keep on the level."""
    return chain.live(w) + (chain.M * chain.N * chain.elt if output_on_chip(plan, chain, w) else 0)


def widths(plan: _Plan, chain: Chain) -> list[int]:
    """The chunk widths worth estimating (at most `TRIES`): divisors w of the cut dimension,
    smaller than it, whose buffers fit `RESIDENT_SHARE` of the level and leave
    `MIN_TILE_KIB`: the widest with the output on chip beside it first (none spilled), then
    the widest ones."""
    fit = [w for w in range(chain.extent - 1, 0, -1)
           if chain.extent % w == 0 and _fits(plan, chain.live(w))]
    kept = next((w for w in fit if output_on_chip(plan, chain, w)), None)
    return list(dict.fromkeys([*([kept] if kept is not None else []), *fit]))[:TRIES]


def chunk_groups(plan: _Plan, layer: int) -> list[Group]:
    """The chunked groups starting at `layer` worth estimating (widest chunk first); none when
    the whole intermediate fits (`WHOLE_SHARE`: the whole-intermediate group holds it)."""
    from accelsim.network.group_model import Group, _capacity

    found = chain_at(plan, layer)
    if found is None:
        return []
    chain, last = found
    if chain.live(chain.extent) <= WHOLE_SHARE * _capacity(plan.config):
        return []
    onchip = tuple(plan.links[p] for p in chain.kernels[:-1])
    return [Group(layer, last, onchip, (), chunk=w) for w in widths(plan, chain)]


WHOLE_SHARE = 0.75   # as fused.LINK_SHARE: an intermediate this small stays whole


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
    function's name, where each argument comes from (("arg", i): the group function's i-th
    argument; ("buf", j): chunk buffer j) and the arguments whose accesses move with the chunk
    (argument -> offsets of one chunk)."""

    source: Any
    compiled: Any
    func_name: str
    wiring: dict[str, tuple[str, int]]
    shifts: dict[str, tuple[int, ...]]
    own: int


def _piece(plan: _Plan, spec: str, fast: dict[str, tuple[int, ...]],
           full: dict[str, tuple[int, ...]], wiring: dict[str, tuple[str, int]],
           shifts: dict[str, tuple[int, ...]], resident: int,
           fold: tuple[str, tuple[int, ...], tuple[int, ...]] | None = None) -> _Piece:
    """Kernel `spec` with arguments `fast` on chip (as those shapes) and `full` retyped to
    the whole array it windows, compiled for the capacity `resident` bytes leave (once per
    program)."""
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.errors import InputError
    from accelsim.network.group_model import MIN_TILE_KIB, _fast_bytes, _retype

    key = ("chunk", spec, tuple(sorted(fast.items())), tuple(sorted(full.items())), resident, fold)
    fs = plan.config.spaces.sram
    if key not in plan.compiled:
        module, func, name = _kernel(spec)
        for arg, shape in fast.items():
            _retype(func, arg, shape, fs, 0)
        for arg, shape in full.items():
            _set_type(func, arg, shape, None)
        if fold is not None:   # an output written straight into the permuted tensor
            _permute_maps(func, fold[0], fold[1], fold[2])
        source = module.clone()
        cap_kib = plan.config.memory_chain()[1].capacity_kib - math.ceil(resident / 1024)
        if cap_kib < MIN_TILE_KIB:
            raise InputError(f"kernel {spec}: {cap_kib} KiB left beside its chunk buffers")
        cfg = plan.config.with_overrides({"sram.capacity_kib": cap_kib})
        compile_for_accelerator(cfg, module, name)
        plan.compiled[key] = (source, module, _fast_bytes(module, fs))
    source, done, own = plan.compiled[key]
    return _Piece(source, done, _kernel(spec)[2], wiring, shifts, own)


def _pieces(plan: _Plan, chain: Chain, w: int) -> tuple[list[_Piece], list[tuple[int, ...]]]:
    """The kernels of one chunk of width `w` and the chunk buffers' shapes (the first zeroed
    before each chunk: the up gemm accumulates into it). The group function's arguments are
    up's A and B, then down's B and C."""
    up_spec = plan.flat[chain.up][1].workload
    down_spec = plan.flat[chain.down][1].workload
    live = resident(plan, chain, w)
    y_on = output_on_chip(plan, chain, w)
    fold: tuple[str, tuple[int, ...], tuple[int, ...]] | None = None
    M, K, H, N, B = chain.M, chain.K, chain.H, chain.N, chain.batch
    if chain.kind == "hidden":
        buf: tuple[int, ...] = (M, w)
        up = _piece(plan, _with(up_spec, N=w), {"C": buf}, {"B": (K, H)},
                    {"A": ("arg", 0), "B": ("arg", 1), "C": ("buf", 0)}, {"B": (0, w)}, live)
        down_full: dict[str, tuple[int, ...]] = {"B": (H, N)}
        down_shift: dict[str, tuple[int, ...]] = {"B": (w, 0)}
        down_sized = _with(down_spec, K=w)
    else:
        buf = (w, M, H)
        step = (w, 0, 0)
        up = _piece(plan, _with(up_spec, batch=w), {"C": buf}, {"A": (B, M, K), "B": (B, K, H)},
                    {"A": ("arg", 0), "B": ("arg", 1), "C": ("buf", 0)},
                    {"A": step, "B": step}, live)
        down_full = {"B": (B, H, N), "C": (B, M, N)}
        down_shift = {"B": step, "C": step}
        down_sized = _with(down_spec, batch=w)
        if chain.post is not None:   # C written as the permute's output: heads move on its dim
            del down_full["C"]
            out_shape = kernel_args(plan.flat[chain.post][1].workload).shapes[1]
            fold = ("C", chain.perm, out_shape)
            down_shift["C"] = tuple(w if k == 1 else 0 for k in chain.perm)
    out = [up]
    cur = 0
    for q, inplace in zip(chain.mid, chain.inplace):
        spec = plan.flat[q][1].workload
        a = kernel_args(spec)
        if inplace:
            sized = _with(spec, N=math.prod(buf))
            nxt = cur
        else:
            rows = _row_param(spec, B * M, H)
            assert rows is not None   # chain_at checked it
            sized = _with(spec, **{rows: w * M})
            nxt = 1 - cur
        out.append(_piece(plan, sized, {a.names[0]: buf, a.names[1]: buf}, {},
                          {a.names[0]: ("buf", cur), a.names[1]: ("buf", nxt)}, {}, live))
        cur = nxt
    bufs = [buf] * chain.buffers
    down_fast: dict[str, tuple[int, ...]] = {"A": buf}
    down_c: tuple[str, int] = ("arg", 3)
    if y_on:   # the output on chip: the last buffer
        down_fast["C"] = (M, N)
        down_c = ("buf", len(bufs))
        bufs.append((M, N))
    out.append(_piece(plan, down_sized, down_fast, down_full,
                      {"A": ("buf", cur), "B": ("arg", 2), "C": down_c}, down_shift, live, fold))
    return out, bufs


def chunked_modules(plan: _Plan, group: Group) -> GroupProgram:
    """The chunked group as one program (`fused.GroupProgram`): the chunk buffers made once,
    then per chunk (a nest of one iteration) the first buffer zeroed, the up gemm into it, the
    elementwise (in place) and row-wise kernels, the down gemm into the group's output (its
    chunk's window; across chunks it accumulates)."""
    from accelsim.network.band_copies import copy_rows
    from accelsim.network.group_model import (
        GroupProgram,
        _unique,
        entry_func,
        inline_entry,
        renamed_clone,
        zero_fill,
    )
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops import ModuleOp
    from compiler.ir.ops.affine import AffineForOp, AffineYieldOp
    from compiler.ir.ops.func import FuncOp, ReturnOp
    from compiler.ir.ops.memref import AllocOp, DeallocOp
    from compiler.ir.types import ELEMENT_TYPES, FunctionType, MemRefType

    found = chain_at(plan, group.first)
    if found is None or group.chunk <= 0 or found[0].extent % group.chunk:
        raise NotChunkable(f"layers {group.first}..{group.last}: not a chunkable chain")
    chain, _ = found
    w = group.chunk
    pieces, buf_shapes = _pieces(plan, chain, w)
    up_args = kernel_args(plan.flat[chain.up][1].workload)
    down_args = kernel_args(plan.flat[chain.down][1].workload)
    used: set[str] = set()
    last_out = (chain.down, "C", down_args) if chain.post is None else \
        (chain.post, "output", kernel_args(plan.flat[chain.post][1].workload))
    spec_args = [(chain.up, "A", up_args), (chain.up, "B", up_args),
                 (chain.down, "B", down_args), last_out]
    args: list[tuple[str, int, str]] = []
    types = []
    for p, name, a in spec_args:
        layer = plan.network.layers[plan.flat[p][0]].name
        args.append((_unique(f"{layer}.{name}", used), p, name))
        i = a.index(name)
        types.append(MemRefType(a.shapes[i], ELEMENT_TYPES[a.dtypes[i]], plan.config.spaces.dram))
    fast = plan.config.spaces.sram
    element = ELEMENT_TYPES[up_args.dtypes[2]]
    peak = resident(plan, chain, w) + max(pc.own for pc in pieces)
    y_on = output_on_chip(plan, chain, w)
    tag = plan.config.spaces.tag
    programs: dict[bool, ModuleOp] = {}
    for compiled in (False, True):
        fn = FuncOp("group", FunctionType(tuple(types), ()), [a for a, _, _ in args])
        mod = ModuleOp()
        bufs = [fn.body.append(AllocOp(MemRefType(shape, element, fast),
                                       name_hint=f"chunk{j}")).results[0]
                for j, shape in enumerate(buf_shapes)]
        helpers: dict[int, dict[str, str]] = {}
        if y_on:   # the output in once, before the first chunk
            copy_rows(fn, fn.body, fn.args[3], 0, bufs[-1], 0, chain.M, compiled, tag, True, (0, 1))
        for c in range(chain.extent // w):
            # as written: each chunk one nest of one iteration (the top block stays short);
            # compiled: at the top level, where the next kernel's copy-ins can start early
            nest = None if compiled else fn.body.append(
                AffineForOp(AffineMap.constant(0), [], AffineMap.constant(1), []))
            body = fn.body if nest is None else nest.body
            zero_fill(body, bufs[0])
            for n, pc in enumerate(pieces):
                module = (pc.compiled if compiled else pc.source).clone()
                entry = entry_func(module)
                if c:
                    for name, step in pc.shifts.items():
                        shift_accesses(entry, name, tuple(c * s for s in step))
                renames = helpers.setdefault(n, {})
                for f in module.funcs:
                    if f is entry:
                        continue
                    if f.sym_name not in renames:
                        renames[f.sym_name] = f"k{n}_{f.sym_name}"
                        mod.body.append(renamed_clone(f, renames))
                mapping: dict[Any, Any] = {}
                for a, name in zip(entry.args, entry.arg_names()):
                    kind, ref = pc.wiring[name]
                    mapping[a] = fn.args[ref] if kind == "arg" else bufs[ref]
                inline_entry(entry, body, mapping, renames)
            if nest is not None:
                nest.body.append(AffineYieldOp())
        if y_on:   # and back once, after the last
            copy_rows(fn, fn.body, fn.args[3], 0, bufs[-1], 0, chain.M, compiled, tag, False, (0, 1))
        for b in bufs:
            fn.body.append(DeallocOp(b))
        fn.body.append(ReturnOp())
        mod.body.append(fn)
        if compiled:
            _start_early(plan, mod)
        programs[compiled] = mod
    return GroupProgram(programs[False], programs[True], peak, tuple(args))


def _start_early(plan: _Plan, module: Any) -> None:
    """Each kernel's first copy-ins started above the compute before it that does not touch
    their data (`affine-dma-start-hoist` on the group: an on-chip elementwise or row-wise
    kernel, the chunk buffer's zeroing), within the whole fast level: the next kernel's
    operands arrive while the chunk's on-chip kernels run."""
    from accelsim.compile.compile_cache import run_passes
    from compiler.ir.ops.affine import AffineApplyOp
    from compiler.ir.ops.arith import ConstantOp
    from compiler.transforms.registry import create_pass

    # the kernels' top-level constants, and index arithmetic on them only, first (no
    # effects): a copy-in whose size or index is one of them is not held behind it
    for fn in module.funcs:
        if fn.is_declaration:
            continue
        prefix: list[Any] = []
        done: set[int] = set()
        for op in list(fn.body.ops):
            if isinstance(op, ConstantOp | AffineApplyOp) \
                    and all(id(getattr(v, "owner", None)) in done for v in op.operands):
                op.detach()
                fn.body.insert(len(prefix), op)
                prefix.append(op)
                done.add(id(op))
    cap = plan.config.memory_chain()[1].capacity_kib
    run_passes(module, [create_pass("affine-dma-start-hoist",
                                    f"fast-mem-space={plan.config.spaces.sram} "
                                    f"fast-mem-capacity={cap}")], verify_each=False)


__all__ = ["Chain", "NotChunkable", "chain_at", "chunk_groups", "chunked_modules",
           "shift_accesses", "widths"]
