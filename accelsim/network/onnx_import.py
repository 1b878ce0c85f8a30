"""ONNX models to networks (the `onnx` package): the model prepared with onnx's own tools
(`accelsim.network.onnx_prep`: version conversion, shapes bound and inferred, every constant
subgraph folded), BatchNormalization folded into the Conv before it where it can be, then one
layer per remaining node: the tuned kernels of `accelsim.network.onnx_ops` where they apply,
the general lowering of `accelsim.network.onnx_rows` (generated loop nests) otherwise.

Runtime data is float32 (booleans and integers computed in the graph are held as f32 values);
f64 data, strings and sequences are refused by name. An op or attribute we do not support is
one error naming the node, its op type and what is missing.
"""

from __future__ import annotations

import os

import numpy as np

from accelsim.network.model import Layer, Network, NetworkError
from accelsim.network.onnx_graph import Graph, node_name
from compiler.diagnostics import Location


def read_onnx(path: str, choice: str = "auto", shapes: dict[str, tuple[int, ...]] | None = None) -> Network:
    import onnx
    from google.protobuf import json_format, message, text_format

    try:
        model = onnx.load(path)
    except (OSError, ValueError, message.Error, json_format.Error, text_format.Error) as exc:
        # a file that cannot be read, or a protobuf (binary, JSON or text) that does not parse
        raise NetworkError(f"cannot read the ONNX model: {exc}", Location(path, 0, 0)) from None
    return import_model(model, path, choice, shapes)


def import_model(model: object, path: str = "<onnx>", choice: str = "auto",
                 shapes: dict[str, tuple[int, ...]] | None = None) -> Network:
    """`model` prepared (`accelsim.network.onnx_prep`: opset conversion, shape binding and
    inference, constant folding) and lowered node by node: the tuned kernels where they
    apply (`accelsim.network.onnx_ops`), the general row lowering (`onnx_rows`) otherwise."""
    import onnx

    from accelsim.network.onnx_prep import prepare
    from accelsim.network.onnx_rows import Unsupported, lower_node

    prep = prepare(model, path, shapes)
    graph = Graph(path, dict(prep.shapes))
    for name, value in prep.constants.items():
        if value.dtype.kind == "f" or value.dtype.name == "bfloat16":  # f16/bf16 exact in f32
            graph.constants[name] = np.ascontiguousarray(value, dtype=np.float32)
        elif value.dtype.kind in "iub":  # indices, masks, int8 weights: each kernel reads them in its type
            graph.constants[name] = np.ascontiguousarray(value)
    for name in prep.inputs:
        elem = prep.types.get(name, onnx.TensorProto.FLOAT)
        if elem not in (onnx.TensorProto.FLOAT, onnx.TensorProto.INT8, onnx.TensorProto.UINT8,
                        onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16):
            raise NetworkError(f"input {name!r} has element type {_type_name(elem)}: "
                               + _type_refusal(elem), Location(path, 0, 0))
    for node in prep.nodes:
        for name in node.input:
            graph.uses[name] = graph.uses.get(name, 0) + 1
    for out in prep.outputs:
        graph.uses[out] = graph.uses.get(out, 0) + 1

    from accelsim.network.onnx_ops import LOWER, fold_batchnorm
    from accelsim.network.onnx_rows import fuse_qdq

    nodes = fuse_qdq(fold_batchnorm(list(prep.nodes), graph), prep.constants, graph.uses)
    graph.uses = {}
    for node in nodes:
        for name in node.input:
            graph.uses[name] = graph.uses.get(name, 0) + 1
    for out in prep.outputs:
        graph.uses[out] = graph.uses.get(out, 0) + 1
    layers: list[Layer] = []
    for index, node in enumerate(nodes):
        where = f"{path}: node {index} {node_name(node)!r}"
        if node.domain not in ("", "ai.onnx"):
            raise graph.error(node, f"domain {node.domain!r}: only the default ONNX domain is supported")
        for name in node.output:
            elem = prep.types.get(name, onnx.TensorProto.FLOAT)
            if name and elem not in _RUNTIME_TYPES:
                raise graph.error(node, f"output {name!r} has element type {_type_name(elem)}: "
                                        + _type_refusal(elem))
        layer = None
        if _tuned(node, graph, prep.types) and node.op_type in LOWER:
            try:
                layer = LOWER[node.op_type](node, graph, where, choice)
            except (NetworkError, ValueError):
                layer = None  # the general lowering below
        if layer is None:
            try:
                layer = lower_node(node, graph.shapes, graph.constants, graph.add_constant, where,
                                   prep.opset, lambda t: bool(t) and graph.uses.get(t, 0) > 0, prep.types)
            except Unsupported as exc:
                raise graph.error(node, str(exc)) from None
            except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as exc:
                # a model this lowering misreads: one error naming the node, not a traceback
                # (the backend-suite harness counts these as crashes, not refusals)
                raise graph.error(node, f"{INTERNAL}: {type(exc).__name__}: {exc}") from None
        layers.append(layer)
    inputs = {name: graph.shapes[name] for name in prep.inputs}
    outputs = {o: graph.shape(o, None) for o in prep.outputs}
    used = {n for layer in layers for k in layer.kernels for _, n in k.reads}
    used |= {old for layer in layers for _, old in layer.views}
    constants = {k: v for k, v in graph.constants.items() if k in used or k in outputs}
    g = model.graph  # type: ignore[attr-defined]
    name = getattr(g, "name", "") or os.path.splitext(os.path.basename(path))[0]
    names = {onnx.TensorProto.INT8: "int8", onnx.TensorProto.UINT8: "uint8",
             onnx.TensorProto.FLOAT16: "float16", onnx.TensorProto.BFLOAT16: "bfloat16"}
    dtypes = {n: names[prep.types[n]] for n in [*prep.inputs, *prep.outputs] if prep.types.get(n) in names}
    return Network(name, path, tuple(layers), inputs, outputs, constants, dtypes)


