"""The fused schedule: kernel links, the honest network bound, groups compiled as one program
(intermediates on chip, race-free), never slower than layer-by-layer by the estimate, and
ONNX models run fused with their outputs equal to onnx.reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accelsim.api.network_run import NetworkOptions, load_network, run_network
from accelsim.compile.race_check import first_race
from accelsim.config import load_config
from accelsim.network import fused
from accelsim.network.layerlist import parse_layer_list
from accelsim.network.links import flat_kernels, honest_bound, links
from accelsim.network.schedule import run_schedule
from accelsim.network.topology import parse_topology
from compiler.ir.ops.affine import AffineDmaStartOp
from compiler.ir.ops.memref import AllocOp
from tests.accelsim.network.onnx_models import attention, convnet, save

CHAIN = """c1  conv:C=8,H=16,W=16,K=16,R=3,S=3,pad=1
r1  relu:N=4096
c2  conv:C=16,H=16,W=16,K=16,R=3,S=3,pad=1
r2  relu:N=4096
fc  gemm:M=10,N=1,K=4096
"""
TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
a, 10, 10, 3, 3, 4, 8, 1,
b, 10, 10, 3, 3, 8, 8, 1,
c, 5, 5, 1, 1, 3, 3, 1,
"""


def test_links_by_shape_reshape_and_padding(tmp_path: Path) -> None:
    net = parse_layer_list(CHAIN, "chain.layers")
    found = {(ln.producer, ln.consumer): ln for ln in links(net)}
    kinds = [k.workload.split(":")[0] for _, k in flat_kernels(net)]
    assert kinds == ["pad2d", "conv2d", "relu", "pad2d", "conv2d", "relu", "gemm"]
    assert set(found) == {(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)}
    assert found[(1, 2)].nbytes == 4096 * 4 and found[(1, 2)].pad == 0   # 1x16x16x16 -> 4096: reshape
    assert found[(5, 6)].in_arg == "B"  # the gemm's 4096-element operand, not its 40960-element A
    path = tmp_path / "t.csv"
    path.write_text(TOPO)
    topo = parse_topology(TOPO, str(path))
    (ln,) = links(topo)  # a: 8x8 out, b's input 10x10 = a's output with a border of 1; c: no
    assert (ln.producer, ln.pad, ln.nbytes) == (0, 1, 8 * 10 * 10 * 4)


def test_honest_bound_counts_weights_inputs_outputs_once() -> None:
    net = parse_layer_list(CHAIN, "chain.layers")
    cfg = load_config("default")
    b = honest_bound(net, cfg, macs=0)
    weights = (16 * 8 * 9 + 16 * 16 * 9 + 10 * 4096) * 4
    assert b["honest_bound_bytes"] == weights + 8 * 16 * 16 * 4 + 10 * 4  # + input + output
    assert b["honest_forced_spill_bytes"] == 0
    tiny = cfg.with_overrides({"sram.capacity_kib": 1})  # a 16x16 slice (1 KiB) fits, 4096 B do not
    assert honest_bound(net, tiny, macs=0)["honest_forced_spill_bytes"] > 0


@pytest.fixture(scope="module")
def chain_runs() -> tuple:
    net = parse_layer_list(CHAIN, "chain.layers")
    lbl = run_schedule(net, "layer-by-layer", "default", fidelity="analytic", workers=0, progress=False)
    fus = run_schedule(net, "fused", "default", fidelity="analytic", workers=0, progress=False)
    return net, lbl, fus


def test_fused_is_faster_moves_less_and_reports_it(chain_runs: tuple) -> None:
    _net, lbl, fus = chain_runs
    t, b = fus.totals(), lbl.totals()
    assert t["schedule"] == "fused" and b["schedule"] == "layer-by-layer"
    assert t["cycles"] <= b["cycles"] and t["dram_bytes"] < b["dram_bytes"]
    assert t["dram_bytes_saved"] == b["dram_bytes"] - t["dram_bytes"] > 0
    assert t["dram_bytes"] >= t["honest_bound_bytes"] == b["honest_bound_bytes"]
    groups = [r for r in fus.layers if r.figures.get("fused_group")]
    assert groups and all(r.layer.lowering == "fused" for r in groups)
    g = groups[0].figures
    assert g["dram_bytes_saved"] == g["dram_bytes_layer_by_layer"] - g["dram_bytes"] > 0
    assert 0 < g["onchip_peak_bytes"] <= 256 * 1024
    assert fus.network_figures["onchip_peak_bytes"]["sram"] >= g["onchip_peak_bytes"]
    d = fus.to_dict()
    assert d["layers"][0]["fused_group"] and d["honest_bytes_ratio"] >= 1.0
    assert d["onchip_peak_bytes"] == {"sram": max(r.figures["onchip_peak_bytes"] for r in groups)}
    assert d["honest_forced_spill_bytes"] == 0
    assert "fused " in fus.table() and "saved" in fus.table()


