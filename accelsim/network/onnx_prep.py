"""An ONNX model made ready for lowering with the onnx package's own tools:

1. the default-domain opset is converted up to `TARGET_OPSET` with `onnx.version_converter`
   (a newer model is kept as it is; if the converter has no adapter for one of the model's
   ops, a model from opset 7 on is kept at its own opset, an older one is refused);
2. symbolic or missing input dimensions are bound from `shapes` (`--shape NAME=DIMS`) or
   refused by input and dimension name;
3. strict shape inference (with data propagation), then every node whose inputs are all
   constant is evaluated with `onnx.reference` and becomes a constant — shape arithmetic
   included: `Shape` and `Size` of a tensor of known shape are constants, so `Shape → Gather →
   Concat → Reshape` chains and `ConstantOfShape`/`Range` fold away; repeated to a fixed point.
   Nodes none of whose outputs is used are dropped.

`prepare` returns the remaining nodes, the constants (numpy, their own dtypes), the static
shape and element type of every tensor, and the graph inputs and outputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accelsim.network.model import NetworkError
from compiler.diagnostics import Location

TARGET_OPSET = 17
MIN_OPSET = 7
# nodes never folded (their value is not a function of their inputs)
NOT_FOLDED = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
              "Bernoulli",
              # kept so that a QDQ pattern still sees its int8 weights (`onnx_rows.fuse_qdq`)
              "DequantizeLinear"}


@dataclass
class Prepared:
    nodes: list[Any]
    constants: dict[str, np.ndarray]
    shapes: dict[str, tuple[int, ...]]
    types: dict[str, int]                      # onnx.TensorProto element type
    inputs: list[str]
    outputs: list[str]
    opset: int
    notes: list[str] = field(default_factory=list)


def _onnx_tool_errors() -> tuple[type[Exception], ...]:
    """What onnx's C++ tools (version converter, shape inference) raise on a model they cannot
    handle: their own error classes, the checker's, and RuntimeError for a failed C++
    assertion (e.g. the converter meeting an op it has no schema for)."""
    from onnx import checker, shape_inference, version_converter

    return (checker.ValidationError, shape_inference.InferenceError,
            version_converter.ConvertError, RuntimeError)


def _err(path: str, message: str) -> NetworkError:
    return NetworkError(message, Location(path, 0, 0))


def parse_shapes(items: list[str] | None) -> dict[str, tuple[int, ...]]:
    """`NAME=DIMS` items (`input=1x3x224x224`, `ids=1,128`) to {name: dims}."""
    out: dict[str, tuple[int, ...]] = {}
    for item in items or []:
        name, eq, dims = item.partition("=")
        try:
            if not eq or not name:
                raise ValueError
            out[name.strip()] = tuple(int(d) for d in dims.replace(",", "x").split("x") if d.strip())
        except ValueError:
            raise ValueError(f"--shape {item!r}: expected NAME=DIMS, e.g. input=1x3x224x224") from None
    return out


def default_opset(model: Any) -> int:
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return int(imp.version)
    return 1


def prepare(model: Any, path: str, shapes: dict[str, tuple[int, ...]] | None = None) -> Prepared:
    import onnx
    from onnx import shape_inference, version_converter

    notes: list[str] = []
    opset = default_opset(model)
    if opset < TARGET_OPSET:
        try:
            model = version_converter.convert_version(model, TARGET_OPSET)
            opset = TARGET_OPSET
        except _onnx_tool_errors() as exc:  # no adapter for one of its ops: keep its own opset
            reason = str(exc).splitlines()[0][:160]
            if opset < MIN_OPSET:
                raise _err(path, f"opset {opset}: the version converter cannot bring it to opset "
                                 f"{TARGET_OPSET} ({reason}); models from opset {MIN_OPSET} on are "
                                 "supported") from None
            notes.append(f"kept opset {opset} (version converter: {reason})")
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    inits = {i.name for i in g.initializer}
    given = dict(shapes or {})
    for vi in g.input:
        if vi.name in inits:
            continue
        dims = vi.type.tensor_type.shape.dim
        if vi.name in given:
            want = given.pop(vi.name)
            if len(dims) and len(dims) != len(want):
                raise _err(path, f"--shape {vi.name}: {len(want)} dimensions given, "
                                 f"the input has {len(dims)}")
            del vi.type.tensor_type.shape.dim[:]
            for d in want:
                vi.type.tensor_type.shape.dim.add().dim_value = int(d)
            continue
        if not vi.type.tensor_type.HasField("shape"):
            raise _err(path, f"input {vi.name!r} has no shape: give it with --shape {vi.name}=DIMS")
        for i, d in enumerate(dims):
            if not d.HasField("dim_value"):
                sym = d.dim_param or f"dimension {i}"
                raise _err(path, f"input {vi.name!r} has a symbolic dimension {sym!r}: bind it with "
                                 f"--shape {vi.name}=DIMS")
    if given:
        names = [vi.name for vi in g.input if vi.name not in inits]
        raise _err(path, f"--shape {next(iter(given))}: no such model input (inputs: {', '.join(names)})")

    from onnx import numpy_helper

    constants: dict[str, np.ndarray] = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    nodes = list(g.node)
    for _ in range(50):
        shapes_now, types = _infer(model, nodes, constants, path, shape_inference)
        folded, nodes = _fold(nodes, constants, shapes_now, opset, path)
        if not folded:
            break
    outputs = [o.name for o in g.output]
    nodes = _live(nodes, outputs)
    inputs = [vi.name for vi in g.input if vi.name not in constants]
    return Prepared(nodes, constants, shapes_now, types, inputs, outputs, opset, notes)


def _infer(model: Any, nodes: list[Any], constants: dict[str, np.ndarray], path: str,
           shape_inference: Any) -> tuple[dict[str, tuple[int, ...]], dict[str, int]]:
    import onnx
    from onnx import helper, numpy_helper

    g = model.graph
    used = {n for node in nodes for n in node.input} | {o.name for o in g.output}
    # small constants as data (shape arithmetic propagates through them), large ones (weights)
    # as typed inputs: the same shapes without serializing the weights on every round
    inits, inputs = [], [vi for vi in g.input if vi.name not in constants]
    for k, v in constants.items():
        if k not in used or v.dtype == object:
            continue
        if v.size <= 1024:
            inits.append(numpy_helper.from_array(v, k))
        else:
            inputs.append(helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape))
    graph = helper.make_graph(nodes, g.name or "graph", inputs, list(g.output), inits)
    m = helper.make_model(graph, opset_imports=list(model.opset_import))
    m.ir_version = max(int(model.ir_version), 7)  # initializers need not be inputs
    try:
        inferred = shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
    except _onnx_tool_errors() as exc:
        raise _err(path, f"ONNX shape inference failed: {str(exc).splitlines()[0][:300]}") from None
    shapes: dict[str, tuple[int, ...]] = {}
    types: dict[str, int] = {}
    for vi in [*inferred.graph.input, *inferred.graph.value_info, *inferred.graph.output]:
        tt = vi.type.tensor_type
        if vi.type.HasField("tensor_type"):
            types[vi.name] = tt.elem_type
        if tt.HasField("shape") and all(d.HasField("dim_value") for d in tt.shape.dim):
            shapes[vi.name] = tuple(int(d.dim_value) for d in tt.shape.dim)
    for k, v in constants.items():
        shapes[k] = tuple(v.shape)
        types[k] = helper.np_dtype_to_tensor_dtype(v.dtype) if v.dtype != object else onnx.TensorProto.STRING
    return shapes, types


def _fold(nodes: list[Any], constants: dict[str, np.ndarray], shapes: dict[str, tuple[int, ...]],
          opset: int, path: str) -> tuple[bool, list[Any]]:
    from onnx import helper

    kept: list[Any] = []
    folded = False
    for node in nodes:
        value = None
        if node.domain not in ("", "ai.onnx") or node.op_type in NOT_FOLDED:
            kept.append(node)
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type in ("Shape", "Size") and node.input[0] in shapes:
            shape = shapes[node.input[0]]
            if node.op_type == "Size":
                value = [np.array(int(np.prod(shape)), dtype=np.int64)]
            else:
                start, end = int(attrs.get("start", 0)), attrs.get("end")
                value = [np.array(shape[start:None if end is None else int(end)], dtype=np.int64)]
        elif all((not n) or n in constants for n in node.input) and not _has_subgraph(node):
            value = _evaluate(node, constants, opset, path)
        if value is None:
            kept.append(node)
            continue
        for name, v in zip(node.output, value):
            if name:
                constants[name] = np.asarray(v)
        folded = True
    return folded, kept


def _has_subgraph(node: Any) -> bool:
    from onnx import AttributeProto

    return any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for a in node.attribute)


def _evaluate(node: Any, constants: dict[str, np.ndarray], opset: int, path: str) -> list[Any] | None:
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    feeds = {n: constants[n] for n in node.input if n}
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
              for n, v in feeds.items()]
    outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
    graph = helper.make_graph([node], "fold", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    try:
        values = ReferenceEvaluator(model).run(None, feeds)
    except Exception:
        # onnx.reference's op implementations are the onnx package's numpy code, a plug-in as
        # seen from here: on an input they do not support they raise whatever numpy raises
        # (ValueError, TypeError, IndexError, KeyError, NotImplementedError, RuntimeError), with
        # no common base. A fold refused is no error: the node is left to the lowering, which
        # names what it cannot do. Only this call is guarded; building the model is not.
        return None
    out = []
    it = iter(values)
    for n in node.output:
        out.append(next(it) if n else None)
    if any(isinstance(v, list) for v in out):  # sequences stay unfolded
        return None
    return out


def _live(nodes: list[Any], outputs: list[str]) -> list[Any]:
    needed = set(outputs)
    keep: list[Any] = []
    for node in reversed(nodes):
        if any(o in needed for o in node.output if o):
            keep.append(node)
            needed.update(n for n in node.input if n)
    return keep[::-1]
