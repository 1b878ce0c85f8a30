"""SCALE-Sim topology CSV files, read the way SCALE-Sim 3.0 reads them
(`scalesim/topology_utils.py`, `topologies.load_arrays_conv` / `load_arrays_gemm`):

- the first line is a header and is skipped (whatever it holds); blank lines are skipped;
- each row is stripped, split on `,`, and **the text after the last comma is dropped**: a row
  ends with a comma (`conv1, 224, 224, 7, 7, 3, 64, 2,`); anything after it (a `#dw` note) is
  ignored, as SCALE-Sim ignores it;
- conv rows: layer name, IFMAP height, IFMAP width, filter height, filter width, channels,
  number of filters, stride (one stride for both directions), then optionally the sparsity
  ratio `N:M`; values are integers with any surrounding whitespace;
- no padding: the IFMAP sizes are the (already padded) input; the output extent is
  `ceil((ifmap - filter + stride) / stride)`, which counts a last, partial window where
  `(ifmap - filter)` is not a multiple of the stride: there our IFMAP is extended to
  `(out - 1)·stride + filter` (the extent SCALE-Sim's windows cover) so that the output
  size and the MACs are SCALE-Sim's; the zoo's topologies need no such extension;
- a layer whose name contains `DP` is depthwise: SCALE-Sim runs it as one layer per channel,
  `<name>Channel_<i>`, each with 1 channel (and the row's number of filters), and so do we;
- GEMM rows (a GEMM topology): layer name, M, N, K, optional sparsity; SCALE-Sim maps them to
  an M x K IFMAP, a 1 x K filter, 1 channel and N filters, i.e. the product (M x K)·(K x N).

Which of the two a file is comes from its header (SCALE-Sim takes it from a command-line
flag): a header whose fields 2-4 are `M, N, K` is a GEMM topology. Where SCALE-Sim would
crash or assert (a row without its trailing comma, a non-integer, a filter larger than the
IFMAP) we stop with `file:line:col: error:` naming the column and the value. Only dense
layers are simulated: a sparsity ratio other than `1:1` is refused.
"""

from __future__ import annotations

import os

from accelsim.network.lowering import ConvShape, conv_layer
from accelsim.network.model import Kernel, Layer, Network, error_at

CONV_COLUMNS = ("layer name", "IFMAP height", "IFMAP width", "filter height", "filter width",
                "channels", "number of filters", "stride")
GEMM_COLUMNS = ("layer name", "M", "N", "K")


def is_gemm_header(header: str) -> bool:
    fields = [f.strip().upper() for f in header.split(",")]
    return fields[1:4] == ["M", "N", "K"]


def read_topology(path: str, choice: str = "auto") -> Network:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return parse_topology(text, path, choice)


def parse_topology(text: str, path: str = "<topology>", choice: str = "auto") -> Network:
    lines = text.splitlines()
    if not lines:
        raise error_at("empty topology file: expected a header line and one row per layer", path, 1, 1)
    gemm = is_gemm_header(lines[0])
    layers: list[Layer] = []
    for lineno, raw in enumerate(lines[1:], start=2):
        row = raw.strip()
        if not row:
            continue
        layers.extend(_gemm_row(raw, path, lineno) if gemm else _conv_row(raw, path, lineno, choice))
    if not layers:
        raise error_at("the topology has a header but no layer rows", path, 1, 1, lines[0])
    name = os.path.splitext(os.path.basename(path))[0]
    return Network(name, path, tuple(layers))


