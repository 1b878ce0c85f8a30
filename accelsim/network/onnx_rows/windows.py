"""Contractions (einsum, matmul, gemm), convolution and pooling."""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Sequence

import numpy as np

from accelsim.network.onnx_rows.core import F32_LOWEST, Body, Ctx, E, Unsupported, V, ident
from accelsim.network.onnx_rows.movement import copy_runs, full, pad_constant
from accelsim.network.onnx_rows.pointwise import _elementwise
from workloads.generic import Row

# ---- contractions --------------------------------------------------------------------------------

def einsum_row(ctx: Ctx, terms: Sequence[str], out_term: str, reads: Sequence[str],
               shapes: Sequence[tuple[int, ...]], out: str, out_shape: tuple[int, ...],
               types: tuple[str, ...] = (), body: Callable[..., V] | None = None) -> None:
    letters: dict[str, int] = {}
    for term, shape in zip(terms, shapes, strict=True):
        for ch, n in zip(term, shape, strict=True):
            if letters.get(ch, 1) == 1:
                letters[ch] = n
    order = [c for c in out_term] + [c for c in letters if c not in out_term]
    pos = {c: i for i, c in enumerate(order)}
    L = len(order)
    loops = tuple(letters[c] for c in order)
    inputs = tuple((s, tuple(E(L) if n == 1 and letters[c] != 1 else E(L, {pos[c]: 1})
                             for c, n in zip(t, s, strict=True)))
                   for t, s in zip(terms, shapes, strict=True))
    b = Body(len(reads), types[:-1] if types else None)
    if body is not None:
        v = body(b, *[b.arg(i) for i in range(len(reads))])
    else:
        v = b.arg(0)
        for i in range(1, len(reads)):
            v = v * b.arg(i)
    reduce = len(order) > len(out_term)
    row = Row(loops, inputs, (out_shape, ident(L, [pos[c] for c in out_term])), b.finish(v),
              "add" if reduce else None, 0.0, types=types)
    ctx.macs += math.prod(loops)
    ctx.row(row, reads, out)


def lower_einsum(ctx: Ctx) -> None:
    eq = ctx.attr("equation").replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    reads = [t for t in ctx.node.input]
    shapes = [ctx.shape(t) for t in reads]
    if "..." in eq:
        free = [c for c in string.ascii_letters if c not in eq]
        nb = max(len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes, strict=True) if "..." in t)
        ell = "".join(free[:nb])
        terms = [t.replace("...", ell[nb - (len(s) - len(t.replace("...", ""))):])
                 for t, s in zip(terms, shapes, strict=True)]
        rhs = rhs.replace("...", ell) if _ else rhs
    if not _:
        counts = {c: sum(t.count(c) for t in terms) for c in set("".join(terms))}
        rhs = "".join(sorted(c for c, k in counts.items() if k == 1))
    if any(len(set(t)) != len(t) for t in terms):
        raise Unsupported(f"equation {eq!r}: a repeated index within one operand (a diagonal)")
    einsum_row(ctx, terms, rhs, reads, shapes, ctx.out(), ctx.shape(ctx.out()))


def lower_matmul(ctx: Ctx, a: str | None = None, b_: str | None = None, out: str | None = None,
                 types: tuple[str, ...] = (), body: Callable[..., V] | None = None) -> None:
    a, b_ = a or ctx.inp(0), b_ or ctx.inp(1)
    sa, sb = ctx.shape(a), ctx.shape(b_)
    letters = "abcdefghij"
    ta = "m" + "k" if len(sa) >= 2 else "k"
    tb = "kn" if len(sb) >= 2 else "k"
    batch = max(len(sa), len(sb)) - 2
    bl = letters[:max(batch, 0)]
    ta = (bl[len(bl) - (len(sa) - 2):] if len(sa) > 2 else "") + (ta if len(sa) >= 2 else "k")
    tb = (bl[len(bl) - (len(sb) - 2):] if len(sb) > 2 else "") + tb
    term = bl + ("m" if len(sa) >= 2 else "") + ("n" if len(sb) >= 2 else "")
    einsum_row(ctx, [ta, tb], term, [a, b_], [sa, sb], out or ctx.out(), ctx.shape(ctx.out()), types, body)


def lower_gemm(ctx: Ctx) -> None:
    a, b_, c = ctx.inp(0), ctx.inp(1), ctx.inp(2)
    ta = "km" if ctx.attr("transA", 0) else "mk"
    tb = "nk" if ctx.attr("transB", 0) else "kn"
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    y = ctx.out()
    oshape = ctx.shape(y)
    if not c and alpha == 1.0:
        einsum_row(ctx, [ta, tb], "mn", [a, b_], [ctx.shape(a), ctx.shape(b_)], y, oshape)
        return
    p = ctx.tmp("product")
    einsum_row(ctx, [ta, tb], "mn", [a, b_], [ctx.shape(a), ctx.shape(b_)], p, oshape)
    if c:
        _elementwise(ctx, [p, c], y, oshape, lambda b, v, w: alpha * v + beta * w)
    else:
        _elementwise(ctx, [p], y, oshape, lambda b, v: alpha * v)


