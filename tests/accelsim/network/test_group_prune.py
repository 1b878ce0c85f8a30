"""The fused grouping's cheap paths: band heights bisected (the same tallest band a scan of
every height finds), the closed-form floor of a banded group's DRAM bytes (weights once per
computing band, input and residual rows once, output once) exact on a small chain with a
residual and never above the compiled group's estimate, and `auto` never worse than
layer-by-layer."""

from __future__ import annotations

import math

import pytest

from accelsim.compile import compile_cache
from accelsim.config import load_config
from accelsim.network import band_budget, depthfirst, fused
from accelsim.network.layerlist import parse_layer_list
from accelsim.network.links import flat_kernels, links
from accelsim.network.schedule import run_schedule

# c1 -> relu -> c2 (3x3, stride 1) -> + residual: a 16x34x34 f32 intermediate (74 KiB)
RESIDUAL = """c1  conv:C=8,H=32,W=32,K=16,R=3,S=3,pad=1
r1  relu:N=16384
c2  conv:C=16,H=32,W=32,K=16,R=3,S=3,pad=1
add  vector_add:N=16384
"""
SMALL = {"sram.capacity_kib": 64}


def _plan(text: str, hw: dict) -> fused._Plan:
    net = parse_layer_list(text, "chain.layers")
    cfg = load_config("default").with_overrides(hw)
    return fused._Plan(net, cfg, flat_kernels(net), {ln.producer: ln for ln in links(net)})


def _scan(plan: fused._Plan, group: fused.Group) -> int | None:
    """The tallest fitting band by trying every height, tallest first (the plan's rule)."""
    from accelsim.network.group_model import MIN_TILE_KIB, RESIDENT_SHARE, _capacity

    cap = _capacity(plan.config)
    total = depthfirst._out_rows(plan, depthfirst._chain(plan, group))
    for h in dict.fromkeys(-(-total // nb) for nb in range(2, total + 1)):
        live = depthfirst.resident(plan, depthfirst.layout(plan, group, h, limit=3))
        if live <= RESIDENT_SHARE * cap and cap - live >= MIN_TILE_KIB * 1024:
            return h
    return None


@pytest.mark.parametrize("kib", [48, 64, 96, 128])
def test_bisected_band_is_the_tallest_that_fits(kib: int) -> None:
    plan = _plan(RESIDUAL, {"sram.capacity_kib": kib})
    group = fused._group(plan, 0, 3)
    want = _scan(plan, group)
    if want is None:
        assert not group.band_rows
    else:
        assert group.band_rows == want and group.band_rows > 0


@pytest.mark.parametrize("height", [None, 1])
def test_bytes_floor_closed_form_with_residual(height: int | None) -> None:
    from dataclasses import replace

    plan = _plan(RESIDUAL, SMALL)
    group = fused._group(plan, 0, 3)
    assert group.band_rows and not group.dram
    if height is not None:
        group = replace(group, band_rows=height)
    h = group.band_rows
    bands = math.ceil(32 / h)
    # c1 computes h + 1 rows in the first band (c2's halo), then the h new rows each band
    # needs: it has nothing left to compute in the bands after its 32nd row
    c1_bands = 1 + math.ceil((32 - (h + 1)) / h)
    w1, w2 = 16 * 8 * 9 * 4, 16 * 16 * 9 * 4      # f32 filters
    x, residual, out = 8 * 32 * 32 * 4, 16 * 32 * 32 * 4, 16 * 32 * 32 * 4
    # each convolution streams its filter in every band it computes rows in; the input and
    # the residual are read once (halo rows reused), the output written once
    floor = band_budget.bytes_floor(plan, group)
    assert floor == c1_bands * w1 + bands * w2 + x + residual + out
    with compile_cache.enabled():
        est = compile_cache.estimated(fused.program_of_group(plan, group).compiled,
                                      plan.config, "group")
    assert floor <= est.dram_bytes


def test_auto_never_worse_than_layer_by_layer_with_a_banded_candidate() -> None:
    net = parse_layer_list(RESIDUAL, "chain.layers")
    kw = {"fidelity": "analytic", "workers": 0, "progress": False}
    lbl = run_schedule(net, "layer-by-layer", "default", SMALL, **kw).totals()
    auto = run_schedule(net, "auto", "default", SMALL, **kw)
    t = auto.totals()
    assert t["cycles"] <= lbl["cycles"] and t["dram_bytes"] <= lbl["dram_bytes"]
    assert auto.meta["schedule_requested"] == "auto"
    if auto.schedule == "fused":   # a kept banded group says whether its weights stayed on chip
        groups = auto.network_figures["fused_groups"]
        assert groups and all("weights_onchip" in g for g in groups)
        rows = [r for r in auto.to_dict()["layers"] if r.get("fused_group")]
        assert all("weights_onchip" in r for r in rows)


def test_weights_held_on_chip_read_once_same_outputs_race_free() -> None:
    """The group's filters loaded into the fast level once (a band short enough to leave room
    for them): DRAM bytes = filters once + input + residual + output, fewer cycles than
    streaming them every band, race-free, and the same outputs as the streamed program."""
    import numpy as np

    from accelsim.api.program import program_of_module
    from accelsim.api.program_run import RunOptions, run_program
    from accelsim.compile.race_check import first_race

    plan = _plan(RESIDUAL, SMALL)
    group = fused._group(plan, 0, 3)
    held, streamed = fused._variants(plan, group)
    assert held.weights_onchip and not streamed.weights_onchip
    assert held.band_rows <= streamed.band_rows
    lay = depthfirst.full_layout(plan, held)
    w1, w2 = 16 * 8 * 9 * 4, 16 * 16 * 9 * 4
    assert sorted(depthfirst.stationary(plan, held, lay).values()) == [w1, w2]
    floor = w1 + w2 + 8 * 32 * 32 * 4 + 2 * 16 * 32 * 32 * 4
    assert band_budget.bytes_floor(plan, held) == floor
    outs = {}
    with compile_cache.enabled():
        for g in (held, streamed):
            gp = fused.program_of_group(plan, g)
            assert first_race(gp.compiled) is None
            est = compile_cache.estimated(gp.compiled, plan.config, "group")
            func = fused.entry_func(gp.source)
            rng = np.random.default_rng(1)
            arrays = {label: rng.standard_normal(tuple(a.type.shape)).astype(np.float32)
                      for a, label in zip(func.args, func.arg_names())}
            run = run_program(program_of_module(gp.source, "group", source="g"), plan.config,
                              arrays, RunOptions(estimate=False), compiled=gp.compiled)
            assert run.sim is not None
            outs[g.weights_onchip] = (est, np.asarray(run.sim.outputs["add_z"]))
    (e_held, y_held), (e_str, y_str) = outs[True], outs[False]
    assert floor <= e_held.dram_bytes < e_str.dram_bytes and e_held.cycles <= e_str.cycles
    assert np.array_equal(y_held, y_str) and np.abs(y_held).max() > 0