def _fields(raw: str, path: str, lineno: int, columns: tuple[str, ...], what: str,
            ) -> tuple[list[tuple[str, int]], str | None]:
    """(field text, 1-based column) of every field SCALE-Sim keeps, and the optional extra."""
    spans: list[tuple[str, int]] = []
    start = 0
    for part in raw.split(","):
        spans.append((part, start + 1 + (len(part) - len(part.lstrip()))))
        start += len(part) + 1
    kept, dropped = spans[:-1], spans[-1]
    need = len(columns)
    if len(kept) < need:
        got = len(kept)
        hint = ""
        if got == need - 1 and dropped[0].strip():
            hint = (f"; SCALE-Sim drops the text after a row's last comma (here {dropped[0].strip()!r}): "
                    "end the row with a comma")
        raise error_at(f"a {what} row has {need} fields ({', '.join(columns)}), each followed by a "
                       f"comma; this row keeps {got}{hint}", path, lineno, dropped[1], raw)
    if len(kept) > need + 1:
        text, col = kept[need + 1]
        raise error_at(f"a {what} row has {need} fields and an optional sparsity ratio; found an "
                       f"extra field {text.strip()!r}", path, lineno, col, raw)
    extra = kept[need][0].strip() if len(kept) > need else None
    if extra is not None and extra != "1:1":
        text, col = kept[need]
        raise error_at(f"sparsity ratio {text.strip()!r}: only dense layers (1:1) are simulated",
                       path, lineno, col, raw)
    return kept[:need], extra


def _int(field: tuple[str, int], column: str, path: str, lineno: int, raw: str) -> int:
    text, col = field
    try:
        value = int(text.strip())
    except ValueError:
        raise error_at(f"column '{column}': expected an integer, found {text.strip()!r}",
                       path, lineno, col, raw) from None
    if value < 1:
        raise error_at(f"column '{column}': expected an integer >= 1, found {value}", path, lineno, col, raw)
    return value


def _conv_row(raw: str, path: str, lineno: int, choice: str) -> list[Layer]:
    fields, _ = _fields(raw, path, lineno, CONV_COLUMNS, "conv")
    name = fields[0][0].strip()
    if not name:
        raise error_at("column 'layer name' is empty", path, lineno, fields[0][1], raw)
    H, W, R, S, C, K, stride = (_int(f, c, path, lineno, raw)
                                for f, c in zip(fields[1:], CONV_COLUMNS[1:], strict=True))
    for (ext, e), (win, w), col in (((CONV_COLUMNS[1], H), (CONV_COLUMNS[3], R), fields[3][1]),
                                    ((CONV_COLUMNS[2], W), (CONV_COLUMNS[4], S), fields[4][1])):
        if w > e:
            raise error_at(f"column '{win}': {w} is larger than the {ext} {e} (SCALE-Sim asserts "
                           "the filter fits; padding is part of the IFMAP size)", path, lineno, col, raw)
    where = f"{path}:{lineno}"
    H, W = _covered(H, R, stride), _covered(W, S, stride)
    if "DP" in name:  # SCALE-Sim: one single-channel layer per channel
        shape = ConvShape(1, 1, H, W, K, R, S, stride)
        return [conv_layer(f"{name}Channel_{i}", where, shape, choice) for i in range(C)]
    return [conv_layer(name, where, ConvShape(1, C, H, W, K, R, S, stride), choice)]


def _covered(extent: int, window: int, stride: int) -> int:
    """The IFMAP extent SCALE-Sim's output covers: out = ceil((extent - window + stride) / stride)."""
    out = -(-(extent - window + stride) // stride)
    return (out - 1) * stride + window


def _gemm_row(raw: str, path: str, lineno: int) -> list[Layer]:
    fields, _ = _fields(raw, path, lineno, GEMM_COLUMNS, "GEMM")
    name = fields[0][0].strip()
    if not name:
        raise error_at("column 'layer name' is empty", path, lineno, fields[0][1], raw)
    M, N, K = (_int(f, c, path, lineno, raw) for f, c in zip(fields[1:], GEMM_COLUMNS[1:], strict=True))
    return [Layer(name, "gemm", "matmul", (Kernel(f"gemm:M={M},N={N},K={K}"),), f"{path}:{lineno}",
                  macs=M * N * K)]
