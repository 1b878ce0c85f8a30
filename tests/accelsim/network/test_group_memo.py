"""Structurally identical fused-group candidates evaluated once per run (`group_memo`): a
network of repeated blocks gives the same groups, figure for figure (DRAM bytes, cycles), with
the memo as without it, and the repeats are taken from the memo rather than evaluated again."""

from __future__ import annotations

from typing import Any

import pytest

from accelsim.config import load_config
from accelsim.network import fused, group_memo
from accelsim.network.group_model import Group
from accelsim.network.layerlist import parse_layer_list
from accelsim.network.links import flat_kernels, links
from accelsim.network.timing import run_timing

# attention blocks (chunked by heads on a 32 KiB level) and conv blocks (whole groups, at
# most one block to a group), each repeated; larger conv blocks on a 64 KiB level are banded
# (their 64 KiB intermediate does not fit whole)
ATTN = ("scores{n}   batched_gemm:batch=4,M=32,N=32,K=16\n"
        "softmax{n}  softmax:M=128,N=32\n"
        "context{n}  batched_gemm:batch=4,M=32,N=16,K=32\n")
CONV = ("c{n}  conv:C=8,H=16,W=16,K=8,R=3,S=3,pad=1\n"
        "r{n}  relu:N=2048\n")
WIDE = ("c{n}  conv:C=16,H=32,W=32,K=16,R=3,S=3,pad=1\n"
        "r{n}  relu:N=16384\n")
NETS = {
    "attention": ("".join(ATTN.format(n=n) for n in range(3)), {"sram.capacity_kib": 32}, 16),
    "conv": ("".join(CONV.format(n=n) for n in range(4)), {}, 2),
    "conv-banded": ("".join(WIDE.format(n=n) for n in range(3)), {"sram.capacity_kib": 64}, 2),
}


def _rows(result: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(r.layer.name, dict(r.figures)) for r in result.layers]


def _fused(text: str, hw: dict, enabled: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    memos: list[Any] = []

    def new_memo() -> Any:
        memo = group_memo.CandidateMemo() if enabled else None
        memos.append(memo)
        return memo

    monkeypatch.setattr(group_memo, "new_memo", new_memo)
    net = parse_layer_list(text, "blocks.layers")
    result = fused.run_fused(net, "default", hw, "analytic", workers=0, progress=False)
    return result, memos[0]


@pytest.mark.parametrize("name", sorted(NETS))
def test_a_memoized_run_equals_an_unmemoized_one_figure_for_figure(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text, hw, most = NETS[name]
    monkeypatch.setattr(fused, "MAX_GROUP", most)
    plain, none = _fused(text, hw, False, monkeypatch)
    memo_run, memo = _fused(text, hw, True, monkeypatch)
    assert none is None
    assert _rows(memo_run) == _rows(plain)
    assert memo_run.totals() == plain.totals()
    assert memo_run.network_figures == plain.network_figures
    # the blocks are grouped, and every block after the first is a repeat from the memo
    groups = plain.network_figures["fused_groups"]
    assert len(groups) >= 2
    kind = {"attention": "chunk", "conv-banded": "band_rows"}.get(name)
    assert all(bool(g[kind]) if kind else not (g["chunk"] or g["band_rows"]) for g in groups)
    assert memo.hits >= len(groups) - 1


def _plan(text: str, hw: dict) -> fused._Plan:
    net = parse_layer_list(text, "blocks.layers")
    cfg = load_config("default").with_overrides(hw)
    return fused._Plan(net, cfg, flat_kernels(net), {ln.producer: ln for ln in links(net)})


def test_the_key_is_the_structure_not_the_position() -> None:
    text, hw, _ = NETS["attention"]
    # a fourth block whose scores contract 8 columns rather than 16
    plan = _plan(text + ATTN.replace("K=16", "K=8").format(n=3), hw)

    def chunked(first: int, chunk: int = 2) -> Group:
        ks = plan.kernels_of(first, first + 2)
        return Group(first, first + 2, tuple(plan.links[p] for p in ks[:-1]), (), chunk=chunk)

    key = group_memo.candidate_key
    # the three blocks: the same kernels, linked the same way, at other positions (the first
    # with no producer before it, the third with one after it: neither is in the program)
    assert key(plan, chunked(0)) == key(plan, chunked(3)) == key(plan, chunked(6))
    # another shape, another chunk width: another candidate
    assert key(plan, chunked(6)) != key(plan, chunked(9))
    assert key(plan, chunked(3)) != key(plan, chunked(3, chunk=1))
    # another hardware config is another key
    other = _plan(text, {"sram.capacity_kib": 64})
    assert key(plan, chunked(3)) != key(other, Group(3, 5, chunked(3).onchip, (), chunk=2))


def test_a_repeat_decides_with_its_own_slack() -> None:
    """A candidate refused for want of slack is accepted by a repeat that has enough, and the
    other way round, from one evaluation: the same decisions as evaluating each again."""
    from dataclasses import replace

    text, hw, _ = NETS["attention"]
    plan = _plan(text, hw)
    ks = plan.kernels_of(0, 2)
    group = Group(0, 2, tuple(plan.links[p] for p in ks[:-1]), (), chunk=2)
    run = fused.run_group(plan, group, "analytic")
    base = run_timing(plan.network, "default", hw, "analytic", workers=0, progress=False)
    target = int(run.figures["cycles"]) - 100
    rows = list(base.layers)
    rest = sum(int(r.figures["cycles"]) for r in rows[1:3])
    rows[0] = replace(rows[0], figures={**rows[0].figures, "cycles": target - rest})
    slow = replace(base, layers=tuple(rows))
    memo = group_memo.CandidateMemo()
    for slack, pays in ((99, False), (100, True), (0, False), (500, True)):
        got = fused._pays(plan, group, slow, slack=slack, memo=memo)
        assert (got is not None) == pays
        want = fused._pays(plan, group, slow, slack=slack)
        assert (want is not None) == pays
        if pays:
            assert got.figures == want.figures and got.group == group
    assert len(memo.entries) == 1 and memo.hits == 3
