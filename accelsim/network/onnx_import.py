"""ONNX models to networks (the `onnx` package): shape inference, constant folding of
initializers, BatchNormalization folded into the Conv before it, then one layer per node
(`accelsim.network.onnx_ops` lowers each op type).

Every tensor must be float32 with a static shape (after shape inference); initializers and
`Constant` nodes are constants, folded at import (a transposed or scaled weight, a bias
broadcast over its output). An op we do not support is an error naming the node and its op
type.
"""

from __future__ import annotations

import os

import numpy as np

from accelsim.network.model import Layer, Network, NetworkError
from accelsim.network.onnx_graph import Graph, node_name
from compiler.diagnostics import Location


def read_onnx(path: str, choice: str = "auto") -> Network:
    import onnx

    try:
        model = onnx.load(path)
    except Exception as exc:  # a protobuf that does not parse
        raise NetworkError(f"cannot read the ONNX model: {exc}", Location(path, 0, 0)) from None
    return import_model(model, path, choice)


def import_model(model: object, path: str = "<onnx>", choice: str = "auto",
                 shapes: dict | None = None) -> Network:
    import onnx
    from onnx import numpy_helper, shape_inference

    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=True)  # type: ignore[arg-type]
    except Exception as exc:
        raise NetworkError(f"ONNX shape inference failed: {exc}", Location(path, 0, 0)) from None
    g = inferred.graph
    graph = Graph(path, {})
    initialized = {init.name for init in g.initializer}
    for vi in [*g.input, *g.output]:
        elem = vi.type.tensor_type.elem_type
        if vi.name not in initialized and elem != onnx.TensorProto.FLOAT:
            raise NetworkError(f"tensor {vi.name!r} has element type "
                               f"{onnx.TensorProto.DataType.Name(elem)}: only float32 is supported",
                               Location(path, 0, 0))
    for vi in [*g.input, *g.value_info, *g.output]:
        dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
        if all(d is not None for d in dims):
            graph.shapes[vi.name] = tuple(int(d) for d in dims)  # type: ignore[arg-type]
    for init in g.initializer:
        graph.add_constant(init.name, numpy_helper.to_array(init).astype(np.float32))
    for node in g.node:
        for name in node.input:
            graph.uses[name] = graph.uses.get(name, 0) + 1
    for out in g.output:
        graph.uses[out.name] = graph.uses.get(out.name, 0) + 1

    from accelsim.network.onnx_ops import LOWER, fold_batchnorm, unsupported

    nodes = fold_batchnorm(list(g.node), graph)
    layers: list[Layer] = []
    for index, node in enumerate(nodes):
        if node.op_type == "Constant":
            _constant_node(node, graph)
            continue
        lower = LOWER.get(node.op_type)
        if lower is None:
            raise unsupported(node, graph)
        layer = lower(node, graph, f"{path}: node {index} {node_name(node)!r}", choice)
        layers.append(layer)
    inputs = {i.name: graph.shapes[i.name] for i in g.input if i.name not in graph.constants}
    missing = [i for i in g.input if i.name not in graph.constants and i.name not in graph.shapes]
    if missing:
        raise NetworkError(f"input {missing[0].name!r} has no static shape", Location(path, 0, 0))
    outputs = {o.name: graph.shape(o.name, nodes[-1] if nodes else None) for o in g.output}
    used = {n for layer in layers for k in layer.kernels for _, n in k.reads}
    used |= {old for layer in layers for _, old in layer.views}
    constants = {k: v for k, v in graph.constants.items() if k in used or k in outputs}
    name = getattr(g, "name", "") or os.path.splitext(os.path.basename(path))[0]
    return Network(name, path, tuple(layers), inputs, outputs, constants)


def _constant_node(node: object, graph: Graph) -> None:
    from onnx import numpy_helper

    for attr in node.attribute:  # type: ignore[attr-defined]
        if attr.name == "value":
            graph.add_constant(node.output[0], numpy_helper.to_array(attr.t).astype(np.float32))  # type: ignore[attr-defined]
            return
        if attr.name in ("value_float", "value_floats"):
            graph.add_constant(node.output[0], np.array(attr.f if attr.name == "value_float"  # type: ignore[attr-defined]
                                                        else list(attr.floats), dtype=np.float32))
            return
    raise graph.error(node, "a Constant without a tensor or float value is not supported")
