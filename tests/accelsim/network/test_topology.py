"""SCALE-Sim topology CSVs: read as SCALE-Sim 3.0 reads them (differential against its own
`topologies` class in the peer venv, when present), and a located error per bad row."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from accelsim.network.model import NetworkError
from accelsim.network.topology import parse_topology, read_topology
from accelsim.network.zoo import zoo
from workloads.spec import parse_spec

ROOT = Path(__file__).resolve().parents[3]
SCALESIM_PY = ROOT / "bench" / "peers" / ".venv-scalesim" / "bin" / "python"

HEADER = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,"
CONV = f"""{HEADER}
Conv1, 230, 230, 7, 7, 3, 64, 2,

  CB2a_1 ,56,56,1,1,64,64,1,#note after the last comma
CB2a_2, 58, 58, 3, 3, 64, 64, 1, 1:1,
CB3s, 56, 56, 1, 1, 256, 512, 2,
Conv2_DP, 10, 12, 3, 3, 3, 1, 1,
"""


def _dims(layer) -> tuple:  # type: ignore[no-untyped-def]
    """(IFMAP h, w, filter h, w, channels, filters, stride) of a conv layer, from its kernel."""
    (kernel,) = [k for k in layer.kernels]
    name, p = parse_spec(kernel.workload)
    v = {k: int(x) for k, x in p.items() if x.isdigit()}
    if name == "gemm":  # a 1x1 stride-1 convolution run as gemm: M = filters, N = H·W, K = C
        return ("gemm", v["M"], v["N"], v["K"])
    return (v["H"], v["W"], v["R"], v["S"], v["C"], v["K"], v["stride"])


def test_conv_rows_as_scalesim_reads_them() -> None:
    net = parse_topology(CONV, "t.csv")
    names = [layer.name for layer in net.layers]
    assert names == ["Conv1", "CB2a_1", "CB2a_2", "CB3s", *(f"Conv2_DPChannel_{i}" for i in range(3))]
    got = [_dims(layer) for layer in net.layers]
    # (230 - 7) is odd: SCALE-Sim's ceil counts a partial last window (113 outputs), so the
    # IFMAP is extended to the 231 rows its windows cover
    assert got[0] == (231, 231, 7, 7, 3, 64, 2)
    assert got[1] == ("gemm", 64, 56 * 56, 64)          # 1x1 stride 1: a gemm, nothing moves
    assert got[2] == (58, 58, 3, 3, 64, 64, 1)
    assert got[3] == (57, 57, 1, 1, 256, 512, 2)       # 1x1 stride 2: direct; 29 outputs (ceil)
    assert got[4:] == [(10, 12, 3, 3, 1, 1, 1)] * 3   # DP: one single-channel layer per channel
    assert [layer.lowering for layer in net.layers][:4] == ["direct", "gemm", "direct", "direct"]
    # MACs: ofmap pixels x window x filters, SCALE-Sim's num_mac
    assert net.layers[0].macs == 113 * 113 * 7 * 7 * 3 * 64
    assert net.layers[3].macs == 29 * 29 * 256 * 512
    assert len(net.distinct_workloads()) == 5


def test_gemm_topology() -> None:
    net = parse_topology("Layer, M, N, K,\nQKT, 128, 128, 64,\nFF1,16,3072,768, 1:1,\n", "g.csv")
    assert [(layer.name, layer.kernels[0].workload, layer.macs) for layer in net.layers] == [
        ("QKT", "gemm:M=128,N=128,K=64", 128 * 128 * 64), ("FF1", "gemm:M=16,N=3072,K=768", 16 * 3072 * 768)]


@pytest.mark.parametrize(("row", "col", "message"), [
    ("c1, 8, 8, 3, 3, 4, 4, 1", 23, "keeps 7; SCALE-Sim drops the text after a row's last comma (here '1')"),
    ("c1, 8, 8, 3, x3, 4, 4, 1,", 14, "column 'filter width': expected an integer, found 'x3'"),
    ("c1, 8, 8, 3, 3.0, 4, 4, 1,", 14, "expected an integer, found '3.0'"),
    ("c1, 8, 8, 9, 3, 4, 4, 1,", 11, "column 'filter height': 9 is larger than the IFMAP height 8"),
    ("c1, 8, 8, 3, 3, 0, 4, 1,", 17, "column 'channels': expected an integer >= 1, found 0"),
    ("c1, 8, 8, 3, 3, 4, 4, 1, 2:4,", 26, "sparsity ratio '2:4': only dense layers (1:1) are simulated"),
    ("c1, 8, 8, 3, 3, 4, 4, 1, 1:1, 7,", 31, "found an extra field '7'"),
    (", 8, 8, 3, 3, 4, 4, 1,", 1, "column 'layer name' is empty"),
])
def test_bad_row_is_located(row: str, col: int, message: str) -> None:
    with pytest.raises(NetworkError) as info:
        parse_topology(f"{HEADER}\nok, 8, 8, 3, 3, 4, 4, 1,\n{row}\n", "bad.csv")
    assert str(info.value).startswith(f"bad.csv:3:{col}: error: ")
    assert message in str(info.value)
    assert row.strip() in info.value.render()  # the row and a caret under the column


def test_header_only_and_empty_files() -> None:
    with pytest.raises(NetworkError, match="no layer rows"):
        parse_topology(HEADER + "\n\n", "h.csv")
    with pytest.raises(NetworkError, match="empty topology file"):
        parse_topology("", "e.csv")


_SCALESIM_READ = """
import json, sys
from scalesim.topology_utils import topologies
t = topologies()
t.load_arrays(sys.argv[1], mnk_inputs=sys.argv[2] == "gemm")
t.topo_calc_hyperparams()
print(json.dumps({"arrays": t.topo_arrays, "mnk": t.get_transformed_mnk_dimensions(),
                  "ofmap": [t.get_layer_ofmap_dims(i) for i in range(t.get_num_layers())],
                  "macs": [t.get_layer_mac_ops(i) for i in range(t.get_num_layers())]}))
