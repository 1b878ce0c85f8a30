"""Data movement: transpose, concat, split, slice, gather, pad, expand, tile, depth/space, resize."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from accelsim.network.onnx_rows.core import Body, Ctx, E, Unsupported, ident
from accelsim.network.onnx_rows.pointwise import _elementwise
from workloads.generic import Row

# ---- data movement -----------------------------------------------------------------------------

Run = tuple[int, int, int, int]  # out_start, length, in_start, in_step


def copy_runs(ctx: Ctx, src: str, src_shape: tuple[int, ...], dst: str, dst_shape: tuple[int, ...],
              runs: Sequence[Sequence[Run]], accumulate: bool = False, t: str = "f32") -> None:
    """dst[o] = src[i] over the cartesian product of per-axis runs (one row per product)."""
    L = len(src_shape)
    first = True
    for combo in itertools.product(*runs):
        if any(r[1] <= 0 for r in combo):
            continue
        loops = tuple(r[1] for r in combo)
        in_map = tuple(E(L, {i: r[3]}, r[2]) for i, r in enumerate(combo))
        out_map = tuple(E(L, {i: 1}, r[0]) for i, r in enumerate(combo))
        ctx.row(Row(loops, ((src_shape, in_map),), (dst_shape, out_map), (), types=_types(t, 2)), [src], dst,
                accumulate=accumulate or not first)
        first = False


def full(n: int) -> list[Run]:
    return [(0, n, 0, 1)]


def lower_transpose(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    L = len(shape)
    perm = list(ctx.attr("perm", list(range(L - 1, -1, -1))))
    out_shape = tuple(shape[p] for p in perm)
    in_map = [E(L)] * L
    for o, p in enumerate(perm):
        in_map[p] = E(L, {o: 1})
    ctx.row(Row(out_shape, ((shape, tuple(in_map)),), (out_shape, ident(L, range(L))), ()), [x], ctx.out())


def lower_concat(ctx: Ctx) -> None:
    out = ctx.out()
    oshape = ctx.shape(out)
    axis = int(ctx.attr("axis")) % len(oshape)
    off = 0
    first = True
    for t in ctx.node.input:
        if not t:
            continue
        s = ctx.shape(t)
        runs = [full(n) for n in s]
        runs[axis] = [(off, s[axis], 0, 1)]
        copy_runs(ctx, t, s, out, oshape, runs, accumulate=not first)
        first = False
        off += s[axis]


def lower_split(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    axis = int(ctx.attr("axis", 0)) % len(shape)
    off = 0
    for y in ctx.node.output:
        n = ctx.shape(y)[axis] if y else 0
        if y:
            runs = [full(k) for k in shape]
            runs[axis] = [(0, n, off, 1)]
            copy_runs(ctx, x, shape, y, ctx.shape(y), runs)
        off += n


def _slice_params(ctx: Ctx, shape: tuple[int, ...]) -> list[tuple[int, int, int]]:
    if ctx.inp(1):
        starts = ctx.need_const(ctx.inp(1), "starts").reshape(-1)
        ends = ctx.need_const(ctx.inp(2), "ends").reshape(-1)
        axes = ctx.need_const(ctx.inp(3), "axes").reshape(-1) if ctx.inp(3) else range(len(starts))
        steps = ctx.need_const(ctx.inp(4), "steps").reshape(-1) if ctx.inp(4) else [1] * len(starts)
    else:
        starts, ends = ctx.attr("starts"), ctx.attr("ends")
        axes = ctx.attr("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    out = [(0, n, 1) for n in shape]
    for st, en, ax, sp in zip(starts, ends, axes, steps, strict=False):
        ax = int(ax) % len(shape)
        n = shape[ax]
        st, en, sp = int(st), int(en), int(sp)
        en = max(min(en, n), -n - 1) if abs(en) < 2**62 else (n if en > 0 else -n - 1)
        st = max(min(st, n), -n - 1)
        r = range(*slice(st, en, sp).indices(n))
        out[ax] = (r.start, len(r), sp)
    return out


def lower_slice(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    params = _slice_params(ctx, shape)
    oshape = ctx.shape(ctx.out())
    copy_runs(ctx, x, shape, ctx.out(), oshape, [[(0, n, s, st)] for s, n, st in params])


def lower_gather(ctx: Ctx) -> None:
    data, idx = ctx.inp(0), ctx.inp(1)
    ind = ctx.const(idx)
    if ind is None:
        raise Unsupported("indices computed at run time (only constant indices are supported)")
    shape = ctx.shape(data)
    axis = int(ctx.attr("axis", 0)) % len(shape)
    n = shape[axis]
    flat = [int(v) % n for v in ind.reshape(-1)]
    outer, inner = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    src_shape, dst_shape = (outer, n, inner), (outer, len(flat), inner)
    copy_runs(ctx, data, src_shape, ctx.out(), dst_shape, [full(outer), _runs(flat), full(inner)])


def _runs(idx: Sequence[int]) -> list[Run]:
    """Constant indices as arithmetic runs (out_start, length, in_start, step)."""
    runs: list[Run] = []
    i = 0
    while i < len(idx):
        j = i + 1
        step = idx[j] - idx[i] if j < len(idx) else 1
        while j < len(idx) and idx[j] - idx[j - 1] == step:
            j += 1
        runs.append((i, j - i, idx[i], step if j - i > 1 else 1))
        i = j
    return runs


def lower_pad(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    L = len(shape)
    mode = ctx.attr("mode", "constant")
    if ctx.inp(1):
        pads = [int(v) for v in ctx.need_const(ctx.inp(1), "pads").reshape(-1)]
        cv = ctx.const(ctx.inp(2))
        if ctx.inp(2) and cv is None:
            raise Unsupported("a constant_value computed at run time")
        value = float(cv.reshape(-1)[0]) if cv is not None and cv.size else 0.0
        if ctx.inp(3):
            axes = [int(a) % L for a in ctx.need_const(ctx.inp(3), "axes").reshape(-1)]
            full_pads = [0] * (2 * L)
            for k, a in enumerate(axes):
                full_pads[a], full_pads[a + L] = pads[k], pads[k + len(axes)]
            pads = full_pads
    else:
        pads, value = list(ctx.attr("pads")), float(ctx.attr("value", 0.0))
    if any(p < 0 for p in pads):
        raise Unsupported("negative pads (cropping)")
    y = ctx.out()
    oshape = ctx.shape(y)
    if mode == "constant":
        pad_constant(ctx, x, shape, y, pads[:L], value)
        return
    if mode not in ("reflect", "edge"):
        raise Unsupported(f"mode={mode!r}")
    runs = []
    for i, n in enumerate(shape):
        pb, pe = pads[i], pads[i + L]
        if mode == "reflect":
            if pb >= n or pe >= n:
                raise Unsupported("reflect padding wider than the axis")
            runs.append([(0, pb, pb, -1), (pb, n, 0, 1), (pb + n, pe, n - 2, -1)])
        else:
            runs.append([(0, pb, 0, 0), (pb, n, 0, 1), (pb + n, pe, n - 1, 0)])
    copy_runs(ctx, x, shape, y, oshape, runs)


def pad_constant(ctx: Ctx, x: str, shape: tuple[int, ...], y: str, before: Sequence[int],
                 value: float, oshape: tuple[int, ...] | None = None, t: str = "f32") -> None:
    """y (oshape) filled with `value`, x copied at offset `before` (element type `t`)."""
    oshape = oshape or ctx.shape(y)
    L = len(shape)
    if value != 0.0:
        b = Body(0)
        ctx.row(Row(oshape, (), (oshape, ident(L, range(L))), b.finish(b.const(value, t)),
                    types=_types(t, 1)), [], y)
    copy_runs(ctx, x, shape, y, oshape, [[(before[i], shape[i], 0, 1)] for i in range(L)],
              accumulate=value != 0.0, t=t)


def _types(t: str, n: int) -> tuple[str, ...]:
    """Per-operand element types of a row: () for all-f32 (the workload's dtype)."""
    return () if t == "f32" else (t,) * n


def lower_expand(ctx: Ctx) -> None:
    x = ctx.inp(0)
    _elementwise(ctx, [x], ctx.out(), ctx.shape(ctx.out()), lambda b, v: v + 0.0)


def lower_tile(ctx: Ctx) -> None:
    x = ctx.inp(0)
    shape = ctx.shape(x)
    oshape = ctx.shape(ctx.out())
    L = len(shape)
    in_map = tuple(E(L, {i: 1}, 0, 1, n) if n != oshape[i] else E(L, {i: 1}) for i, n in enumerate(shape))
    ctx.row(Row(oshape, ((shape, in_map),), (oshape, ident(L, range(L))), ()), [x], ctx.out())


def lower_depth_space(ctx: Ctx) -> None:
    x = ctx.inp(0)
    N, C, H, W = ctx.shape(x)
    bs = int(ctx.attr("blocksize"))
    if ctx.node.op_type == "DepthToSpace":
        c = C // (bs * bs)
        dcr = ctx.attr("mode", "DCR") == "DCR"
        src = (N, bs, bs, c, H, W) if dcr else (N, c, bs, bs, H, W)
        perm = (0, 3, 4, 1, 5, 2) if dcr else (0, 1, 4, 2, 5, 3)
    else:
        src = (N, C, H // bs, bs, W // bs, bs)
        perm = (0, 3, 5, 1, 2, 4)
    out6 = tuple(src[p] for p in perm)
    in_map = [E(6)] * 6
    for o, p in enumerate(perm):
        in_map[p] = E(6, {o: 1})
    ctx.row(Row(out6, ((src, tuple(in_map)),), (out6, ident(6, range(6))), ()), [x], ctx.out())


_COORD = ("half_pixel", "pytorch_half_pixel", "asymmetric")


def _source(o: np.ndarray, s: int, n_out: int, coord: str) -> np.ndarray:
    """The input coordinate of output positions `o` (integer scale `s`), as ONNX's Resize."""
    if coord == "asymmetric":
        return o / s
    if coord == "pytorch_half_pixel" and n_out == 1:
        return np.zeros_like(o, dtype=np.float64)
    return (o + 0.5) / s - 0.5


def lower_resize(ctx: Ctx) -> None:
    """Resize / Upsample by integer factors: nearest as a floordiv map; linear as, per phase of
    the output (o mod s on each scaled axis), a weighted sum of the 2^k neighbours of an
    edge-padded copy (the weights of a phase are constants)."""
    x, y = ctx.inp(0), ctx.out()
    shape, oshape = ctx.shape(x), ctx.shape(y)
    mode = ctx.attr("mode", "nearest")
    coord = ctx.attr("coordinate_transformation_mode", "half_pixel" if ctx.node.op_type == "Resize"
                     else "asymmetric")
    if ctx.node.op_type == "Upsample":
        coord = "asymmetric"
    L = len(shape)
    scales = []
    for i, (n, m) in enumerate(zip(shape, oshape, strict=True)):
        if m % n:
            raise Unsupported(f"scale {m}/{n} on axis {i}: integer scale factors are supported")
        scales.append(m // n)
    if mode not in ("nearest", "linear"):
        raise Unsupported(f"mode={mode!r}: nearest and linear are supported")
    if coord not in _COORD:
        raise Unsupported(f"coordinate_transformation_mode={coord!r}: {', '.join(_COORD)} are supported")
    if mode == "nearest":
        rule = ctx.attr("nearest_mode", "round_prefer_floor")
        in_map = []
        for i, (n, s_) in enumerate(zip(shape, scales, strict=True)):
            o = np.arange(n * s_)
            src = _source(o, s_, n * s_, coord)
            idx = {"floor": np.floor(src), "ceil": np.ceil(src),
                   "round_prefer_floor": np.ceil(src - 0.5), "round_prefer_ceil": np.floor(src + 0.5)}[rule]
            if not np.array_equal(np.clip(idx, 0, n - 1), o // s_):
                raise Unsupported(f"nearest_mode={rule!r} with {coord} on axis {i}: only modes that "
                                  "pick input o // scale are supported")
            in_map.append(E(L, {i: 1}, 0, s_))
        ctx.row(Row(oshape, ((shape, tuple(in_map)),), (oshape, ident(L, range(L))), ()), [x], y)
        return
    axes = [i for i, s_ in enumerate(scales) if s_ > 1]
    padded = tuple(n + 2 if i in axes else n for i, n in enumerate(shape))
    pad = ctx.tmp("edge")
    copy_runs(ctx, x, shape, pad, padded,
              [[(0, 1, 0, 0), (1, n, 0, 1), (n + 1, 1, n - 1, 0)] if i in axes else full(n)
               for i, n in enumerate(shape)])
    phases = []
    for i in axes:
        s_ = scales[i]
        per = []
        for p_ in range(s_):
            t = float(_source(np.array([p_]), s_, shape[i] * s_, coord)[0])
            base = int(np.floor(t))
            per.append((p_, base, t - base))
        phases.append(per)
    loops = tuple(shape)
    for combo in itertools.product(*phases):
        out_map = []
        taps = []
        for i in range(L):
            if i in axes:
                p_, _, _ = combo[axes.index(i)]
                out_map.append(E(L, {i: scales[i]}, p_))
            else:
                out_map.append(E(L, {i: 1}))
        for corner in itertools.product((0, 1), repeat=len(axes)):
            w = 1.0
            m_ = []
            for i in range(L):
                if i in axes:
                    j = axes.index(i)
                    _, base, f = combo[j]
                    w *= f if corner[j] else 1.0 - f
                    m_.append(E(L, {i: 1}, 1 + base + corner[j]))
                else:
                    m_.append(E(L, {i: 1}))
            if w != 0.0:
                taps.append((w, tuple(m_)))
        b = Body(len(taps))
        v: Any = 0.0
        for k, (w, _) in enumerate(taps):
            v = b.arg(k) * w if isinstance(v, float) else v + b.arg(k) * w
        ctx.row(Row(loops, tuple((padded, m_) for _, m_ in taps), (oshape, tuple(out_map)), b.finish(v)),
                [pad] * len(taps), y, accumulate=combo != tuple(ph[0] for ph in phases))
