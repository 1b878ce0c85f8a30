"""Depth-first fused groups: intermediates too large for the on-chip level computed band by
band (halo recomputation), the banded program race-free and equal to the whole-intermediate
program and to onnx.reference, never slower than layer-by-layer by the estimate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from accelsim.api.network_run import load_network
from accelsim.api.program import program_of_module
from accelsim.api.program_run import RunOptions, run_program
from accelsim.compile.race_check import first_race
from accelsim.config import load_config
from accelsim.network import depthfirst, fused, group_model
from accelsim.network.layerlist import parse_layer_list
from accelsim.network.links import flat_kernels, links
from accelsim.network.schedule import run_schedule
from compiler.ir.ops.affine import AffineDmaStartOp
from compiler.ir.ops.memref import AllocOp
from tests.accelsim.network.onnx_models import _model, _vi, _w, save

CHAIN = """c1  conv:C=8,H=32,W=32,K=16,R=3,S=3,pad=1
r1  relu:N=16384
c2  conv:C=16,H=32,W=32,K=16,R=3,S=3,stride=2,pad=1
r2  relu:N=4096
"""
SMALL = {"sram.capacity_kib": 64}   # a 16x34x34 padded intermediate (74 KiB) does not fit


def _plan(text: str, hw: dict) -> fused._Plan:
    net = parse_layer_list(text, "chain.layers")
    cfg = load_config("default").with_overrides(hw)
    return fused._Plan(net, cfg, flat_kernels(net), {ln.producer: ln for ln in links(net)})


def _outputs(plan: fused._Plan, gp: fused.GroupProgram) -> dict:
    func = group_model.entry_func(gp.source)
    rng = np.random.default_rng(1)
    arrays = {label: rng.standard_normal(tuple(a.type.shape)).astype(np.float32)
              for a, label in zip(func.args, func.arg_names())}
    arrays["r2_y"][...] = 0
    run = run_program(program_of_module(gp.source, "group", source="g"), plan.config, arrays,
                      RunOptions(estimate=False), compiled=gp.compiled)
    assert run.sim is not None
    return {k: np.asarray(v).reshape(-1) for k, v in run.sim.outputs.items()}


def test_banded_group_equals_the_whole_one_and_is_race_free() -> None:
    small = _plan(CHAIN, SMALL)
    group = fused._group(small, 0, 3)
    assert group.band_rows and not group.dram and len(group.onchip) == 5
    gp = fused.program_of_group(small, group)
    assert first_race(gp.compiled) is None
    cfg = small.config
    body = gp.compiled.body.ops[-1].body.ops
    bufs = [op.memref_type for op in body if isinstance(op, AllocOp)
            and op.memref_type.memory_space == cfg.spaces.sram and op.memref_type.element.name == "f32"]
    # every band buffer holds fewer rows than the tensor, within the level
    assert bufs and all(t.shape[2] < 34 for t in bufs)
    assert 0 < gp.peak <= 64 * 1024
    # the bands' outputs cover the 16 output rows exactly once
    outs = [op for op in gp.compiled.body.ops[-1].walk()
            if isinstance(op, AffineDmaStartOp) and op.dst.type.memory_space == 0]
    rows = [int(op.dst_map.results[2].linear_coeffs(0, 0)[2]) for op in outs]
    heights = [b.fast[b.out][1] - b.fast[b.out][0] for b in
               (band[-1] for band in depthfirst.bands(small, group, group.band_rows))]
    assert sorted(rows) == rows and sum(heights) == 16
    assert rows == [sum(heights[:i]) for i in range(len(heights))]
    # the same outputs as the program with whole intermediates (on a level that holds them)
    whole = _plan(CHAIN, {})
    wg = fused._group(whole, 0, 3)
    assert not wg.band_rows and not wg.dram
    a, b = _outputs(small, gp), _outputs(whole, fused.program_of_group(whole, wg))
    assert np.array_equal(a["r2_y"], b["r2_y"]) and np.abs(a["r2_y"]).max() > 0


def test_halo_rows_follow_kernel_and_stride_and_are_reused() -> None:
    plan = _plan(CHAIN, SMALL)
    group = fused._group(plan, 0, 3)
    first, second = depthfirst.bands(plan, group, 4)[:2]   # output rows 0..3, 4..7 of c2
    assert first[4].fast["input"] == (0, 9)       # (4-1)*2 + 3 rows of the padded input
    assert first[3].computed == (0, 9) and first[3].fast["input"] == (0, 8)
    pad2, conv2 = second[3], second[4]
    assert conv2.fast["output"] == (4, 8)
    assert conv2.fast["input"] == (8, 17)         # its window: (8-1)*2 + 3 rows
    assert pad2.fast["output"] == (8, 17)
    # halo reuse: row 8 was computed by the first band; only rows 9..16 are new, and they
    # need rows 8..15 of the unpadded relu output
    assert pad2.computed == (9, 17) and pad2.fast["input"] == (8, 16)


def test_not_bandable_is_refused_by_name() -> None:
    plan = _plan("g1  gemm:M=64,N=64,K=64\nc1  conv:C=1,H=64,W=64,K=4,R=3,S=3\n", {})
    with pytest.raises(depthfirst.NotBandable):
        depthfirst.band_kernel(plan, 0, None, plan.links.get(0) or _fake_link(), (0, 8), 1)


def _fake_link():  # a link whose consumer reads no rows of the producer's shape
    from accelsim.network.links import Link
    return Link(0, "C", "input", 0, 4)


def test_schedule_never_slower_and_reports_bands() -> None:
    net = parse_layer_list(CHAIN, "chain.layers")
    kw = {"fidelity": "analytic", "workers": 0, "progress": False}
    lbl = run_schedule(net, "layer-by-layer", "default", SMALL, **kw)
    fus = run_schedule(net, "fused", "default", SMALL, **kw)
    t, b = fus.totals(), lbl.totals()
    assert t["cycles"] <= b["cycles"] and t["dram_bytes"] < b["dram_bytes"]
    rows = [r.figures for r in fus.layers if r.figures.get("band_rows")]
    assert rows and all(f["dram_bytes_saved"] > 0 and f["onchip_peak_bytes"] <= 64 * 1024 for f in rows)
    assert any(g["band_rows"] for g in fus.network_figures["fused_groups"])
    assert any(r.get("band_rows") for r in fus.to_dict()["layers"])
    assert "in bands of" in fus.table()


def _conv_chain(seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    inits = [_w(rng, "w1", 8, 3, 3, 3), _w(rng, "w2", 8, 8, 3, 3)]
    nodes = [  # no bias: a convolution onto a bias starts from a tensor, kept in DRAM
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["y"], name="relu2"),
    ]
    return _model(nodes, [_vi("x", 1, 3, 24, 24)], [_vi("y", 1, 8, 12, 12)], inits, "chain")


def test_onnx_banded_equals_reference(tmp_path: Path) -> None:
    """A banded group run with data (`FusedData.run`, the path of `--schedule fused --check`)
    on a 40 KiB level: its output equals onnx.reference's."""
    from onnx.reference import ReferenceEvaluator

    text = Path(load_config.__code__.co_filename).parent.joinpath("presets", "default.toml").read_text()
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(text.replace("capacity_kib = 256", "capacity_kib = 40", 1))
    assert load_config(str(cfg)).memory_chain()[1].capacity_kib == 40
    model = _conv_chain()
    net, _ = load_network(str(save(model, tmp_path / "m.onnx")))
    data = fused.FusedData(net, str(cfg))
    group = fused._group(data.plan, 0, len(net.layers) - 1)
    assert group.band_rows and not group.dram      # conv1, relu1, conv2, relu2 banded
    x = np.random.default_rng(3).standard_normal((1, 3, 24, 24)).astype(np.float32)
    tensors = {**net.constants, "x": x}
    data.run(group, tensors)
    (ref,) = ReferenceEvaluator(model).run(None, {"x": x})
    got = np.asarray(tensors["y"]).reshape(ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    assert data.runs[0].figures["cycles"] > 0
