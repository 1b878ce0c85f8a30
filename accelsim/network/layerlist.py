"""Our compact layer-list format (`.layers`): one layer a line, `NAME SPEC`.

    # ResNet-18 (He et al. 2016), 224 x 224, batch 1
    conv1        conv:C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3
    conv1.relu   relu:N=802816
    fc           gemm:M=1,N=1000,K=512

SPEC is any workload spec (`accelsim run --help` lists them; `gemm`, `batched_gemm`, `softmax`,
`layernorm`, `vector_add`, ...) or `conv:` with N (default 1), C, H, W, K, R, S, stride (1),
pad (0, all four sides), dilation (1) and groups (1; groups = C = K is depthwise): a
convolution the compiler lowers (`accelsim.network.lowering`). `#` starts a comment.
"""

from __future__ import annotations

import os

from accelsim.network.lowering import ConvShape, conv_layer
from accelsim.network.model import Kernel, Layer, Network, error_at
from compiler.diagnostics import AccelsimError

CONV_KEYS = {"N": 1, "C": None, "H": None, "W": None, "K": None, "R": None, "S": None, "stride": 1,
             "pad": 0, "dilation": 1, "groups": 1}


def read_layer_list(path: str, choice: str = "auto") -> Network:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return parse_layer_list(text, path, choice)


def parse_layer_list(text: str, path: str = "<layers>", choice: str = "auto") -> Network:
    layers: list[Layer] = []
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        parts = body.split()
        if len(parts) != 2:
            col = len(raw) - len(raw.lstrip()) + 1
            raise error_at(f"expected 'NAME SPEC' (two fields), found {len(parts)}", path, lineno, col, raw)
        name, spec = parts
        spec_col = body.index(spec, body.index(name) + len(name)) + 1
        if name in seen:
            raise error_at(f"layer name {name!r} is used twice (first on line {seen[name]})",
                           path, lineno, body.index(name) + 1, raw)
        seen[name] = lineno
        try:
            layers.append(_layer(name, spec, f"{path}:{lineno}", choice))
        except (AccelsimError, ValueError) as exc:
            msg = exc.message if hasattr(exc, "message") else str(exc)
            raise error_at(f"layer {name!r}: {msg}", path, lineno, spec_col, raw) from None
    if not layers:
        raise error_at("no layers: expected one 'NAME SPEC' line per layer", path, 1, 1)
    return Network(os.path.splitext(os.path.basename(path))[0], path, tuple(layers))


def _layer(name: str, spec: str, where: str, choice: str) -> Layer:
    import workloads

    kind, _, rest = spec.partition(":")
    if kind == "conv":
        return conv_layer(name, where, _conv_shape(rest), choice)
    w = workloads.get(spec)  # WorkloadError names what is wrong
    return Layer(name, w.name, _lowering(w.name), (Kernel(w.spec),), where, macs=_macs(w.name, w.params))


def _conv_shape(rest: str) -> ConvShape:
    values: dict[str, int] = {}
    for item in filter(None, rest.split(",")):
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or key not in CONV_KEYS:
            raise ValueError(f"conv: expected key=value with keys {', '.join(CONV_KEYS)}, found {item!r}")
        try:
            values[key] = int(text)
        except ValueError:
            raise ValueError(f"conv: {key} must be an integer, found {text.strip()!r}") from None
        if values[key] < (0 if key == "pad" else 1):
            raise ValueError(f"conv: {key}={values[key]} is out of range")
    missing = [k for k, d in CONV_KEYS.items() if d is None and k not in values]
    if missing:
        raise ValueError(f"conv: missing {', '.join(missing)}")
    v = {k: values.get(k, d) for k, d in CONV_KEYS.items()}
    pad = v.pop("pad")
    shape = ConvShape(**{k: int(x) for k, x in v.items() if x is not None},  # type: ignore[arg-type]
                      pads=(pad, pad, pad, pad))
    p, q = shape.out
    if p < 1 or q < 1:
        raise ValueError(f"conv: the filter does not fit the padded image ({shape.padded})")
    return shape


_MATMULS = ("gemm", "batched_gemm")
_LAYOUT = ("permute", "pad2d", "im2col")


def _lowering(kind: str) -> str:
    if kind in _MATMULS:
        return "matmul"
    if kind in ("conv2d", "depthwise_conv2d"):
        return "direct"
    return "layout" if kind in _LAYOUT else "vector"


def _macs(kind: str, p: dict[str, object]) -> int:
    g = {k: v for k, v in p.items() if isinstance(v, int)}
    if kind == "gemm":
        return g["M"] * g["N"] * g["K"]
    if kind == "batched_gemm":
        return g["batch"] * g["M"] * g["N"] * g["K"]
    return 0
