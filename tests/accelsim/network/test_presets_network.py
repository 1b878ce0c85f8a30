"""A small network with every kind of layer the zoo has runs end to end on every preset
(`accelsim run NET --target sim --timing-only`, the zoo's path): every layer has its cycles,
DRAM bytes, energy and utilization (none left null), and the totals are the sums. The zoo
itself on every preset is bench/bench_zoo_presets.py (its table in bench/RESULTS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelsim.config import preset_names

# one small layer of each kind in workloads/networks/ (shapes of the zoo's, scaled down; a unit
# dim between a clipped dim and the batch, as llama2_7b_decode's attention has)
LAYERS = """conv1  conv:C=3,H=12,W=12,K=8,R=3,S=3,stride=2,pad=1
conv1.relu  relu:N=288
dw  conv:C=8,H=6,W=6,K=8,R=3,S=3,stride=1,pad=1,groups=8
pool  avgpool2d:C=8,H=6,W=6,R=2,S=2,stride=2
ln  layernorm:M=8,N=32
norm  rmsnorm:M=1,N=32,eps=1e-05
qkv  gemm:M=8,N=96,K=32
split_heads  permute:d0=8,d1=3,d2=2,d3=16,p0=1,p1=2,p2=0,p3=3
scores  batched_gemm:batch=2,M=1,N=33,K=16
softmax  softmax:M=2,N=33
gelu  gelu:N=256
silu  silu:N=64
mul  vector_mul:N=64
residual  vector_add:N=256
"""


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("net") / "small.layers"
    path.write_text(LAYERS)
    return path


def test_the_small_network_has_every_kind_of_zoo_layer(network: Path) -> None:
    from accelsim.network.zoo import load_network, zoo

    def kinds(source: str) -> set[str]:
        return {k.workload.split(":")[0] for layer in load_network(source).layers for k in layer.kernels}

    mine = kinds(str(network))
    assert set().union(*(kinds(name) for name in zoo())) <= mine


@pytest.mark.parametrize("preset", preset_names())
def test_small_network_runs_on_every_preset(network: Path, preset: str) -> None:
    from accelsim.network.timing import run_timing
    from accelsim.network.zoo import load_network

    res = run_timing(load_network(str(network)), preset, workers=0, progress=False)
    d = res.to_dict()
    assert d["config"] == preset and d["layer_count"] == len(LAYERS.splitlines())
    for row in d["layers"]:
        for key in ("cycles", "dram_bytes_read", "dram_bytes_written", "energy_pj",
                    "compute_utilization", "roofline_cycles"):
            assert row[key] is not None, (preset, row["name"], key)
        assert row["cycles"] > 0 and row["energy_pj"] > 0, (preset, row["name"])
        assert 0 <= row["compute_utilization"] <= 1, (preset, row["name"])
        # never below its roofline (none where the roofline is 0: a permute on `ideal`)
        ratio = row["roofline_ratio"]
        assert ratio >= 0.999 if row["roofline_cycles"] else ratio is None, (preset, row["name"])
    for key in ("cycles", "dram_bytes_read", "dram_bytes_written", "energy_pj"):
        assert d[key] == pytest.approx(sum(row[key] for row in d["layers"])), (preset, key)


def test_kernels_have_no_wall_clock_limit_unless_asked(network: Path, capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A network run does not cut its kernels at a sweep's 600 s wall-clock limit (on a loaded
    machine that failed gpt2's lm_head on three_level); `--kernel-time-limit S` asks for one,
    and a kernel past it fails the run with the layer named; a bad S is a clear error."""
    import inspect

    from accelsim.cli import main
    from accelsim.network.timing import run_timing

    assert inspect.signature(run_timing).parameters["time_limit_s"].default is None
    argv = ["run", str(network), "--target", "sim", "--timing-only", "--workers", "0"]
    assert main([*argv, "--kernel-time-limit", "1e-6"]) != 0
    err = capsys.readouterr().err
    assert "time limit" in err and "conv1" in err and "Traceback" not in err
    assert main([*argv, "--kernel-time-limit", "-1"]) != 0
    err = capsys.readouterr().err
    assert "--kernel-time-limit" in err and "-1" in err and "Traceback" not in err
