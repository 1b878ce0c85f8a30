import itertools
import tomllib

import pytest

from accelsim.dse import Point, Sweep, from_dict, load_spec
from accelsim.errors import ConfigError

SPEC = """
name = "gemm-memory"
config = "default"
workloads = ["gemm:M=64,N=64,K=64", "gemm:K=32, M=32, N=32"]
fidelity = ["analytic", "event"]
constraints = ["stages <= dma.engines + 1", "tile_sizes == 'auto' or max(tile_sizes) <= M"]

[hardware]
sram.capacity_kib = [64, 128, 256]
dma.engines = [1, 2]

[compiler]
tile_sizes = ["auto", [32, 32, 32], [64, 16, 16]]
stages = [1, 2, 3]
copy_out_pipelining = [true, false]
"""


def write(tmp_path, text, name="spec.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def brute_force(sweep: Sweep) -> list[tuple]:
    """The points the spec means, enumerated independently of Sweep.points()."""
    out = []
    for wl, sram, eng, tiles, stages, cop, fid in itertools.product(
            [(64, "gemm:M=64,N=64,K=64,dtype=f32"), (32, "gemm:M=32,N=32,K=32,dtype=f32")],
            [64, 128, 256], [1, 2], ["auto", (32, 32, 32), (64, 16, 16)], [1, 2, 3], [True, False],
            ["analytic", "event"]):
        m, spec = wl
        if stages > eng + 1:
            continue
        if tiles != "auto" and max(tiles) > m:
            continue
        tile_text = tiles if tiles == "auto" else ",".join(map(str, tiles))
        out.append((spec, sram, eng, tile_text, stages, cop, fid))
    return sorted(out)


def test_toml_spec_points_match_brute_force(tmp_path):
    sweep = load_spec(write(tmp_path, SPEC))
    assert sweep.name == "gemm-memory"
    assert sweep.size == 2 * 3 * 2 * 3 * 3 * 2 * 2
    got = sorted((p.workload, p.hw["sram.capacity_kib"], p.hw["dma.engines"], p.options["tile_sizes"],
                  p.options["stages"], p.options["copy_out_pipelining"], p.fidelity) for p in sweep.points())
    assert got == brute_force(sweep)
    assert len({p.key for p in sweep.points()}) == len(got)


def test_python_api_is_the_same_sweep(tmp_path):
    toml_sweep = load_spec(write(tmp_path, SPEC))
    py_sweep = Sweep(
        name="gemm-memory",
        workloads=["gemm:M=64,N=64,K=64", "gemm:M=32,N=32,K=32"],
        hardware={"sram.capacity_kib": [64, 128, 256], "dma.engines": [1, 2]},
        compiler={"tile_sizes": ["auto", [32, 32, 32], [64, 16, 16]], "stages": [1, 2, 3],
                  "copy_out_pipelining": [True, False]},
        fidelity=["analytic", "event"],
        constraints=["stages <= dma.engines + 1", "tile_sizes == 'auto' or max(tile_sizes) <= M"],
    )
    assert [p.key for p in py_sweep.points()] == [p.key for p in toml_sweep.points()]
    assert from_dict(tomllib.loads(SPEC)).points() == toml_sweep.points()


def test_point_key_is_canonical_and_sensitive():
    a = Point("gemm:M=1", hardware=(("a.x", 1), ("b.y", 2)), compiler=(("stages", 2),))
    b = Point("gemm:M=1", hardware=(("b.y", 2), ("a.x", 1)), compiler=(("stages", 2),))
    assert a.key == b.key
    assert len(a.key) == 32
    variants = [Point("gemm:M=2", a.config, a.hardware, a.compiler),
                Point(a.workload, "edge", a.hardware, a.compiler),
                Point(a.workload, a.config, (("a.x", 1), ("b.y", 3)), a.compiler),
                Point(a.workload, a.config, a.hardware, (("stages", 3),)),
                Point(a.workload, a.config, a.hardware, a.compiler, fidelity="event"),
                Point(a.workload, a.config, a.hardware, a.compiler, functional=True)]
    assert len({a.key, *(v.key for v in variants)}) == 1 + len(variants)
    assert Point.from_canonical(a.canonical()) == a


def test_workload_defaults_are_one_point():
    s = Sweep(workloads=["gemm", "gemm:M=256,N=256,K=256"])
    assert len(s.points()) == 1  # gemm's defaults are 256^3: the registry's canonical spec


def test_single_values_and_nested_tables(tmp_path):
    sweep = load_spec(write(tmp_path, """
workloads = "gemm:M=32,N=32,K=32"
[hardware.sram]
capacity_kib = 128
[compiler]
tile_sizes = [16, 16, 16]
stages = 2
"""))
    (p,) = sweep.points()
    assert p.hw == {"sram.capacity_kib": 128}
    assert p.options["tile_sizes"] == "16,16,16"
    assert p.env()["tile_sizes"] == (16, 16, 16)


@pytest.mark.parametrize(("text", "key"), [
    ('workloads = ["gemm"]\nbogus = 1', "'bogus'"),
    ('workloads = []', "'workloads'"),
    ('workloads = ["gemm"]\n[hardware]\nsram.capacity_kib = []', "'hardware.sram.capacity_kib'"),
    ('workloads = ["gemm"]\n[hardware]\nsram.capacity_kib = [64, "big"]', "'hardware.sram.capacity_kib'"),
    ('workloads = ["gemm"]\n[hardware]\ncapacity = [64]', "'hardware.capacity'"),
    ('workloads = ["gemm"]\n[compiler]\nstages = ["two"]', "'compiler.stages'"),
    ('workloads = ["gemm"]\n[compiler]\nstages = [0]', "'compiler.stages'"),
    ('workloads = ["gemm"]\n[compiler]\nstages = []', "'compiler.stages'"),
    ('workloads = ["gemm"]\n[compiler]\nunroll = [2]', "'compiler.unroll'"),
    ('workloads = ["gemm"]\n[compiler]\ntile_sizes = [[32, 0]]', "'compiler.tile_sizes'"),
    ('workloads = ["gemm"]\n[compiler]\ncopy_out_pipelining = ["yes"]', "'compiler.copy_out_pipelining'"),
    ('workloads = ["gemm"]\nfidelity = ["exact"]', "'fidelity'"),
    ('workloads = ["gemm"]\nfidelity = []', "'fidelity'"),
    ('workloads = ["gemm"]\nfunctional = "no"', "'functional'"),
    ('workloads = ["no_such_kernel"]', "'workloads[0]'"),
    ('workloads = ["gemm", "gemm:M=0"]', "'workloads[1]'"),
    ('workloads = ["gemm"]\nconstraints = ["stages < dma.engines"]', "'constraints[0]'"),
    ('workloads = ["gemm"]\nconstraints = ["stages <"]', "'constraints[0]'"),
    ('workloads = ["gemm"]\nconstraints = ["1 < 2", "__import__(\'os\')"]', "'constraints[1]'"),
    ('workloads = ["gemm"]\nconstraints = ["stages < kernel"]', "'constraints[0]'"),
    ('workloads = ["gemm"\n', "invalid TOML"),
])
def test_bad_specs_fail_naming_the_key(tmp_path, text, key):
    with pytest.raises(ConfigError) as info:
        load_spec(write(tmp_path, text))
    assert key in str(info.value)
    assert "spec.toml" in str(info.value)


def test_hardware_keys_are_checked_against_the_config_schema(tmp_path):
    pytest.importorskip("accelsim.config")
    with pytest.raises(ConfigError, match=r"'hardware.sram.capacity_kibi'"):
        load_spec(write(tmp_path, 'workloads = ["gemm"]\n[hardware]\nsram.capacity_kibi = [64]'))
    with pytest.raises(ConfigError, match=r"'hardware.dma.engines'"):
        load_spec(write(tmp_path, 'workloads = ["gemm"]\n[hardware]\ndma.engines = [-1]'))
    with pytest.raises(ConfigError, match=r"'config'"):
        load_spec(write(tmp_path, 'workloads = ["gemm"]\nconfig = "no-such-preset"'))


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_spec(tmp_path / "absent.toml")


def test_constraint_environment_has_workload_params_and_dtype_bytes():
    s = Sweep(workloads=["gemm:M=32,N=32,K=32,dtype=f64", "gemm:M=64,N=32,K=32"],
              compiler={"tile_sizes": [[16, 16, 16], [64, 64, 64]]},
              constraints=["max(tile_sizes) <= M", "dtype_bytes * prod(tile_sizes) <= 32 * 1024",
                           "kernel == 'gemm'"])
    got = sorted((p.workload.split(",")[0], p.options["tile_sizes"]) for p in s.points())
    # f64 16^3 tile: 32 KiB fits; 64^3 exceeds M=32 (f64) and 4 B x 64^3 > 32 KiB (f32)
    assert got == [("gemm:M=32", "16,16,16"), ("gemm:M=64", "16,16,16")]
    assert s.points()[0].env()["dtype_bytes"] == 8


def test_hardware_file_next_to_the_spec(tmp_path):
    from accelsim.config import load_config

    hw = tmp_path / "hw"
    hw.mkdir()
    (hw / "tiny.toml").write_text('name = "tiny"\n[sram]\ncapacity_kib = 16\n')
    sweep = load_spec(write(tmp_path, 'workloads = ["gemm:M=16,N=16,K=16"]\n'
                                      'config = ["default", "hw/tiny.toml"]'))
    configs = [p.config for p in sweep.points()]
    assert configs == ["default", str((hw / "tiny.toml").resolve())]
    assert load_config(configs[1]).sram.capacity_kib == 16


def test_errors_point_at_the_line_of_the_key(tmp_path):
    text = 'name = "x"\nworkloads = ["gemm"]\n\n[hardware]\ndma.engines = [1, 2]\n' \
           'sram.capacity_kib = [64, "big"]\n\n[compiler]\nstages = [1]\n'
    with pytest.raises(ConfigError, match=r"spec\.toml:6: key 'hardware\.sram\.capacity_kib'"):
        load_spec(write(tmp_path, text))
    with pytest.raises(ConfigError, match=r"spec\.toml:9: key 'compiler\.stages'"):
        load_spec(write(tmp_path, text.replace('"big"', "128").replace("[1]\n", "[0]\n")))
    with pytest.raises(ConfigError, match=r"spec\.toml:3: key 'workloads\[1\]'"):
        load_spec(write(tmp_path, 'name = "x"\n\nworkloads = ["gemm", "nope"]\n'))


def test_a_sweep_too_large_to_list_is_refused_up_front():
    with pytest.raises(ConfigError, match=r"3,200,000 points before constraints"):
        Sweep(workloads=["gemm"], hardware={"sram.capacity_kib": list(range(1, 1601)),
                                            "dram.latency_cycles": list(range(2000))},
              check_registry=False)
