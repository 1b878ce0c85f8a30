"""Quantized ops: int8 data, int32 accumulation, requantization; QDQ fusion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from accelsim.network.onnx_rows.core import Body, Ctx, Unsupported, V, bcast, ident
from accelsim.network.onnx_rows.windows import conv_row, lower_matmul
from workloads.generic import Row

# ---- quantized (int8 data, int32 accumulation) -------------------------------------------------

def _zero_point(ctx: Ctx, name: str, what: str, scalar: bool = True) -> np.ndarray:
    """A constant int8 (or int32, for a bias) zero point; absent: 0 (then ONNX means uint8)."""
    if not name:
        raise Unsupported(f"{what}: absent (the output type is then uint8 by default); give the "
                          "zero point of the type")
    if ctx.elem_types.get(name) not in (2, 3, 6):
        from onnx import TensorProto

        t = TensorProto.DataType.Name(ctx.elem_types.get(name, 0))
        raise Unsupported(f"{what} {name!r} is {t}: int8 and uint8 quantization are supported")
    z = ctx.need_const(name, what)
    if scalar and z.size != 1:
        if np.all(z == z.reshape(-1)[0]):
            return z.reshape(-1)[:1]
        raise Unsupported(f"{what} {name!r}: a zero point per channel")
    return z


def _axis_view(v: np.ndarray, rank: int, axis: int) -> np.ndarray:
    if v.size == 1:
        return v.reshape(())
    shape = [1] * rank
    shape[axis % rank] = v.size
    return v.reshape(shape)


def lower_dequantize(ctx: Ctx) -> None:
    x, y = ctx.inp(0), ctx.out()
    shape = ctx.shape(x)
    xt = ctx.elem(x)
    if xt == "f32":
        raise Unsupported(f"input {x!r} is not int8 or int32")
    axis = int(ctx.attr("axis", 1))
    s = _axis_view(ctx.need_const(ctx.inp(1), "x_scale").astype(np.float32), len(shape), axis)
    z = _axis_view(_zero_point(ctx, ctx.inp(2), "x_zero_point", scalar=False).astype(np.float32),
                   len(shape), axis) if ctx.inp(2) else np.zeros(())
    sn, zn = ctx.constant(s, "scale"), ctx.constant(z, "zero")
    b = Body(3, (xt, "f32", "f32"))
    v = (b.cast(b.arg(0), "f32") - b.arg(2)) * b.arg(1)
    inputs = ((shape, bcast(shape, shape)), (s.shape, bcast(s.shape, shape)),
              (z.shape, bcast(z.shape, shape)))
    ctx.row(Row(shape, inputs, (shape, ident(len(shape), range(len(shape)))), b.finish(v),
                types=(xt, "f32", "f32", "f32")), [x, sn, zn], y)


def lower_quantize(ctx: Ctx) -> None:
    x, y = ctx.inp(0), ctx.out()
    shape = ctx.shape(x)
    axis = int(ctx.attr("axis", 1))
    s = _axis_view(ctx.need_const(ctx.inp(1), "y_scale").astype(np.float32), len(shape), axis)
    z = _axis_view(_zero_point(ctx, ctx.inp(2), "y_zero_point", scalar=False).astype(np.float32),
                   len(shape), axis)
    sn, zn = ctx.constant(s, "scale"), ctx.constant(z, "zero")
    to = ctx.elem(ctx.inp(2))
    b = Body(3)
    v = b.quantize(b.arg(0) / b.arg(1), zero=b.arg(2), to=to)
    inputs = ((shape, bcast(shape, shape)), (s.shape, bcast(s.shape, shape)),
              (z.shape, bcast(z.shape, shape)))
    ctx.row(Row(shape, inputs, (shape, ident(len(shape), range(len(shape)))), b.finish(v),
                types=("f32", "f32", "f32", to)), [x, sn, zn], y)


def _centered_product(za: int, zb: int) -> Callable[[Body, V, V], V]:
    """(a - za)·(b - zb) in i32 from i8 operands."""
    return lambda b, a, w: (b.cast(a, "i32") - za) * (b.cast(w, "i32") - zb)


def _requantize(ctx: Ctx, acc: str, shape: tuple[int, ...], multiplier: np.ndarray, zy: int, y: str,
                relu: bool = False, to: str = "i8") -> None:
    """y = saturate(round_half_even(acc · multiplier) + zy) to int8 (multiplier per channel
    (axis 1) or one); `relu`: the lower bound is zy (quantize(max(v, 0)))."""
    m = multiplier.astype(np.float32)
    mv = _axis_view(m, len(shape), 1)
    mn = ctx.constant(mv, "multiplier")
    b = Body(2, ("i32", "f32"))
    v = b.quantize(b.cast(b.arg(0), "f32") * b.arg(1), lo=float(zy) if relu else None, zero=float(zy),
                   to=to)
    ctx.row(Row(shape, ((shape, bcast(shape, shape)), (mv.shape, bcast(mv.shape, shape))),
                (shape, ident(len(shape), range(len(shape)))), b.finish(v), types=("i32", "f32", to)),
            [acc, mn], y)


def lower_qlinear(ctx: Ctx) -> None:
    """QLinearMatMul, QLinearConv (and the QDQ patterns fused into them), MatMulInteger,
    ConvInteger: an int32 accumulation of (a - za)(b - zb) over int8 operands, then a
    requantization row to int8 (the QLinear forms)."""
    op = ctx.node.op_type
    y = ctx.out()
    oshape = ctx.shape(y)
    second = ctx.inp(1) if op in ("MatMulInteger", "ConvInteger") else ctx.inp(3)
    types = (ctx.elem(ctx.inp(0)), ctx.elem(second), "i32")
    if op in ("MatMulInteger", "ConvInteger"):
        a, w = ctx.inp(0), ctx.inp(1)
        za = int(_zero_point(ctx, ctx.inp(2), "a_zero_point")[0]) if ctx.inp(2) else 0
        zb = int(_zero_point(ctx, ctx.inp(3), "b_zero_point")[0]) if ctx.inp(3) else 0
        for t in (a, w):
            if ctx.elem(t) not in ("i8", "u8"):
                raise Unsupported(f"operand {t!r}: int8 or uint8 operands are expected")
        if op == "MatMulInteger":
            lower_matmul(ctx, a, w, y, types, _centered_product(za, zb))
        else:
            conv_row(ctx, a, w, y, oshape, float(za), types, _centered_product(za, zb))
        return
    a, sa, za_n, w, sw, zw_n, sy, zy_n = (ctx.inp(i) for i in range(8))
    for t in (a, w):
        if ctx.elem(t) not in ("i8", "u8"):
            raise Unsupported(f"operand {t!r}: int8 or uint8 operands are expected")
    za = int(_zero_point(ctx, za_n, "a zero point")[0])
    zw = int(_zero_point(ctx, zw_n, "b zero point")[0])
    zy = int(_zero_point(ctx, zy_n, "y zero point")[0])
    scale_a = float(ctx.need_const(sa, "a scale").reshape(-1)[0])
    scale_w = ctx.need_const(sw, "b scale").astype(np.float64).reshape(-1)
    scale_y = float(ctx.need_const(sy, "y scale").reshape(-1)[0])
    acc = ctx.tmp("acc")
    relu = bool(ctx.attr("fused_relu", 0))
    if op == "QLinearMatMul":
        if scale_w.size != 1:
            raise Unsupported("a b scale per column")
        lower_matmul(ctx, a, w, acc, types, _centered_product(za, zw))
        _requantize(ctx, acc, oshape, np.array(scale_a * scale_w * (1.0 / scale_y)), zy, y, relu,
                    ctx.elem(zy_n))
        return
    bias = ctx.inp(8)
    target = ctx.tmp("acc") if bias else acc
    conv_row(ctx, a, w, acc, oshape, float(za), types, _centered_product(za, zw))
    if bias:
        if ctx.elem(bias) != "i32":
            raise Unsupported(f"bias {bias!r}: an int32 bias is expected")
        bshape = (oshape[1],) + (1,) * (len(oshape) - 2)
        b = Body(2, ("i32", "i32"))
        ctx.row(Row(oshape, ((oshape, bcast(oshape, oshape)), (bshape, bcast(bshape, oshape))),
                    (oshape, ident(len(oshape), range(len(oshape)))), b.finish(b.arg(0) + b.arg(1)),
                    types=("i32", "i32", "i32")), [acc, bias], target)
    _requantize(ctx, target, oshape, scale_a * scale_w / scale_y, zy, y, relu, ctx.elem(zy_n))


def fuse_qdq(nodes: list[Any], consts: dict[str, np.ndarray], uses: dict[str, int]) -> list[Any]:
    """QDQ patterns as their integer ops: QuantizeLinear(Conv|MatMul(DequantizeLinear(x),
    DequantizeLinear(w)[, DequantizeLinear(bias int32)]) [→ Relu]) becomes one QLinearConv /
    QLinearMatMul node (named `conv+q`), so the product runs on int8 with int32 accumulation;
    the DequantizeLinear nodes nobody reads any more are dropped."""
    from onnx import helper

    producer = {o: n for n in nodes for o in n.output}

    def dq(t: str) -> Any:
        n = producer.get(t)
        return n if n is not None and n.op_type == "DequantizeLinear" and uses.get(t, 0) >= 1 else None

    replaced: dict[int, Any] = {}
    removed: set[int] = set()
    for q in nodes:
        if q.op_type != "QuantizeLinear" or len(q.input) < 3:
            continue
        mid = producer.get(q.input[0])
        relu = None
        if mid is not None and mid.op_type == "Relu" and uses.get(q.input[0], 0) == 1:
            relu, mid = mid, producer.get(mid.input[0])
        if mid is None or mid.op_type not in ("Conv", "MatMul") or uses.get(mid.output[0], 0) != 1:
            continue
        dx, dw = dq(mid.input[0]), dq(mid.input[1])
        if dx is None or dw is None or dw.input[0] not in consts or len(dx.input) < 3 or len(dw.input) < 3:
            continue
        inputs = [dx.input[0], dx.input[1], dx.input[2], dw.input[0], dw.input[1], dw.input[2],
                  q.input[1], q.input[2]]
        attrs = {a.name: helper.get_attribute_value(a) for a in mid.attribute}
        if mid.op_type == "Conv" and len(mid.input) > 2 and mid.input[2]:
            db = dq(mid.input[2])
            if db is None or db.input[0] not in consts:
                continue
            inputs.append(db.input[0])
        kind = "QLinearConv" if mid.op_type == "Conv" else "QLinearMatMul"
        name = "+".join(n.name or n.output[0] for n in (mid, relu, q) if n is not None)
        fused = helper.make_node(kind, inputs, [q.output[0]], name=name, **attrs)
        if relu is not None:
            fused.attribute.append(helper.make_attribute("fused_relu", 1))
        replaced[id(q)] = fused
        removed.update({id(mid)} | ({id(relu)} if relu is not None else set()))
    if not replaced:
        return nodes
    out = [replaced.get(id(n), n) for n in nodes if id(n) not in removed]
    needed: dict[str, int] = {}
    for n in out:
        for t in n.input:
            needed[t] = needed.get(t, 0) + 1
    keep = [n for n in out if n.op_type != "DequantizeLinear"
            or any(needed.get(o, 0) or uses.get(o, 0) > _reads(nodes, o) for o in n.output)]
    return keep


def _reads(nodes: list[Any], t: str) -> int:
    return sum(1 for n in nodes for i in n.input if i == t)
