"""`accelsim run NETWORK --dtype ...` (accelsim/network/precision.py) and `dtype` as a DSE
parameter: kernels at the precision, accumulation wider, a requantize kernel after each
matmul-family kernel; the figures follow the element sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelsim.cli import main
from accelsim.dse.spec import Sweep
from accelsim.errors import ConfigError
from accelsim.network.precision import with_precision
from accelsim.network.topology import parse_topology
from accelsim.network.zoo import load_network

TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 10, 10, 3, 3, 4, 8, 1,
p1, 8, 8, 1, 1, 8, 16, 1,
"""
LAYERS = """# tiny transformer-ish block
ln  layernorm:M=16,N=32
qkv  gemm:M=16,N=96,K=32
sm  softmax:M=16,N=16
"""


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def test_with_precision_rewrites_kernels_requantizing_their_outputs():
    net = parse_topology(TOPO, "tiny.csv")
    i8, skipped = with_precision(net, "int8")
    assert skipped == [] and i8.name == "tiny@i8"
    # i8 operands, i32 accumulation in the PEs, each output requantized to i8 in the kernel
    assert [k.workload for k in i8.layers[0].kernels] == [
        "conv2d:N=1,C=4,H=10,W=10,K=8,R=3,S=3,stride=1,dtype=i8,out=i8"]
    bf, _ = with_precision(net, "bf16")
    assert bf.layers[0].kernels[-1].workload.endswith("dtype=bf16,out=bf16")
    assert with_precision(net, "f32") == (net, [])  # f32: the network as written
    with pytest.raises(ValueError, match="--dtype 'int7': expected one of int8"):
        with_precision(net, "int7")


def test_layer_list_keeps_kernels_without_the_precision_at_f32(tmp_path: Path):
    path = tmp_path / "block.layers"
    path.write_text(LAYERS)
    net, skipped = with_precision(load_network(str(path)), "fp8")
    assert skipped == ["layernorm", "softmax"]
    specs = [k.workload for layer in net.layers for k in layer.kernels]
    assert specs == ["layernorm:M=16,N=32,eps=1e-05,dtype=f32",
                     "gemm:M=16,N=96,K=32,dtype=f8E4M3FN,out=f8E4M3FN", "softmax:M=16,N=16,dtype=f32"]


def test_network_dtype_on_the_cli_moves_fewer_bytes_and_less_energy(capsys, tmp_path: Path):
    topo = tmp_path / "tiny.csv"
    topo.write_text(TOPO)
    runs = {}
    for dt in ("f32", "int8"):
        status, out, _ = _run(capsys, "run", str(topo), "--target", "sim", "--json", "--workers", "0",
                              "--dtype", dt, "--schedule", "layer-by-layer")  # per-layer rows
        assert status == 0
        runs[dt] = json.loads(out)
    f32, i8 = runs["f32"], runs["int8"]
    assert i8["dtype"] == "int8" and i8["dtype_skipped"] == []
    assert i8["macs"] == f32["macs"] > 0
    assert [lay["precision"] for lay in i8["layers"]] == ["i8->i32", "i8->i32"]
    assert [lay["precision"] for lay in f32["layers"]] == ["f32", "f32"]
    # inputs, weights and outputs at 1 B instead of 4: fewer DRAM bytes; int8 MACs: less energy
    for key in ("dram_bytes_read", "dram_bytes_written", "compulsory_bytes", "energy_pj"):
        assert i8[key] < f32[key], key
    # the outputs are written once, at 1 B (no accumulator read back from DRAM)
    assert i8["layers"][0]["dram_bytes_written"] <= 512 + 64  # 8 x 8 x 8 outputs, one burst
    status, _, err = _run(capsys, "run", "gemm:M=8", "--dtype", "int8")
    assert status != 0 and "--dtype int8: for a network INPUT" in err


def test_dtype_is_a_dse_parameter():
    s = Sweep(workloads=["gemm:M=32,N=32,K=32", "network:resnet18"], dtype=["int8", "bf16", "f32"],
              constraints=["dtype_bytes >= 2 or kernel == 'gemm'"])
    got = [(p.workload, p.dtype) for p in s.points()]
    assert got == [("gemm:M=32,N=32,K=32,dtype=i8", "i8"), ("gemm:M=32,N=32,K=32,dtype=bf16", "bf16"),
                   ("gemm:M=32,N=32,K=32,dtype=f32", "f32"), ("network:resnet18", "bf16"),
                   ("network:resnet18", "f32")]
    assert {p.key for p in s.points()}.__len__() == 5
    assert s.points()[0].params()["dtype"] == "i8"
    # a point without dtype keeps the key it always had
    plain = Sweep(workloads=["gemm:M=32,N=32,K=32"]).points()[0]
    assert "dtype" not in plain.canonical() and "dtype" not in plain.params()
    with pytest.raises(ConfigError, match=r"relu.* at i8: relu: dtype must be one of f32, f64"):
        Sweep(workloads=["relu:N=64"], dtype="int8")
    with pytest.raises(ConfigError, match="key 'dtype': 'q8': expected one of"):
        Sweep(workloads=["gemm"], dtype=["q8"])


def test_resnet18_precision_example_is_valid():
    """examples/dse/resnet18_precision.toml: the whole network at three precisions on one chip."""
    from accelsim.config import load_config
    from accelsim.dse import load_spec

    here = Path(__file__).parents[3] / "examples" / "dse"
    sweep = load_spec(here / "resnet18_precision.toml")
    assert [(p.workload, p.dtype) for p in sweep.points()] == [
        ("network:resnet18", "i8"), ("network:resnet18", "bf16"), ("network:resnet18", "f32")]
    chip = load_config(str(here / "multiprec.toml"))
    assert dict(chip.compute.macs_rate) == {"i8": 1.0, "bf16": 0.5, "f32": 0.25}


def test_kernel_json_names_its_precision_and_the_arrays_rate(capsys):
    status, out, _ = _run(capsys, "run", "gemm:M=64,N=64,K=64,dtype=i8", "--target", "sim",
                          "--config", "int8", "--timing-only", "--json")
    assert status == 0
    d = json.loads(out)
    assert (d["precision"], d["precision_rate"]) == ("i8->i32", 1.0)
    (row,) = d["precisions"]
    assert row["unit"] == "matrix 32x32" and row["native_dtype"] == "i8" and row["macs"] == 64 ** 3
    assert row["mac_pj"] == pytest.approx(0.3)
    status, out, _ = _run(capsys, "run", "gemm:M=64,N=64,K=64,dtype=i8", "--target", "sim",
                          "--config", "int8", "--timing-only")
    assert "precision  i8->i32: 262,144 MACs on the matrix 32x32 at 1x its native i8 rate" in out
