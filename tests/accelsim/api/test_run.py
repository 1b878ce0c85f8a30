"""`accelsim.run` is `accelsim run --target sim`: the same figures (`to_dict()` equals the
`--json` object) for a kernel, a many-cluster preset and a network; `Result`'s report prints
the CLI's text, its outputs and check are the run's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import accelsim
from accelsim.cli import main
from accelsim.errors import InputError

GEMM = "gemm:M=64,N=64,K=64"
WALL = ("wall_seconds", "compile_seconds", "kernel_cpu_seconds")
TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 10, 10, 3, 3, 4, 8, 1,
p1, 8, 8, 1, 1, 8, 16, 1,
"""


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, _ = capsys.readouterr()
    return status, out


def _same(d: dict) -> dict:
    """The object as JSON reads it back, without the wall-clock figures."""
    return {k: v for k, v in json.loads(json.dumps(d)).items() if k not in WALL}


@pytest.mark.parametrize(("kwargs", "flags"), [
    ({}, []),
    ({"fidelity": "analytic"}, ["--fidelity", "analytic"]),
    ({"set": {"dma.engines": 4}, "check": True}, ["--set", "dma.engines=4", "--check"]),
    ({"config": "cluster4"}, ["--config", "cluster4"]),
    ({"config": "cluster4", "fidelity": "analytic"}, ["--config", "cluster4", "--fidelity", "analytic"]),
], ids=["kernel", "analytic", "set-check", "cluster4", "cluster4-analytic"])
def test_run_equals_the_cli_json(capsys, kwargs: dict, flags: list[str]) -> None:
    result = accelsim.run(GEMM, **kwargs)
    status, out = _cli(capsys, "run", GEMM, "--target", "sim", "--json", *flags)
    assert status == 0
    cli = json.loads(out)
    assert _same(result.to_dict()) == _same(cli)
    assert result.cycles == cli["cycles"]


def test_network_run_equals_the_cli_json(capsys, tmp_path: Path) -> None:
    topo = tmp_path / "tiny.csv"
    topo.write_text(TOPO)
    result = accelsim.run(str(topo), workers=0, schedule="layer-by-layer")
    status, out = _cli(capsys, "run", str(topo), "--target", "sim", "--json", "--workers", "0",
                       "--schedule", "layer-by-layer")
    assert status == 0
    cli = json.loads(out)
    assert _same(result.to_dict()) == _same(cli)
    assert result.cycles == cli["cycles"] > 0
    df = result.to_dataframe()
    assert list(df["name"]) == ["c1", "p1"]
    fused = accelsim.run(str(topo), workers=0, schedule="fused", fidelity="analytic")
    status, out = _cli(capsys, "run", str(topo), "--target", "sim", "--json", "--workers", "0",
                       "--schedule", "fused", "--fidelity", "analytic")
    assert _same(fused.to_dict()) == _same(json.loads(out)) and fused.to_dict()["schedule"] == "fused"
    assert str(result.report).startswith(str(result.network.result.table(limit=None))[:40])


def test_report_prints_the_cli_text(capsys) -> None:
    """print(result.report) is the text the CLI prints: the table for one cluster, the cluster
    summary for several (not a dataclass repr)."""
    for config in ("default", "cluster4"):
        text = str(accelsim.run(GEMM, config=config, timing_only=True).report)
        status, out = _cli(capsys, "run", GEMM, "--target", "sim", "--timing-only", "--config", config)
        assert status == 0
        assert "Report(" not in text and "ClusterReport(" not in text
        assert text in out
        assert text.splitlines()[0] == out.splitlines()[0]


def test_module_source_and_outputs() -> None:
    """A Module is compiled for the machine like a spec; outputs are the workload's arrays."""
    import workloads

    wl = workloads.get(GEMM)
    by_spec = accelsim.run(GEMM, check=True)
    by_module = accelsim.run(wl.module())
    assert by_module.cycles == by_spec.cycles
    assert by_spec.ok is True and set(by_spec.outputs) == {"C"}
    expected = wl.reference(wl.random_inputs(0))["C"]
    np.testing.assert_allclose(by_spec.outputs["C"], expected, rtol=wl.rtol, atol=wl.atol)