# FLOAT, BOOL, INT32, INT64, INT8, INT16, UINT8 (bool and integers computed in the graph are held
# as f32 values; int8/int32 in the quantized ops' own types), FLOAT16, BFLOAT16
INTERNAL = "internal error while lowering this node"

_RUNTIME_TYPES = (1, 9, 6, 7, 3, 5, 2, 10, 16)


def _type_name(elem: int) -> str:
    import onnx

    return onnx.TensorProto.DataType.Name(elem)


def _type_refusal(elem: int) -> str:
    import onnx

    if elem == onnx.TensorProto.DOUBLE:
        return "float64 data is not supported (only shapes and indices in f64/int64 are folded away)"
    if elem in (onnx.TensorProto.STRING,):
        return "strings are not supported"
    return "only float32 data (and bool/integer values computed in the graph) is supported"


def _tuned(node: object, graph: Graph, graph_types: dict[str, int]) -> bool:
    """Whether the tuned kernels of `onnx_ops` may take the node (else the general lowering)."""
    from onnx import helper

    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}  # type: ignore[attr-defined]
    op = node.op_type  # type: ignore[attr-defined]
    if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET", b"", ""):
        return False
    if any(graph_types.get(t) in (10, 16) for t in [*node.input, *node.output]):  # type: ignore[attr-defined]
        return False  # f16/bf16 tensors: the general lowering reads them in their own type
    if op in ("MaxPool", "AveragePool", "GlobalAveragePool", "Conv"):
        x = node.input[0]  # type: ignore[attr-defined]
        if len(graph.shapes.get(x, ())) != 4:
            return False
    if op == "MaxPool" and len(node.output) > 1 and graph.uses.get(node.output[1], 0):  # type: ignore[attr-defined]
        return False
    if op == "Softmax":  # before opset 13 the axis flattens; last-axis only is the same then
        return True
    return True