"""


@pytest.mark.skipif(not SCALESIM_PY.exists(), reason="SCALE-Sim peer venv absent (bench/peers/setup.sh)")
@pytest.mark.parametrize("case", ["conv", "gemm", "resnet18", "resnet50"])
def test_same_layers_as_scalesim_reads(case: str, tmp_path: Path) -> None:
    if case == "conv":
        path = tmp_path / "t.csv"
        path.write_text(CONV)
    elif case == "gemm":
        path = tmp_path / "g.csv"
        path.write_text("Layer, M, N, K,\nQKT, 128, 128, 64,\nFF1,16,3072,768,\n")
    else:
        path = zoo()[case]
    proc = subprocess.run([str(SCALESIM_PY), "-c", _SCALESIM_READ, str(path),
                           "gemm" if case == "gemm" else "conv"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout.splitlines()[-1])
    ours = read_topology(str(path))
    assert [a[0] for a in theirs["arrays"]] == [layer.name for layer in ours.layers]
    assert theirs["macs"] == [layer.macs for layer in ours.layers]
    for arr, (p, q), layer in zip(theirs["arrays"], theirs["ofmap"], ours.layers, strict=True):
        if case == "gemm":
            continue
        h, w, r, s, c, k, sh, sw = arr[1:9]
        assert sh == sw
        dims = _dims(layer)
        if (r, s, sh) == (1, 1, 1):
            assert dims == ("gemm", k, h * w, c)
            continue
        oh, ow, r_, s_, c_, k_, st = dims
        assert (r_, s_, c_, k_, st) == (r, s, c, k, sh)
        assert ((oh - r) // st + 1, (ow - s) // st + 1) == (p, q)  # the same output extent
        assert oh >= h and ow >= w and oh - h < st and ow - w < st  # extended by < one stride