# ---- convolution and pooling ---------------------------------------------------------------------

def _auto_pads(ctx: Ctx, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
               dil: Sequence[int]) -> list[int]:
    k = len(spatial)
    auto = ctx.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        return list(ctx.attr("pads", [0] * (2 * k)))
    if auto == "VALID":
        return [0] * (2 * k)
    pads = [0] * (2 * k)
    for i in range(k):
        out = -(-spatial[i] // strides[i])
        total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - spatial[i])
        small, big = total // 2, total - total // 2
        pads[i], pads[i + k] = (small, big) if auto == "SAME_UPPER" else (big, small)
    return pads


def _window_input(ctx: Ctx, x: str, shape: tuple[int, ...], out_sp: Sequence[int], kernel: Sequence[int],
                  strides: Sequence[int], dil: Sequence[int], pads: Sequence[int],
                  value: float, t: str = "f32") -> tuple[str, tuple[int, ...]]:
    """x padded so that every window of the output lies inside it."""
    k = len(kernel)
    before = list(pads[:k])
    need = [(out_sp[i] - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 for i in range(k)]
    size = [max(shape[2 + i] + before[i], need[i]) for i in range(k)]
    if before == [0] * k and size == list(shape[2:]):
        return x, shape
    padded = (shape[0], shape[1], *size)
    name = ctx.tmp("padded")
    pad_constant(ctx, x, shape, name, [0, 0, *before], value, padded, t)
    return name, padded


def lower_conv(ctx: Ctx) -> None:
    bias = ctx.inp(2)
    y = ctx.out()
    oshape = ctx.shape(y)
    target = ctx.tmp("acc") if bias else y
    conv_row(ctx, ctx.inp(0), ctx.inp(1), target, oshape)
    if bias:
        _elementwise(ctx, [target, bias], y, oshape, lambda b, v, c: v + c,
                     [oshape, (oshape[1],) + (1,) * (len(oshape) - 2)])


def conv_row(ctx: Ctx, x: str, w: str, out: str, oshape: tuple[int, ...], pad_value: float = 0.0,
             types: tuple[str, str, str] | None = None,
             body: Callable[[Body, V, V], V] | None = None) -> None:
    """out = Σ body(x_window, w) over the window and input channels of each group (default:
    the product in f32); `types` (x, w, out) for an integer convolution, whose padding holds
    `pad_value` (the input's zero point)."""
    shape, ws = ctx.shape(x), ctx.shape(w)
    k = len(shape) - 2
    G = int(ctx.attr("group", 1))
    kernel = list(ws[2:])
    strides = list(ctx.attr("strides", [1] * k))
    dil = list(ctx.attr("dilations", [1] * k))
    pads = _auto_pads(ctx, shape[2:], kernel, strides, dil)
    xt = types[0] if types else "f32"
    xp, pshape = _window_input(ctx, x, shape, oshape[2:], kernel, strides, dil, pads, pad_value, xt)
    N, C, K = shape[0], shape[1], ws[0]
    Cg, Kg = C // G, K // G
    # loops: n, g, kk, out spatial (k), c, kernel spatial (k)
    loops = (N, G, Kg, *oshape[2:], Cg, *kernel)
    L = len(loops)
    oi, ci, ri = 3, 3 + k, 4 + k
    x_map = (E(L, {0: 1}), E(L, {1: Cg, ci: 1}),
             *(E(L, {oi + i: strides[i], ri + i: dil[i]}) for i in range(k)))
    w_map = (E(L, {1: Kg, 2: 1}), E(L, {ci: 1}), *(E(L, {ri + i: 1}) for i in range(k)))
    y_map = (E(L, {0: 1}), E(L, {1: Kg, 2: 1}), *(E(L, {oi + i: 1}) for i in range(k)))
    b = Body(2, types[:2] if types else None)
    value = body(b, b.arg(0), b.arg(1)) if body else b.arg(0) * b.arg(1)
    ctx.row(Row(loops, ((pshape, x_map), (ws, w_map)), (oshape, y_map), b.finish(value), "add", 0.0,
                types=tuple(types) if types else ()), [xp, w], out)
    ctx.macs += math.prod(loops)


def lower_conv_transpose(ctx: Ctx) -> None:
    x, w, bias = ctx.inp(0), ctx.inp(1), ctx.inp(2)
    shape, ws = ctx.shape(x), ctx.shape(w)
    k = len(shape) - 2
    G = int(ctx.attr("group", 1))
    kernel = list(ws[2:])
    strides = list(ctx.attr("strides", [1] * k))
    dil = list(ctx.attr("dilations", [1] * k))
    y = ctx.out()
    oshape = ctx.shape(y)
    N, C = shape[0], shape[1]
    Cg, Kg = C // G, ws[1]
    K = Kg * G
    fullsp = [(shape[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 for i in range(k)]
    auto = ctx.attr("auto_pad", "NOTSET")
    outpad = list(ctx.attr("output_padding", [0] * k))
    if ctx.attr("output_shape") is not None or auto in ("SAME_UPPER", "SAME_LOWER"):
        before = []
        for i in range(k):
            total = fullsp[i] + outpad[i] - oshape[2 + i]
            before.append(total // 2 if auto == "SAME_UPPER" else total - total // 2)
    else:
        before = list(ctx.attr("pads", [0] * (2 * k)))[:k]
    fshape = (N, K, *fullsp)
    full_t = ctx.tmp("full")
    loops = (N, G, Cg, *shape[2:], Kg, *kernel)
    L = len(loops)
    ii, kk, ri = 3, 3 + k, 4 + k
    x_map = (E(L, {0: 1}), E(L, {1: Cg, 2: 1}), *(E(L, {ii + i: 1}) for i in range(k)))
    w_map = (E(L, {1: Cg, 2: 1}), E(L, {kk: 1}), *(E(L, {ri + i: 1}) for i in range(k)))
    f_map = (E(L, {0: 1}), E(L, {1: Kg, kk: 1}),
             *(E(L, {ii + i: strides[i], ri + i: dil[i]}) for i in range(k)))
    b = Body(2)
    ctx.row(Row(loops, ((shape, x_map), (ws, w_map)), (fshape, f_map), b.finish(b.arg(0) * b.arg(1)),
                "add", 0.0), [x, w], full_t)
    ctx.macs += math.prod(loops)
    target = ctx.tmp("cropped") if bias else y
    runs = [full(N), full(K)] + [[(0, min(oshape[2 + i], fullsp[i] - before[i]), before[i], 1)]
                                 for i in range(k)]
    copy_runs(ctx, full_t, fshape, target, oshape, runs)
    if bias:
        _elementwise(ctx, [target, bias], y, oshape, lambda b, v, c: v + c, [oshape, (K,) + (1,) * k])


def lower_pool(ctx: Ctx) -> None:
    op = ctx.node.op_type
    x, y = ctx.inp(0), ctx.out()
    if len(ctx.node.output) > 1 and ctx.used(ctx.node.output[1]):
        raise Unsupported("the Indices output")
    shape, oshape = ctx.shape(x), ctx.shape(y)
    k = len(shape) - 2
    if op.startswith("Global"):
        kernel, strides, dil, pads = list(shape[2:]), [1] * k, [1] * k, [0] * (2 * k)
    else:
        kernel = list(ctx.attr("kernel_shape"))
        strides = list(ctx.attr("strides", [1] * k))
        dil = list(ctx.attr("dilations", [1] * k))
        pads = _auto_pads(ctx, shape[2:], kernel, strides, dil)
    is_max = "Max" in op
    if op == "LpPool" or op == "GlobalLpPool":
        raise Unsupported(op)
    xp, pshape = _window_input(ctx, x, shape, oshape[2:], kernel, strides, dil, pads,
                               F32_LOWEST if is_max else 0.0)
    loops = (*oshape, *kernel)
    L = len(loops)
    in_map = (E(L, {0: 1}), E(L, {1: 1}), *(E(L, {2 + i: strides[i], 2 + k + i: dil[i]}) for i in range(k)))
    b = Body(1)
    target = y if is_max else ctx.tmp("sum")
    ctx.row(Row(loops, ((pshape, in_map),), (oshape, ident(L, range(len(oshape)))), b.finish(b.arg(0) + 0.0),
                "max" if is_max else "add", F32_LOWEST if is_max else 0.0), [xp], target)
    if is_max:
        return
    include = bool(ctx.attr("count_include_pad", 0))
    counts = np.ones(oshape[2:], dtype=np.float64)
    for i in range(k):
        lo, hi = (-pads[i], shape[2 + i] + pads[i + k]) if include else (0, shape[2 + i])
        o = np.arange(oshape[2 + i])[:, None] * strides[i] + np.arange(kernel[i])[None, :] * dil[i] - pads[i]
        c = ((o >= lo) & (o < hi)).sum(axis=1).astype(np.float64)
        counts = counts * c.reshape([-1 if j == i else 1 for j in range(k)])
    inv = ctx.constant(1.0 / np.maximum(counts, 1.0), "inverse_count")
    _elementwise(ctx, [target, inv], y, oshape, lambda b, v, c: v * c, [oshape, tuple(oshape[2:])])
