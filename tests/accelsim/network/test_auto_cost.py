"""`auto`'s cost: where no fused group can keep an intermediate on chip, choosing costs no
candidate compile and the result is layer-by-layer's, figure for figure (issue 33)."""

from __future__ import annotations

from typing import Any

import pytest

from accelsim.network import fused, schedule
from accelsim.network.layerlist import parse_layer_list
from accelsim.network.links import links
from accelsim.network.schedule import run_schedule

CHAIN = """c1  conv:C=8,H=16,W=16,K=16,R=3,S=3,pad=1
r1  relu:N=4096
c2  conv:C=16,H=16,W=16,K=16,R=3,S=3,pad=1
fc  gemm:M=10,N=1,K=4096
"""
# an SRAM whose on-chip share (fused.LINK_SHARE) holds none of the chain's intermediates
HW = {"sram.capacity_kib": 12}


def test_auto_with_no_feasible_group_compiles_no_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    net = parse_layer_list(CHAIN, "chain.layers")
    cap = HW["sram.capacity_kib"] * 1024
    assert all(ln.nbytes > fused.LINK_SHARE * cap for ln in links(net))  # the premise
    calls: list[str] = []

    def counted(name: str, real: Any) -> Any:
        def wrapper(*a: Any, **kw: Any) -> Any:
            calls.append(name)
            return real(*a, **kw)
        return wrapper

    for name in ("run_group", "group_modules", "_compile_kernel"):
        monkeypatch.setattr(fused, name, counted(name, getattr(fused, name)))
    kw = {"fidelity": "analytic", "workers": 0, "progress": False}
    lbl = run_schedule(net, "layer-by-layer", "default", HW, **kw)
    auto = run_schedule(net, "auto", "default", HW, **kw)
    name, estimates = schedule.choose(net, "default", HW, workers=0, progress=False)
    assert calls == []  # no candidate group compiled, estimated or stitched
    assert name == "layer-by-layer" and auto.schedule == "layer-by-layer"
    assert estimates["fused"].meta["fused_groups"] == 0
    assert auto.meta["schedule_requested"] == "auto"
    assert [r.layer.name for r in auto.layers] == [r.layer.name for r in lbl.layers]
    for a, b in zip(auto.layers, lbl.layers):
        assert (a.start_cycle, a.figures) == (b.start_cycle, b.figures)
    drop = ("schedule",)
    assert {k: v for k, v in auto.totals().items() if k not in drop} == \
        {k: v for k, v in lbl.totals().items() if k not in drop}
    assert auto.network_figures == lbl.network_figures
