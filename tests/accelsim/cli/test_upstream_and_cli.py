"""Upstream mlir-opt output run as-is, and `accelsim run --target sim`."""

import json
import re
import subprocess

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.cli import main
from accelsim.errors import HazardError
from compiler.backend import random_inputs, run_host
from compiler.diagnostics import ParseError
from compiler.text import parse_module

GEMM = "workloads/mlir/gemm.mlir"


def upstream(mlir_opt, path, *flags):
    out = subprocess.run([mlir_opt, path, *flags], capture_output=True, text=True, check=True)
    try:
        return parse_module(out.stdout, "<mlir-opt>")
    except ParseError as exc:
        pytest.xfail(f"compiler.text cannot parse this mlir-opt output yet: {exc}")


def test_upstream_pipelined_output_equals_host_backend(mlir_opt):
    mod = upstream(mlir_opt, GEMM, "--affine-loop-tile=tile-size=32",
                   "--affine-data-copy-generate=generate-dma=true fast-mem-space=1 fast-mem-capacity=256",
                   "--affine-pipeline-data-transfer")
    inputs = random_inputs(mod.funcs[-1], seed=2)
    host = run_host(mod, inputs)
    sim = simulate(mod, load_config("server"), inputs=inputs)
    for name, arr in host.items():
        np.testing.assert_array_equal(sim.outputs[name], arr)
    assert sim.stats.dma_ops > 0 and sim.stats.kernel_calls > 0


def test_upstream_partial_tiles_are_reported_out_of_bounds(mlir_opt):
    mod = upstream(mlir_opt, GEMM, "--affine-loop-tile=tile-size=48",
                   "--affine-data-copy-generate=generate-dma=true fast-mem-space=1 fast-mem-capacity=64")
    with pytest.raises(HazardError) as err:
        simulate(mod, load_config("default"), functional=False)
    msg = str(err.value)
    assert "affine.dma_start" in msg and "runs outside memref<256x256xf32>" in msg
    assert "<mlir-opt>:" in str(err.value.loc)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_has_the_report_fields(capsys):
    code, out, err = run_cli(capsys, "run", "gemm:M=32,N=32,K=32", "--target", "sim", "--config",
                             "edge", "--json", "--check")
    assert code == 0, err
    rep = json.loads(out)
    for key in ("cycles", "seconds", "dram_bytes_read", "dram_bytes_written", "compute_utilization",
                "dma_utilization", "overlap_fraction", "stall_cycles", "roofline_cycles",
                "roofline_ratio", "sram_peak_bytes", "energy_pj", "analytic_cycles", "analytic_error"):
        assert key in rep, key
    assert rep["check"]["ok"] and rep["config"] == "edge" and rep["cycles"] > 0
    assert rep["seconds"] == pytest.approx(rep["cycles"] / (load_config("edge").clock_ghz * 1e9))


def test_cli_timing_only_and_analytic_agree_on_cycles(capsys):
    _, out1, _ = run_cli(capsys, "run", "gemm:M=32,N=32,K=32", "--target", "sim", "--timing-only", "--json")
    _, out2, _ = run_cli(capsys, "run", "gemm:M=32,N=32,K=32", "--target", "sim", "--fidelity",
                         "analytic", "--json")
    ev, an = json.loads(out1), json.loads(out2)
    assert ev["outputs"] == {} and an["fidelity"] == "analytic"
    assert an["cycles"] == ev["analytic_cycles"]


def test_cli_as_is_skips_the_pipeline(capsys, tmp_path):
    _, out, _ = run_cli(capsys, "run", "gemm:M=16,N=16,K=16", "--target", "sim", "--as-is", "--json")
    rep = json.loads(out)
    assert rep["pipeline"] == [] and rep["dma_ops"] == 0
    assert "accesses slow memory directly" in rep["flags"][0]


def test_cli_pass_flags_replace_the_default_pipeline(capsys):
    code, out, err = run_cli(capsys, "run", "gemm:M=16,N=16,K=16", "--target", "sim", "--json",
                             "--affine-data-copy-generate=generate-dma fast-mem-space=1")
    assert code == 0, err
    rep = json.loads(out)
    assert rep["pipeline"] == [] and rep["dma_ops"] > 0


def test_cli_bad_config_is_one_line_error(capsys, tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[dram]\nchannels = 0\n")
    code, _, err = run_cli(capsys, "run", "gemm:M=8,N=8,K=8", "--target", "sim", "--config", str(p))
    assert code == 1
    assert err.strip() == "error: dram.channels = 0: must be an integer in [1, 64]"


def test_cli_text_summary(capsys):
    code, out, _ = run_cli(capsys, "run", "vector_add:N=64", "--target", "sim", "--config", "server")
    assert code == 0
    assert "@vector_add on 'server': " in out and " cycles " in out and "target sim" in out
    code, out, _ = run_cli(capsys, "run", "vector_add:N=64", "--target", "sim", "--fidelity", "analytic")
    assert code == 0 and out.startswith("sim [analytic] config default: ")


UPSTREAM_FLAGS = ["--affine-data-copy-generate=generate-dma=true fast-mem-space=1 fast-mem-capacity=128",
                  "--affine-pipeline-data-transfer"]


@pytest.mark.parametrize("name,tile", [("softmax", 32), ("row_sum", 32), ("mvt", 20)])
def test_upstream_whole_tiles_equal_host(mlir_opt, name, tile):
    mod = upstream(mlir_opt, f"workloads/mlir/{name}.mlir", f"--affine-loop-tile=tile-size={tile}",
                   *UPSTREAM_FLAGS)
    f = mod.funcs[-1]
    inputs = random_inputs(f, seed=4)
    sim = simulate(mod, load_config("server"), inputs=inputs, func=f.sym_name)
    host = run_host(mod, inputs, func=f.sym_name)
    for k, arr in host.items():
        np.testing.assert_array_equal(sim.outputs[k], arr)


@pytest.mark.parametrize("name,tile,where", [("atax", 32, "arg0[384, 0]"), ("jacobi-2d", 32, "arg0[224, 0]"),
                                             ("bicg", 20, "arg4[400]")])
def test_upstream_partial_tiles_name_the_dma_and_its_indices(mlir_opt, name, tile, where):
    mod = upstream(mlir_opt, f"workloads/mlir/{name}.mlir", f"--affine-loop-tile=tile-size={tile}",
                   *UPSTREAM_FLAGS)
    with pytest.raises(HazardError, match=rf"affine\.dma_start source {re.escape(where)} runs outside"):
        simulate(mod, load_config("server"), functional=False)
