"""The generated reference pages are in sync with their sources, every config key is
documented, and `accelsim config show` prints a config that loads back as itself (issue 34)."""

from __future__ import annotations

import tomllib

import pytest

from accelsim.cli import main
from accelsim.cli.reference import PAGES, generated
from accelsim.config import config_from_dict, load_config, preset_names
from accelsim.config_schema import fields, undocumented

REGENERATE = "out of date: run `python -m accelsim.cli.reference` and commit docs/reference"


@pytest.mark.parametrize("page", ["hardware", "cli"])
def test_the_reference_page_is_what_its_source_generates(page):
    assert PAGES[page].read_text(encoding="utf-8") == generated()[page], REGENERATE


def test_every_config_key_has_a_unit_and_meaning():
    assert undocumented() == []
    keys = {f.key for f in fields()}
    assert {"clock_ghz", "dram.bandwidth", "dram.tCL", "memory.read_bytes_per_cycle",
            "link.engines", "interconnect.mesh_rows"} <= keys


def test_the_hardware_page_names_every_key_with_its_default_and_unit():
    text = PAGES["hardware"].read_text(encoding="utf-8")
    for f in fields():
        assert f"| `{f.key}` |" in text, f.key
    assert "| `dram.channels` | integer | [1, 64] | 2 |" in text
    assert "| `dram.bandwidth_bytes_per_cycle` | number | [0.01, 4096] | 16 | B/cycle |" in text


def test_the_cli_page_has_every_command():
    text = PAGES["cli"].read_text(encoding="utf-8")
    for command in ("accelsim run", "accelsim dse run", "accelsim config show", "accelsim opt"):
        assert f"## {command}\n" in text
    assert "--config NAME|FILE" in text and "--scheduler SCHEDULER" in text


def _show(capsys, *argv):
    assert main(["config", "show", *argv]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("preset", preset_names())
def test_config_show_loads_back_as_the_same_config(capsys, preset):
    out = _show(capsys, preset)
    data = tomllib.loads(out)
    name = data.pop("name")
    again = config_from_dict(data, name=name)
    assert again.hash() == load_config(preset).hash() and again.name == preset
    assert f"content hash {again.hash()}" in out


def test_config_show_prints_defaults_units_and_overrides(capsys):
    out = _show(capsys, "default", "--set", "dram.bandwidth_bytes_per_cycle=12.8",
                "--set", "sram.capacity_kib=128")
    lines = out.splitlines()
    bw = next(ln for ln in lines if ln.startswith("bandwidth_bytes_per_cycle = 12.8"))
    assert "# B/cycle: per channel" in bw and "= 12.8 GB/s per channel at 1 GHz" in bw
    assert any(ln.startswith("capacity_kib = 128  # KiB:") for ln in lines)
    assert any(ln.startswith("setup_cycles = 16  # cycles:") for ln in lines)  # a default
    assert any(ln.startswith("# tCL = 22  # DRAM command clocks:") for ln in lines)
    cfg = load_config("default", {"dram.bandwidth_bytes_per_cycle": 12.8,
                                  "sram.capacity_kib": 128})
    data = tomllib.loads(out)
    assert config_from_dict(data, name=data.pop("name")).hash() == cfg.hash()


def test_config_show_under_the_timing_model_says_the_bandwidth_key_is_not_read(capsys):
    out = _show(capsys, "default", "--set", "dram.model=timing", "--set", "dram.tCL=30")
    assert "not read by the timing model: DDR4-3200's effective peak is" in out
    assert "\ntCL = 30  # DRAM command clocks:" in out and "overrides the technology's" in out
    data = tomllib.loads(out)
    cfg = load_config("default", {"dram.model": "timing", "dram.tCL": 30})
    assert config_from_dict(data, name=data.pop("name")).hash() == cfg.hash()


def test_config_show_of_a_bad_file_is_one_error(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[dram]\nchannels = 0\n")
    assert main(["config", "show", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "error: dram.channels = 0: must be an integer in [1, 64]"


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_names_its_energy_table(preset):
    from importlib import resources

    text = (resources.files("accelsim") / "presets" / f"{preset}.toml").read_text(encoding="utf-8")
    energy = tomllib.loads(text).get("energy", {})
    assert energy.get("technology") == load_config(preset).energy.technology, preset
