"""Transformer blocks built with onnx.helper node for node the way `torch.onnx.export`
(opset 17) writes them: `Shape → Gather → Unsqueeze → Concat → Reshape` head splits,
`Transpose`d MatMuls, `Split`, `Slice`, `Where` masks, `Erf` / `Tanh` GELUs, `Pow` /
`ReduceMean` / `Sqrt` norms, `Cast`, `Einsum`. Small sizes, seeded random weights."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
S, D, H, FF = 4, 8, 2, 16
DH = D // H


class G:
    """A graph under construction: node(op, inputs, **attrs) returns the output name."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.n = 0

    def node(self, op: str, *inputs: str, outputs: int = 1, **attrs: object) -> str | list[str]:
        self.n += 1
        outs = [f"/{op}_{self.n}_output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=f"/{op}_{self.n}", **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value: object, dtype: object = np.float32) -> str:
        return self.node("Constant", value=numpy_helper.from_array(np.array(value, dtype=dtype)))  # type: ignore[return-value]

    def weight(self, name: str, *shape: int, scale: float = 0.3) -> str:
        self.inits.append(numpy_helper.from_array(
            (self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def i64(self, *values: int) -> str:
        return self.const(list(values), np.int64)

    def linear(self, x: str, name: str, n_in: int, n_out: int) -> str:
        y = self.node("MatMul", x, self.weight(f"{name}.weight", n_in, n_out))
        return self.node("Add", self.weight(f"{name}.bias", n_out), y)  # type: ignore[return-value]

    def split_heads(self, t: str) -> str:
        """(1, S, D) -> (1, H, S, DH) through the exporter's shape arithmetic."""
        shape = self.node("Shape", t)
        b = self.node("Gather", shape, self.const(0, np.int64), axis=0)
        s = self.node("Gather", shape, self.const(1, np.int64), axis=0)
        dims = [self.node("Unsqueeze", v, self.i64(0)) for v in (b, s)]
        new = self.node("Concat", *dims, self.i64(H), self.i64(DH), axis=0)
        r = self.node("Reshape", t, new)
        return self.node("Transpose", r, perm=[0, 2, 1, 3])  # type: ignore[return-value]

    def merge_heads(self, t: str, like: str) -> str:
        tr = self.node("Transpose", t, perm=[0, 2, 1, 3])
        shape = self.node("Shape", like)
        bs = self.node("Slice", shape, self.i64(0), self.i64(2), self.i64(0))
        new = self.node("Concat", bs, self.i64(D), axis=0)
        return self.node("Reshape", tr, new)  # type: ignore[return-value]

    def model(self, name: str, inputs: list[onnx.ValueInfoProto], outputs: list[str]) -> onnx.ModelProto:
        outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["batch", "sequence", D])
                for o in outputs]
        graph = helper.make_graph(self.nodes, name, inputs, outs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def _x() -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["batch", "sequence", D])


def gpt2_block(seed: int = 0) -> onnx.ModelProto:
    """LayerNormalization, fused qkv + Split, causal mask by Slice of a constant + Where,
    scaled QK^T by Div, Softmax, tanh GELU written out with Pow, residual Adds."""
    g = G(seed)
    x = "hidden_states"
    ln1 = g.node("LayerNormalization", x, g.weight("ln_1.weight", D), g.weight("ln_1.bias", D),
                 axis=-1, epsilon=1e-5)
    qkv = g.linear(ln1, "attn.c_attn", D, 3 * D)
    q, k, v = g.node("Split", qkv, g.i64(D, D, D), axis=2, outputs=3)
    qh, kh, vh = (g.split_heads(t) for t in (q, k, v))
    kt = g.node("Transpose", kh, perm=[0, 1, 3, 2])
    att = g.node("MatMul", qh, kt)
    att = g.node("Div", att, g.const(np.sqrt(DH)))
    bias = g.const(np.tril(np.ones((1, 1, 16, 16), dtype=bool)), np.bool_)
    qlen = g.node("Gather", g.node("Shape", qh), g.const(2, np.int64), axis=0)
    klen = g.node("Gather", g.node("Shape", kh), g.const(2, np.int64), axis=0)
    start = g.node("Sub", klen, qlen)
    mask = g.node("Slice", bias, g.node("Unsqueeze", start, g.i64(0)), g.node("Unsqueeze", klen, g.i64(0)),
                  g.i64(2), g.i64(1))
    mask = g.node("Slice", mask, g.i64(0), g.node("Unsqueeze", klen, g.i64(0)), g.i64(3), g.i64(1))
    att = g.node("Where", mask, att, g.const(np.finfo(np.float32).min))
    att = g.node("Softmax", att, axis=-1)
    ctx = g.merge_heads(g.node("MatMul", att, vh), x)
    proj = g.linear(ctx, "attn.c_proj", D, D)
    h = g.node("Add", proj, x)
    ln2 = g.node("LayerNormalization", h, g.weight("ln_2.weight", D), g.weight("ln_2.bias", D),
                 axis=-1, epsilon=1e-5)
    f = g.linear(ln2, "mlp.c_fc", D, FF)
    inner = g.node("Mul", g.const(0.7978845608028654),
                   g.node("Add", f, g.node("Mul", g.const(0.044715), g.node("Pow", f, g.const(3.0)))))
    gelu = g.node("Mul", g.node("Mul", g.const(0.5), f), g.node("Add", g.const(1.0), g.node("Tanh", inner)))
    out = g.node("Add", h, g.linear(gelu, "mlp.c_proj", FF, D))
    return g.model("gpt2_block", [_x()], [out])


def _layernorm_decomposed(g: G, x: str, name: str) -> str:
    mean = g.node("ReduceMean", x, axes=[-1], keepdims=1)
    d = g.node("Sub", x, mean)
    var = g.node("ReduceMean", g.node("Pow", d, g.const(2.0)), axes=[-1], keepdims=1)
    r = g.node("Div", d, g.node("Sqrt", g.node("Add", var, g.const(1e-12))))
    return g.node("Add", g.node("Mul", r, g.weight(f"{name}.weight", D)), g.weight(f"{name}.bias", D))  # type: ignore[return-value]


def bert_layer(seed: int = 1) -> onnx.ModelProto:
    """Separate q/k/v Linears, an additive attention mask from a float mask input (Cast,
    Sub, Mul), K transposed inside the MatMul, Erf GELU, LayerNorm decomposed."""
    g = G(seed)
    x = "hidden_states"
    q, k, v = (g.linear(x, f"attention.self.{n}", D, D) for n in ("query", "key", "value"))
    qh, kh, vh = (g.split_heads(t) for t in (q, k, v))
    att = g.node("MatMul", qh, g.node("Transpose", kh, perm=[0, 1, 3, 2]))
    att = g.node("Div", att, g.const(np.sqrt(DH)))
    m = g.node("Unsqueeze", g.node("Unsqueeze", "attention_mask", g.i64(1)), g.i64(2))
    m = g.node("Cast", m, to=TensorProto.FLOAT)
    m = g.node("Mul", g.node("Sub", g.const(1.0), m), g.const(-10000.0))
    att = g.node("Softmax", g.node("Add", att, m), axis=-1)
    ctx = g.merge_heads(g.node("MatMul", att, vh), x)
    h = _layernorm_decomposed(g, g.node("Add", g.linear(ctx, "attention.output.dense", D, D), x),
                              "attention.output.LayerNorm")
    f = g.linear(h, "intermediate.dense", D, FF)
    erf = g.node("Erf", g.node("Div", f, g.const(1.4142135623730951)))
    gelu = g.node("Mul", g.node("Mul", f, g.node("Add", erf, g.const(1.0))), g.const(0.5))
    out = _layernorm_decomposed(g, g.node("Add", g.linear(gelu, "output.dense", FF, D), h),
                                "output.LayerNorm")
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["batch", "sequence"])
    return g.model("bert_layer", [_x(), mask], [out])


def _rmsnorm(g: G, x: str, name: str) -> str:
    var = g.node("ReduceMean", g.node("Pow", x, g.const(2.0)), axes=[-1], keepdims=1)
    r = g.node("Reciprocal", g.node("Sqrt", g.node("Add", var, g.const(1e-6))))
    return g.node("Mul", g.weight(f"{name}.weight", D), g.node("Mul", x, r))  # type: ignore[return-value]


def _rotate_half(g: G, t: str) -> str:
    a = g.node("Slice", t, g.i64(0), g.i64(DH // 2), g.i64(-1), g.i64(1))
    b = g.node("Slice", t, g.i64(DH // 2), g.i64(np.iinfo(np.int64).max), g.i64(-1), g.i64(1))
    return g.node("Concat", g.node("Neg", b), a, axis=-1)  # type: ignore[return-value]


def llama_block(seed: int = 2) -> onnx.ModelProto:
    """RMSNorm (Pow/ReduceMean/Sqrt/Reciprocal), rotary embeddings (cos/sin tables Gathered
    at Range positions, rotate_half by Slice/Neg/Concat), causal mask by Expand + Where,
    QK^T as an Einsum, SiLU-gated MLP."""
    g = G(seed)
    x = "hidden_states"
    hn = _rmsnorm(g, x, "input_layernorm")
    q, k, v = (g.node("MatMul", hn, g.weight(f"self_attn.{n}_proj.weight", D, D)) for n in "qkv")
    qh, kh, vh = (g.split_heads(t) for t in (q, k, v))
    seq = g.node("Gather", g.node("Shape", x), g.const(1, np.int64), axis=0)
    pos = g.node("Range", g.const(0, np.int64), seq, g.const(1, np.int64))
    inv = 1.0 / (10000 ** (np.arange(0, DH, 2) / DH))
    freqs = np.outer(np.arange(32), inv)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos = g.node("Gather", g.const(np.cos(emb)), pos, axis=0)
    sin = g.node("Gather", g.const(np.sin(emb)), pos, axis=0)
    qr = g.node("Add", g.node("Mul", qh, cos), g.node("Mul", _rotate_half(g, qh), sin))
    kr = g.node("Add", g.node("Mul", kh, cos), g.node("Mul", _rotate_half(g, kh), sin))
    att = g.node("Einsum", qr, kr, equation="bhqd,bhkd->bhqk")
    att = g.node("Mul", att, g.const(1.0 / np.sqrt(DH)))
    tri = g.node("Less", g.node("Unsqueeze", pos, g.i64(0)), g.node("Unsqueeze", pos, g.i64(1)))
    shape4 = g.node("Shape", att)
    mask = g.node("Expand", tri, shape4)
    att = g.node("Where", mask, g.const(np.finfo(np.float32).min), att)
    att = g.node("Softmax", att, axis=-1)
    ctx = g.merge_heads(g.node("MatMul", att, vh), x)
    h = g.node("Add", x, g.node("MatMul", ctx, g.weight("self_attn.o_proj.weight", D, D)))
    hn2 = _rmsnorm(g, h, "post_attention_layernorm")
    gate = g.node("MatMul", hn2, g.weight("mlp.gate_proj.weight", D, FF))
    up = g.node("MatMul", hn2, g.weight("mlp.up_proj.weight", D, FF))
    act = g.node("Mul", g.node("Mul", gate, g.node("Sigmoid", gate)), up)
    out = g.node("Add", h, g.node("MatMul", act, g.weight("mlp.down_proj.weight", FF, D)))
    return g.model("llama_block", [_x()], [out])


def inputs_for(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    feeds = {"hidden_states": rng.standard_normal((1, S, D)).astype(np.float32)}
    if any(i.name == "attention_mask" for i in model.graph.input):
        feeds["attention_mask"] = np.array([[1.0] * (S - 1) + [0.0]], dtype=np.float32)
    return feeds