def test_group_is_one_race_free_program_with_intermediates_on_chip() -> None:
    net = parse_layer_list(CHAIN, "chain.layers")
    cfg = load_config("default")
    plan = fused._Plan(net, cfg, flat_kernels(net), {ln.producer: ln for ln in links(net)})
    group = fused._group(plan, 0, 3)   # c1, r1, c2, r2: 4 layers, 6 kernels
    assert len(group.onchip) == 5 and not group.dram
    gp = fused.group_modules(plan, group)
    assert [f.sym_name for f in gp.compiled.funcs] == ["group"]
    assert first_race(gp.compiled) is None
    fast = [op for op in gp.compiled.walk() if isinstance(op, AllocOp)
            and op.memref_type.memory_space == cfg.spaces.sram and op.memref_type.element.name == "f32"]
    inter = [op.results[0] for op in gp.compiled.body.ops[0].body.ops if isinstance(op, AllocOp)
             and re.fullmatch(r"t\d+", op.results[0].name_hint or "")]
    assert all(v.type.memory_space == cfg.spaces.sram for v in inter)
    assert len(inter) == 5 and len(fast) > 5  # the intermediates, and the kernels' own tiles
    for op in gp.compiled.walk():  # no DMA moves an on-chip intermediate
        if isinstance(op, AffineDmaStartOp):
            assert not any(v in inter for v in op.operands)
    # the external arguments: the input, the weights and the output
    assert [name for name, _, _ in gp.args] == ["c1_input", "c1_filter", "c2_filter", "r2_y"]


def test_auto_never_worse_than_layer_by_layer(chain_runs: tuple) -> None:
    net, lbl, fus = chain_runs
    auto = run_schedule(net, "auto", "default", fidelity="analytic", workers=0, progress=False)
    assert auto.meta["schedule_requested"] == "auto"
    assert auto.totals()["cycles"] <= lbl.totals()["cycles"]
    assert auto.schedule == "fused"  # the estimate says it pays here
    assert auto.meta["schedule_estimates"]["fused"] == fus.totals()["cycles"]


def test_many_clusters_run_no_group() -> None:
    net = parse_layer_list(CHAIN, "chain.layers")
    r = run_schedule(net, "fused", "default", {"clusters": 2}, fidelity="analytic", workers=0,
                     progress=False)
    assert r.meta["fused_groups"] == 0 and "one cluster" in r.meta["fused_note"]
    assert "fused: no group formed: fused groups run on one cluster" in r.table()


@pytest.mark.parametrize("build", [convnet, attention], ids=["cnn", "attention"])
def test_onnx_fused_equals_reference(build, tmp_path: Path) -> None:
    path = save(build(), tmp_path / "m.onnx")
    net, _ = load_network(str(path))
    run = run_network(net, "default", NetworkOptions(check=True, schedule="fused", seed=3))
    d = run.to_dict(str(path))
    assert d["check"]["ok"], d["check"]
    assert d["schedule"] == "fused"
    groups = [r for r in d["layers"] if r.get("fused_group")]
    assert any(len(r["fused_group"]) >= 2 for r in groups)
    assert sum(len(r.get("fused_group") or [r["name"]]) for r in d["layers"]) == len(net.layers)


def test_a_sweep_point_runs_its_schedule(tmp_path: Path) -> None:
    from accelsim.dse.spec import Point
    from accelsim.network.sweep import evaluate

    path = tmp_path / "chain.layers"
    path.write_text(CHAIN)
    figs = {s: evaluate(Point(workload=f"network:{path}", fidelity="analytic", schedule=s))
            for s in ("layer-by-layer", "fused")}
    assert figs["fused"]["schedule_ran"] == "fused" and figs["fused"]["dram_bytes_saved"] > 0
    assert figs["fused"]["cycles"] <= figs["layer-by-layer"]["cycles"]
    assert figs["fused"]["layer_count"] == figs["layer-by-layer"]["layer_count"] == 5
