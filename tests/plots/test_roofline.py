"""Roofline, rendered headless: the measured point drawn is the report's (intensity, ops per
cycle), the ceilings are the config's, and the roof line is min(peak, intensity x bandwidth)."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.report import Report
from compiler.transforms.registry import PassManager
from plots.roofline import plot_roofline
from workloads.dma_programs import tile_sum, tiled_gemm

COPY = ("--affine-data-copy-generate=generate-dma fast-mem-space=1 slow-mem-space=0 "
        "tag-mem-space=2 fast-mem-capacity=2")


def jacobi():
    m = workloads.get("jacobi-2d:N=20,T=2").module()
    PassManager.from_flags([COPY]).run(m)
    return m


CASES = {
    "gemm matrix": (lambda: tiled_gemm(64, 64, 64, 32), {}),
    "gemm vector": (lambda: tiled_gemm(64, 64, 64, 32), {"compute.kind": "vector", "compute.lanes": 4}),
    "tile_sum": (lambda: tile_sum(8, 256), {"compute.kind": "vector"}),
    "jacobi-2d": (jacobi, {}),
}


def scatter_points(fig):
    ax = fig.axes[0]
    return [tuple(c.get_offsets()[0]) for c in ax.collections]


@pytest.mark.parametrize("name", sorted(CASES))
def test_point_and_ceilings_match_the_report(name, tmp_path):
    build, over = CASES[name]
    cfg = load_config("default").with_overrides(over)
    rep = Report.from_result(simulate(build(), cfg, functional=False))
    rf = plot_roofline(rep, tmp_path / "r.png", config=cfg)
    x, y = rf.point
    assert x == pytest.approx(rep.roofline.ops / rep.roofline.dram_bytes)
    assert y == pytest.approx(rep.roofline.ops / rep.cycles)
    assert scatter_points(rf.figure) == [pytest.approx((x, y))]
    # the gap to the roof is the report's roofline ratio
    assert rep.roofline.attainable_ops_per_cycle(x) / y == pytest.approx(rep.roofline_ratio)
    cc = cfg.compute
    assert rf.ceilings["DRAM bandwidth (B/cycle)"] == cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    assert rf.ceilings[f"vector {cc.lanes} lanes (FMA)"] == 2 * cc.lanes
    if cc.kind == "matrix":
        assert rf.ceilings[f"matrix {cc.rows}x{cc.cols}"] == 2 * cc.rows * cc.cols
    # the black memory roof: slope = bandwidth until the highest ceiling
    roof = rf.figure.axes[0].lines[0]
    xs, ys = roof.get_xdata(), roof.get_ydata()
    top = max(v for k, v in rf.ceilings.items() if not k.startswith("DRAM"))
    assert np.allclose(ys, np.minimum(xs * rf.ceilings["DRAM bandwidth (B/cycle)"], top))
    legend = " ".join(t.get_text() for t in rf.figure.axes[0].get_legend().get_texts())
    assert f"{rep.roofline_ratio:.2f}x roofline ({rep.roofline.bound})" in legend
    assert (tmp_path / "r.png").stat().st_size > 10_000


def test_several_reports_share_the_roofs(tmp_path):
    a = Report.from_result(simulate(tiled_gemm(64, 64, 64, 32, pipelined=False), "default",
                                    functional=False))
    b = Report.from_result(simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False))
    rf = plot_roofline([("copy", a), ("pipelined", b)], tmp_path / "r.svg")
    assert [p[0] for p in rf.points] == ["copy", "pipelined"]
    pts = scatter_points(rf.figure)
    assert pts == [pytest.approx((a.roofline.intensity, a.achieved_ops_per_cycle)),
                   pytest.approx((b.roofline.intensity, b.achieved_ops_per_cycle))]
    assert pts[1][1] > pts[0][1]  # pipelining moves the point up, at the same intensity
