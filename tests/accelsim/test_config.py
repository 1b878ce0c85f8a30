"""Hardware description: presets, validation messages, overrides, hash."""

import dataclasses

import pytest

from accelsim.config import HardwareConfig, config_from_dict, load_config, preset_names
from accelsim.errors import ConfigError


def test_presets_load_and_differ_as_documented():
    assert {"default", "edge", "server"} <= set(preset_names())
    edge, server, default = load_config("edge"), load_config("server"), load_config("default")
    assert edge.dma.engines == 1 and server.dma.engines > 1
    assert edge.sram.capacity_kib < default.sram.capacity_kib < server.sram.capacity_kib
    assert (edge.dram.channels * edge.dram.bandwidth_bytes_per_cycle
            < server.dram.channels * server.dram.bandwidth_bytes_per_cycle)
    # the default preset is exactly the dataclass defaults
    assert default.hash() == HardwareConfig().hash()


@pytest.mark.parametrize("key,value,message", [
    ("dram.channels", 0, "dram.channels = 0: must be an integer in [1, 64]"),
    ("dram.channels", 2.5, "dram.channels = 2.5: must be an integer in [1, 64]"),
    ("sram.capacity_kib", -1, "sram.capacity_kib = -1: must be an integer in [1, 4194304]"),
    ("dma.queue_depth", True, "dma.queue_depth = True: must be an integer in [1, 1024]"),
    ("compute.kind", "systolic", "compute.kind = 'systolic': must be one of 'matrix', 'vector'"),
    ("clock_ghz", 0, "clock_ghz = 0: must be a number in [0.001, 100]"),
    ("energy.mac_pj", -3.0, "energy.mac_pj = -3.0: must be a number in [0, 1000000]"),
])
def test_validation_names_key_value_and_range(key, value, message):
    with pytest.raises(ConfigError) as err:
        load_config("default").with_overrides({key: value})
    assert str(err.value) == message


def test_unknown_keys_are_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"dram\.chanels = 2: unknown key"):
        load_config("default").with_overrides({"dram.chanels": 2})
    with pytest.raises(ConfigError, match="unknown section 'cache'"):
        load_config("default").with_overrides({"cache.size": 2})
    p = tmp_path / "hw.toml"
    p.write_text("[sram]\ncapacity_kib = 64\nwidth = 3\n")
    with pytest.raises(ConfigError, match=r"sram\.width = 3: unknown key"):
        load_config(str(p))
    with pytest.raises(ConfigError, match="unknown key"):
        config_from_dict({"frequency": 1})


def test_file_config_partial_uses_defaults_and_validates(tmp_path):
    p = tmp_path / "mine.toml"
    p.write_text("clock_ghz = 2.0\n[dma]\nengines = 3\n")
    cfg = load_config(str(p))
    assert cfg.name == "mine" and cfg.clock_ghz == 2.0 and cfg.dma.engines == 3
    assert cfg.sram == HardwareConfig().sram
    p.write_text("[dma]\nengines = 100\n")
    with pytest.raises(ConfigError, match=r"dma\.engines = 100: must be an integer in \[1, 64\]"):
        load_config(str(p))


def test_unknown_preset_lists_presets():
    with pytest.raises(ConfigError, match=r"unknown hardware preset 'huge'.*edge"):
        load_config("huge")


def test_overrides_return_new_valid_config_and_hash_is_stable():
    base = load_config("default")
    small = base.with_overrides({"sram.capacity_kib": 128})
    assert small.sram.capacity_kib == 128 and base.sram.capacity_kib == 256
    assert small.hash() != base.hash()
    assert base.with_overrides({"sram.capacity_kib": 256}).hash() == base.hash()
    assert dataclasses.replace(base, name="renamed").hash() == base.hash()  # name is not hardware
    assert base.hash() == load_config("default").hash()


def test_sections_are_frozen_and_validated_on_construction():
    with pytest.raises(dataclasses.FrozenInstanceError):
        load_config("default").dram.channels = 3  # type: ignore[misc]
    with pytest.raises(ConfigError, match="spaces"):
        load_config("default").with_overrides({"spaces.tag": 1})