def test_dataframe_timeline_trace(tmp_path: Path) -> None:
    r = accelsim.run(GEMM, timing_only=True)
    df = r.to_dataframe()
    assert len(df) == 1 and int(df["cycles"][0]) == r.cycles
    assert Path(r.timeline(str(tmp_path / "t.png"))).stat().st_size > 0
    trace = json.loads(Path(r.trace(str(tmp_path / "t.json"))).read_text())
    assert trace["traceEvents"]
    with pytest.raises(InputError, match="records=True"):
        accelsim.run(GEMM, timing_only=True, records=False).timeline(str(tmp_path / "u.png"))
    with pytest.raises(InputError, match="analytic"):
        accelsim.run(GEMM, fidelity="analytic").trace(str(tmp_path / "u.json"))


def test_bad_options_are_clear_errors() -> None:
    with pytest.raises(InputError, match="fidelity"):
        accelsim.run(GEMM, fidelity="exact")
    with pytest.raises(InputError, match="check needs output data"):
        accelsim.run(GEMM, timing_only=True, check=True)
    with pytest.raises(accelsim.errors.ConfigError, match="set:"):
        accelsim.run(GEMM, set={"sram.capacity_kib": -1})


def test_public_names_survive_subpackage_imports() -> None:
    """`accelsim.run` loads `accelsim.estimate` (the subpackage): the estimate function is
    `accelsim.analytic_estimate`, which that import cannot shadow."""
    import accelsim.estimate.analytic  # the subpackage is an attribute now

    assert callable(accelsim.analytic_estimate) and callable(accelsim.run)
    assert callable(accelsim.simulate)
    assert accelsim.analytic_estimate is accelsim.estimate.analytic.estimate


def test_mlir_path_and_config_object_equal_the_cli(capsys) -> None:
    """An .mlir path and a HardwareConfig (with `set` overrides) run as the CLI runs them."""
    from pathlib import Path as P

    import workloads

    mlir = str(P(workloads.__file__).parent / "mlir" / "atax.mlir")
    cfg = accelsim.load_config("edge")
    result = accelsim.run(mlir, config=cfg, set={"dma.engines": 1}, timing_only=True)
    status, out = _cli(capsys, "run", mlir, "--target", "sim", "--config", "edge", "--set",
                       "dma.engines=1", "--timing-only", "--json")
    assert status == 0
    assert _same(result.to_dict()) == _same(json.loads(out))


@pytest.mark.parametrize("config", ["default", "cluster4"])
def test_analytic_run_has_the_event_reports_energy(config: str) -> None:
    """One energy formula (`accelsim.cost.energy`): the analytic run's energy is the event
    report's on the same program, one cluster or many (issue: the default fidelity gave no
    energy)."""
    analytic = accelsim.run(GEMM, config=config, fidelity="analytic").to_dict()
    event = accelsim.run(GEMM, config=config, timing_only=True).to_dict()
    assert analytic["dram_bytes"] == event["dram_bytes"]
    for key in ("energy_pj", "energy_dram_pj", "energy_sram_pj", "energy_compute_pj",
                "energy_static_pj"):
        assert analytic[key] == pytest.approx(event[key], rel=1e-9), key


def test_onnx_network_with_data_and_check_equals_the_cli(capsys, tmp_path: Path) -> None:
    """An ONNX model runs with data flowing, checked against onnx's reference evaluator."""
    from tests.accelsim.network import onnx_models

    model = onnx_models.save(onnx_models.convnet(), tmp_path / "convnet.onnx")
    result = accelsim.run(str(model), check=True, progress=False)
    status, out = _cli(capsys, "run", str(model), "--target", "sim", "--check", "--json")
    assert status == 0
    assert _same(result.to_dict()) == _same(json.loads(out))
    assert result.ok is True and result.outputs
    assert set(result.outputs) == set(json.loads(out)["outputs"])


def test_network_precision_equals_the_cli(capsys, tmp_path: Path) -> None:
    """`dtype=` is `--dtype`: the network at that precision, the same --json object."""
    topo = tmp_path / "tiny.csv"
    topo.write_text(TOPO)
    result = accelsim.run(str(topo), dtype="int8", workers=0, progress=False)
    status, out = _cli(capsys, "run", str(topo), "--target", "sim", "--dtype", "int8", "--json",
                       "--workers", "0")
    assert status == 0
    cli = json.loads(out)
    assert _same(result.to_dict()) == _same(cli) and cli["dtype"] == "int8"
    with pytest.raises(InputError, match="network options"):
        accelsim.run(GEMM, dtype="int8")
