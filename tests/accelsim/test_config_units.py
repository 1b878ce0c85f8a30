"""Rates in the hardware file (issue 34): a non-integer bytes per cycle, a rate with a unit
converted with the config's clock, one definition of ceil(bytes / rate), and the DRAM timing
model's peak wherever the bandwidth key was read."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from accelsim.cli import main
from accelsim.config import config_from_dict, load_config
from accelsim.cost.dma import DmaCostModel
from accelsim.cost.rate import cycles_for
from accelsim.errors import ConfigError
from accelsim.report.roofline import peak_dram_bytes_per_cycle


@pytest.mark.parametrize("rate", [12.8, 25.6, 0.5, 3.3, 16, 7])
@pytest.mark.parametrize("nbytes", [0, 1, 64, 128, 1000, 4096, 123457])
def test_cycles_are_the_exact_ceiling_of_bytes_over_the_rate(rate, nbytes):
    want = -(-Fraction(nbytes) // Fraction(str(rate)))
    assert cycles_for(nbytes, rate) == want and isinstance(cycles_for(nbytes, rate), int)


def test_a_non_integer_bandwidth_is_accepted_and_used_by_the_transfer_cost():
    cfg = load_config("default", {"dram.bandwidth_bytes_per_cycle": 12.8})
    assert cfg.dram.bandwidth_bytes_per_cycle == 12.8
    model = DmaCostModel.for_config(cfg)
    cost = model.transfer(32, None, None, 4, True, False, False, 1)  # 128 B from DRAM
    assert cost.cycles == 10  # 128 / 12.8, not 11 (the float 12.8 is just above 64/5)
    assert peak_dram_bytes_per_cycle(cfg) == 25.6
    # 16.0 is 16: the same config, the same content hash
    assert load_config("default", {"dram.bandwidth_bytes_per_cycle": 16.0}).hash() == \
        load_config("default").hash()


def test_a_rate_with_a_unit_uses_the_clock():
    cfg = config_from_dict({"clock_ghz": 2.0, "dram": {"bandwidth": "25.6 GB/s"}})
    assert cfg.dram.bandwidth_bytes_per_cycle == 12.8
    cfg = config_from_dict({"clock_ghz": 1.0, "dram": {"bandwidth": "16 B/cycle"}})
    assert cfg.dram.bandwidth_bytes_per_cycle == 16 and cfg.hash() == load_config("default").hash()
    over = load_config("default", {"dram.bandwidth": "12.8 GB/s"})
    assert over.dram.bandwidth_bytes_per_cycle == 12.8
    # the clock of the same command line, whichever order the keys come in
    over = load_config("default", {"dram.bandwidth": "12.8 GB/s", "clock_ghz": 0.5})
    assert over.dram.bandwidth_bytes_per_cycle == 25.6


@pytest.mark.parametrize("data, message", [
    ({"dram": {"bandwidth": "51.2 GB/s"}}, "a rate per second needs the accelerator's clock; "
                                           "set clock_ghz"),
    ({"clock_ghz": 1.0, "dram": {"bandwidth": "51.2 Gb/s"}}, "expected a rate such as"),
    ({"clock_ghz": 1.0, "dram": {"bandwidth": "8 GB/s", "bandwidth_bytes_per_cycle": 8}},
     "give one of them"),
    ({"clock_ghz": 1.0, "dram": {"bandwidth": "0.001 GB/s"}},
     "dram.bandwidth = '0.001 GB/s' is 0.001 bytes per cycle; dram.bandwidth_bytes_per_cycle = "
     "0.001: must be a number in [0.01, 4096]"),
])
def test_bad_rates_name_the_key(data, message):
    with pytest.raises(ConfigError, match=None) as exc:
        config_from_dict(data)
    assert message in str(exc.value)


def test_a_file_with_a_unit_and_a_set_rate_run_alike(capsys, tmp_path):
    path = tmp_path / "chip.toml"
    path.write_text('clock_ghz = 1.0\n[dram]\nbandwidth = "12.8 GB/s"\n')
    spec = "gemm:M=64,N=64,K=64"
    runs = []
    for opts in (["--config", str(path)], ["--set", "dram.bandwidth_bytes_per_cycle=12.8"]):
        assert main(["run", spec, "--timing-only", "--json", *opts]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    a, b = runs
    assert a["cycles"] == b["cycles"] and a["dram_peak_bytes_per_cycle"] == 25.6
    assert a["roofline_bandwidth_cycles"] == cycles_for(a["compulsory_bytes"], 25.6)


def test_the_timing_model_peak_replaces_the_bandwidth_key_in_cluster_reports(capsys):
    over = ["--set", "dram.model=timing", "--set", "dram.bandwidth_bytes_per_cycle=1000"]
    cfg = load_config("cluster4", {"dram.model": "timing", "dram.bandwidth_bytes_per_cycle": 1000})
    peak = peak_dram_bytes_per_cycle(cfg)
    assert peak < cfg.dram.channels * 1000  # the technology's, not the key's
    assert main(["run", "gemm:M=32,N=32,K=32", "--config", "cluster4", *over, "--timing-only",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["dram_peak_bytes_per_cycle"] == peak
    nbytes = d["dram_bytes_read"] + d["dram_bytes_written"] + d["dram_bytes_copied"]
    assert d["cluster_roofline"]["bounds"]["DRAM"] == cycles_for(nbytes, peak)
