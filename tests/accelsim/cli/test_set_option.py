"""`--set KEY=VALUE` on every command that loads a config: parsed as TOML values, validated
exactly as config files are, errors naming the key, the value and the allowed range."""

import json

import pytest

from accelsim.cli import main
from accelsim.config import load_config, parse_set, parse_sets
from accelsim.errors import ConfigError


@pytest.mark.parametrize("text,key,value", [
    ("sram.capacity_kib=128", "sram.capacity_kib", 128),
    ("clock_ghz=1.5", "clock_ghz", 1.5),
    ("compute.kind=vector", "compute.kind", "vector"),       # a bare word is that string
    ('compute.kind="matrix"', "compute.kind", "matrix"),
    ("dram.interleave = none", "dram.interleave", "none"),
    ("x.y=true", "x.y", True),
])
def test_values_are_toml_values(text, key, value):
    assert parse_set(text) == (key, value)
    assert type(parse_set(text)[1]) is type(value)


@pytest.mark.parametrize("text,message", [
    ("sram.capacity_kib", "expected KEY=VALUE"),
    ("=3", "expected KEY=VALUE"),
    ("sram..banks=3", "is not a dotted config key"),
    ("dma.engines=[1,", "'[1,' is not a TOML value"),
])
def test_malformed_assignments_are_errors(text, message):
    with pytest.raises(ConfigError) as err:
        parse_set(text)
    assert message in str(err.value)


def test_a_key_given_twice_is_an_error():
    with pytest.raises(ConfigError, match=r"--set dma\.engines: given twice \(2, then 4\)"):
        parse_sets(["dma.engines=2", "dma.engines=4"])


def test_overrides_equal_a_file_with_the_same_keys(tmp_path):
    p = tmp_path / "hw.toml"
    p.write_text("[sram]\ncapacity_kib = 128\n[dma]\nengines = 3\n")
    from_file = load_config(str(p))
    from_sets = load_config("default", parse_sets(["sram.capacity_kib=128", "dma.engines=3"]))
    assert from_sets.hash() == from_file.hash()
    assert from_sets.sram.capacity_kib == 128 and from_sets.dma.engines == 3


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


GEMM = ("run", "gemm:M=16,N=16,K=16", "--target", "sim")


def test_run_set_changes_the_machine(capsys):
    code, base, err = run(capsys, *GEMM, "--timing-only", "--json")
    assert code == 0, err
    code, slow, err = run(capsys, *GEMM, "--timing-only", "--json", "--set", "dram.channels=1",
                          "--set", "dram.bandwidth_bytes_per_cycle=1")
    assert code == 0, err
    b, s = json.loads(base), json.loads(slow)
    assert s["config_hash"] == load_config(
        "default", {"dram.channels": 1, "dram.bandwidth_bytes_per_cycle": 1}).hash()
    assert s["config_hash"] != b["config_hash"] and s["cycles"] > b["cycles"]


@pytest.mark.parametrize("setting,message", [
    ("sram.capacity_kib=0", "error: --set: sram.capacity_kib = 0: must be an integer in [1, 4194304]"),
    ("dma.engines=2.5", "error: --set: dma.engines = 2.5: must be an integer in [1, 64]"),
    ("compute.kind=systolic", "error: --set: compute.kind = 'systolic': must be one of 'matrix', 'vector'"),
    ("sram.width=3", "error: --set: sram.width = 3: unknown key (known in [sram]: capacity_kib, banks, "
                     "bank_bytes_per_cycle, bank_model)"),
    ("cache.size=3", "error: --set: cache.size = 3: unknown section 'cache'"),
])
def test_run_set_errors_name_key_value_and_range(capsys, setting, message):
    code, out, err = run(capsys, *GEMM, "--set", setting)
    assert code == 1 and out == ""
    assert err.startswith(message) and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_set_on_the_host_target_is_refused(capsys):
    code, _, err = run(capsys, "run", "gemm:M=8,N=8,K=8", "--target", "host", "--set", "dma.engines=1")
    assert code == 1 and "--set: only --target sim reads this" in err


def test_compare_reads_the_set_config(capsys):
    argv = (*GEMM, "--timing-only", "--json", "--compare", "default", "no-pipeline")
    code, base, err = run(capsys, *argv)
    assert code == 0, err
    code, clock, err = run(capsys, *argv, "--set", "clock_ghz=2.0")
    assert code == 0, err
    for side in ("A", "B"):
        b, c = json.loads(base)["compare"][side], json.loads(clock)["compare"][side]
        assert c["cycles"] == b["cycles"] and c["clock_ghz"] == 2.0
        assert c["seconds"] == pytest.approx(b["seconds"] / 2)
