"""`dram.model`, `dram.technology` and the timing keys: defaults, overrides, errors naming the
key, the content hash of bandwidth-model configs unchanged, the analytic view of the timing
model, and the bandwidth model's results unchanged by the new keys."""

from __future__ import annotations

import pytest

from accelsim.config import config_from_dict, load_config
from accelsim.cost.dram_tech import TECHNOLOGIES, TIMING_KEYS
from accelsim.cost.dram_timing import DramTiming
from accelsim.errors import ConfigError
from accelsim.sim.simulate import simulate
from workloads.dma_programs import tiled_gemm

# the [dram] keys before the timing model existed: a bandwidth-model config shows (and hashes,
# so DSE stores keep their keys) only these
BANDWIDTH_KEYS = {"channels", "bandwidth_bytes_per_cycle", "latency_cycles", "burst_bytes",
                  "interleave"}


@pytest.mark.parametrize("name", ["default", "edge", "server", "three_level", "ideal"])
def test_bandwidth_is_the_default_and_hashes_are_unchanged(name: str) -> None:
    cfg = load_config(name)
    assert cfg.dram.model == "bandwidth"
    assert set(cfg.to_dict()["dram"]) == BANDWIDTH_KEYS
    assert cfg.bandwidth_view() is cfg


@pytest.mark.parametrize("tech", list(TECHNOLOGIES))
def test_each_technology_resolves_and_every_timing_is_overridable(tech: str) -> None:
    base = load_config("default").with_overrides({"dram.model": "timing", "dram.technology": tech})
    t = DramTiming.for_config(base)
    ts = TECHNOLOGIES[tech]
    assert t.tCL == ts.tCL and t.tREFI == ts.tREFI
    assert base.dram_clock_ratio == ts.clock_mhz / 1000.0
    for key in TIMING_KEYS:
        got = DramTiming.for_config(base.with_overrides({f"dram.{key}": getattr(ts, key) + 1}))
        assert getattr(got, key) == getattr(ts, key) + 1, key


@pytest.mark.parametrize(("over", "message"), [
    ({"dram.tCL": 30}, "dram.tCL = 30: a timing-model key, but dram.model = 'bandwidth'"),
    ({"dram.technology": "HBM2e"}, "dram.technology = 'HBM2e': a timing-model key"),
    ({"dram.model": "cycle"}, "dram.model = 'cycle': must be one of 'bandwidth', 'timing'"),
    ({"dram.model": "timing", "dram.technology": "DDR5"},
     "dram.technology = 'DDR5': must be one of 'DDR4-3200', 'LPDDR5-6400', 'HBM2e'"),
    ({"dram.model": "timing", "dram.tRCD": 0}, "dram.tRCD = 0: must be an integer in [1, 1000000]"),
    ({"dram.model": "timing", "dram.address_mapping": "ro:ba:co"},
     "dram.address_mapping = 'ro:ba:co': must name each of"),
    ({"dram.model": "timing", "dram.tRFC": 20000}, "dram.tRFC = 20000: must be less than dram.tREFI"),
    ({"dram.model": "timing", "dram.columns": 1001}, "dram.columns = 1001: must be a multiple"),
    ({"dram.model": "timing", "dram.write_high_watermark": 8},
     "dram.write_high_watermark = 8: must be in [dram.write_low_watermark + 1 = 17"),
    ({"dram.model": "timing", "dram.tWR": 2.5}, "dram.tWR = 2.5: must be an integer"),
])
def test_bad_values_name_the_key_and_the_range(over: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)").replace("+", r"\+")):
        load_config("default").with_overrides(over)


def test_toml_shape_round_trips_with_the_timing_keys() -> None:
    cfg = load_config("default").with_overrides(
        {"dram.model": "timing", "dram.technology": "LPDDR5-6400", "dram.tCL": 20})
    again = config_from_dict(cfg.to_dict())
    assert again.dram == cfg.dram and again.hash() == cfg.hash() != load_config("default").hash()


def test_the_analytic_view_is_the_technology_in_bandwidth_terms() -> None:
    cfg = load_config("default").with_overrides({"dram.model": "timing"})  # DDR4-3200, 1 GHz
    v = cfg.bandwidth_view().dram
    # 64 B per 4 clocks of 1.6 GHz = 25.6 B per ns; tRCD + tCL + tBURST = 48 clocks = 30 ns
    assert (v.model, v.burst_bytes, v.bandwidth_bytes_per_cycle) == ("bandwidth", 64, 25)
    assert v.latency_cycles == cfg.dram.latency_cycles + 30


def test_an_explicit_bandwidth_model_gives_the_same_run() -> None:
    mod = tiled_gemm(128, 128, 128, 32)
    a = simulate(mod, load_config("default"), functional=False)
    b = simulate(tiled_gemm(128, 128, 128, 32),
                 load_config("default").with_overrides({"dram.model": "bandwidth"}),
                 functional=False)
    assert a.cycles == b.cycles and a.trace.records == b.trace.records


def test_the_timing_model_changes_a_dma_bound_run() -> None:
    """Differential: the same program under the two models; the timing model's DRAM figures
    come from the technology (DDR4-3200 on 2 channels: 51.2 B per cycle at 1 GHz)."""
    cfg = load_config("default").with_overrides({"dram.model": "timing"})
    r = simulate(tiled_gemm(128, 128, 128, 32), cfg, functional=False)
    bw = simulate(tiled_gemm(128, 128, 128, 32), load_config("default"), functional=False)
    assert r.cycles != bw.cycles
    dram = [x for x in r.trace.records if x.unit.startswith("dram.ch")]
    assert dram and all(x.end >= x.start for x in dram)
    assert sum(x.bytes for x in dram) >= sum(x.bytes for x in bw.trace.records
                                             if x.unit.startswith("dram.ch")) * 0.99
