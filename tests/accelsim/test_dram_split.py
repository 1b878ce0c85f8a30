"""`dram.data_paths = "split"`: reads and writes on channels of their own (Gemmini's DMA
reader and writer on TileLink's D and A channels). A write no longer waits for a read's
channel time, the event machine and the analytic estimate agree, the default keeps every
config's hash, and the combinations it does not model are refused by name."""

from __future__ import annotations

import pytest

from accelsim.compile.mapping import compile_tiled
from accelsim.config import load_config
from accelsim.cost.dram import DramPolicy
from accelsim.errors import ConfigError
from accelsim.estimate.analytic import estimate
from accelsim.sim.simulate import simulate
from compiler.ir import I8
from workloads.mapped import Layer

ONE = {"dram.channels": 1, "dram.bandwidth_bytes_per_cycle": 4, "dram.latency_cycles": 50}


def _cycles(over: dict[str, object]) -> tuple[int, int]:
    """A 1x1 convolution tiled in 16 output channels on the gemmini preset: each tile's
    outputs are written back while the next tile's inputs and weights are read."""
    cfg = load_config("gemmini").with_overrides(over)
    layer = Layer(dict(N=1, K=64, C=32, P=16, Q=16, R=1, S=1))
    tiles = dict(N=1, K=16, C=32, P=16, Q=16, R=1, S=1)
    ev = simulate(compile_tiled(cfg, layer, tiles, "K", "nhwc", I8)[0], cfg, functional=False).cycles
    an = estimate(compile_tiled(cfg, layer, tiles, "K", "nhwc", I8)[0], cfg).cycles
    return ev, an


def test_split_paths_overlap_reads_and_writes_and_both_fidelities_agree() -> None:
    shared_ev, shared_an = _cycles({"dram.data_paths": "shared"})
    split_ev, split_an = _cycles({"dram.data_paths": "split"})
    assert split_ev == split_an
    assert shared_ev == shared_an
    # the outputs are written back while the next tiles are read: never slower, here faster
    assert split_ev < shared_ev


def test_split_keeps_a_channel_state_per_direction() -> None:
    cfg = load_config("default").with_overrides({**ONE, "dram.data_paths": "split"})
    pol = DramPolicy.for_config(cfg.dram)
    assert (pol.split, pol.states, pol.write_base) == (True, 2, 1)
    shared = DramPolicy.for_config(load_config("default").dram)
    assert (shared.split, shared.states, shared.write_base) == (False, 2, 0)


def test_default_is_shared_and_not_in_the_hash() -> None:
    cfg = load_config("default")
    assert cfg.dram.data_paths == "shared" and "data_paths" not in cfg.to_dict()["dram"]
    split = cfg.with_overrides({**ONE, "dram.data_paths": "split"})
    assert split.to_dict()["dram"]["data_paths"] == "split"
    assert split.hash() != cfg.with_overrides(ONE).hash()


@pytest.mark.parametrize(("over", "message"), [
    ({"dram.data_paths": "duplex"}, "dram.data_paths = 'duplex': must be one of 'shared', 'split'"),
    ({"dram.data_paths": "split", "dram.model": "timing"}, "needs dram.model = 'bandwidth'"),
    ({"dram.data_paths": "split", "dram.channels": 2, "dram.interleave": "burst"},
     "one channel or dram.interleave = 'none'"),
])
def test_refused_combinations_name_the_key(over: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config("default").with_overrides(over)


def test_split_with_memory_levels_is_refused() -> None:
    with pytest.raises(ConfigError, match="two-level machine"):
        load_config("three_level").with_overrides({"dram.data_paths": "split", "dram.channels": 1})
