"""Traps of the command line (issue 34): abbreviations, the target an option implies, and
"did you mean" across workloads and networks."""

from __future__ import annotations

import argparse
import json

import pytest

from accelsim.cli import build_parser, main

SPEC = "gemm:M=8,N=8,K=8"


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_no_parser_accepts_abbreviations():
    parsers = list(_parsers(build_parser()))
    assert len(parsers) >= 9  # accelsim, opt, run, dse (+ 5 subcommands), networks
    assert [p.prog for p in parsers if p.allow_abbrev] == []


def test_a_prefix_of_an_option_is_not_that_option(capsys, tmp_path):
    # --schedule was read as --scheduler (the Dask address) and the sweep ran
    with pytest.raises(SystemExit) as exc:
        main(["dse", "run", str(tmp_path / "spec.toml"), "--schedule", "tcp://x:1"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --schedule" in capsys.readouterr().err
    status, _, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing", "--json")
    assert status == 1 and "--timing" in err and "Traceback" not in err


@pytest.mark.parametrize("option", [["--config", "default"], ["--set", "dma.engines=1"],
                                    ["--fidelity", "analytic"], ["--timing-only"]])
def test_a_simulator_option_without_target_means_the_simulator(capsys, option):
    status, out, err = _run(capsys, "run", SPEC, *option, "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["target"] == "sim" and report["cycles"] > 0 and report["config"] == "default"


def test_without_simulator_options_the_target_is_the_host(capsys):
    status, out, err = _run(capsys, "run", SPEC, "--json")
    assert status == 0, err
    assert json.loads(out)["target"] == "host"


def test_an_explicit_host_target_refuses_the_config(capsys):
    status, out, err = _run(capsys, "run", SPEC, "--target", "host", "--config", "edge")
    assert status == 1 and out == ""
    assert "--config: only --target sim reads this (target is 'host')" in err


@pytest.mark.parametrize("source, hint", [
    ("resnt18", "did you mean 'resnet18' (a network)"),
    ("gem:M=64", "did you mean 'gemm' (a workload)"),
    ("resnet1.csv", "'resnet18' (a network)"),
    ("mobilnetv2", "'mobilenetv2' (a network)"),
])
def test_an_unknown_input_names_the_closest_workload_or_network(capsys, source, hint):
    status, out, err = _run(capsys, "run", source)
    assert status == 1 and out == "" and "Traceback" not in err
    assert hint in err
    assert "networks: " in err and "resnet18" in err and "Workloads: " in err


def test_an_unknown_preset_names_the_closest(capsys):
    status, _, err = _run(capsys, "run", SPEC, "--config", "defualt")
    assert status == 1 and "did you mean 'default'" in err


def test_a_network_of_layer_shapes_without_target_runs_on_the_simulator(capsys, tmp_path):
    net = tmp_path / "net.layers"
    net.write_text("a  vector_add:N=64\n")
    status, out, err = _run(capsys, "run", str(net), "--workers", "0", "--json")
    assert status == 0, err
    d = json.loads(out)
    assert d["target"] == "sim" and d["cycles"] > 0
