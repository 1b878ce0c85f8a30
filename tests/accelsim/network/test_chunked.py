"""Chunked fused groups: a feed-forward chain (gemm -> unary elementwise -> gemm) run a chunk
of its hidden dimension at a time, the chunk on chip, the output accumulated across chunks —
race-free, equal to the layer-by-layer kernels' results, its DRAM bytes those of the closed
form (every weight read once over the chunks, the input once and the output read and written
once per chunk)."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim.api.program import program_of_module
from accelsim.api.program_run import RunOptions, run_program
from accelsim.compile.race_check import first_race
from accelsim.config import load_config
from accelsim.network import chunked, fused, group_model
from accelsim.network.group_model import Group
from accelsim.network.layerlist import parse_layer_list
from accelsim.network.links import flat_kernels, links
from workloads.gemm import gemm_reference


def _plan(text: str, hw: dict) -> fused._Plan:
    net = parse_layer_list(text, "ffn.layers")
    cfg = load_config("default").with_overrides(hw)
    return fused._Plan(net, cfg, flat_kernels(net), {ln.producer: ln for ln in links(net)})


def _ffn(M: int, K: int, H: int, N: int, act: str = "gelu") -> str:
    return (f"up    gemm:M={M},N={H},K={K}\n"
            f"act   {act}:N={M * H}\n"
            f"down  gemm:M={M},N={N},K={H}\n")


# the hidden tensor (16 x 1024 f32, 64 KiB) does not fit a 64 KiB level; a chunk of 256
# columns (16 KiB) leaves every chunk kernel its operands whole
SMALL = {"sram.capacity_kib": 64}


def test_a_feed_forward_chain_is_found_with_its_sizes() -> None:
    plan = _plan(_ffn(16, 16, 1024, 16), SMALL)
    chain, last = chunked.chain_at(plan, 0)
    assert (chain.up, chain.mid, chain.down, last) == (0, (1,), 2, 2)
    assert (chain.M, chain.K, chain.H, chain.N, chain.elt) == (16, 16, 1024, 16, 4)
    # widest chunks first, each a divisor of H within the level's resident share
    assert chunked.widths(plan, chain) == [512, 256, 128]
    assert [g.chunk for g in chunked.chunk_groups(plan, 0)] == [512, 256, 128]
    # not from the middle of the chain; none when the whole hidden tensor fits the level
    assert chunked.chain_at(plan, 1) is None
    assert chunked.chunk_groups(_plan(_ffn(16, 16, 1024, 16), {}), 0) == []


def test_a_chain_with_a_binary_elementwise_kernel_is_not_chunked() -> None:
    # vector_add reads a second tensor element by element: not a unary kernel run in place
    text = ("up    gemm:M=16,N=1024,K=16\n"
            "add   vector_add:N=16384\n"
            "down  gemm:M=16,N=16,K=1024\n")
    assert chunked.chain_at(_plan(text, SMALL), 0) is None


@pytest.mark.parametrize("N", [16, 1024])
def test_chunked_ffn_moves_the_closed_form_bytes(N: int) -> None:
    M, K, H, h = 16, 16, 1024, 256
    plan = _plan(_ffn(M, K, H, N), SMALL)
    group = Group(0, 2, tuple(plan.links[p] for p in (0, 1)), (), chunk=h)
    chain, _ = chunked.chain_at(plan, 0)
    # Y (16 x 16: 1 KiB) stays on chip beside the 16 KiB chunk; 16 x 1024 (64 KiB) does not
    y_on = chunked.output_on_chip(plan, chain, h)
    assert y_on == (N == 16)
    gp = fused.program_of_group(plan, group)
    assert first_race(gp.compiled) is None
    run = fused.run_group(plan, group, "analytic")
    chunks = H // h
    # per chunk: X once, its W1 columns and W2 rows once; Y (accumulated) read and written
    # once in all when on chip, else by every chunk
    y = 2 * M * N * 4
    per_chunk = (M * K + K * h + h * N) * 4 + (0 if y_on else y)
    assert run.figures["dram_bytes"] == chunks * per_chunk + (y if y_on else 0)
    # the hidden tensor never goes to DRAM: the weights once over all chunks
    assert chunks * (K * h + h * N) * 4 == (K * H + H * N) * 4
    assert M * h * 4 + (M * N * 4 if y_on else 0) <= gp.peak <= 64 * 1024


@pytest.mark.parametrize("act", ["gelu", "relu"])
def test_chunked_ffn_equals_the_layer_by_layer_kernels(act: str) -> None:
    import workloads

    M, K, H, N = 16, 16, 1024, 16
    plan = _plan(_ffn(M, K, H, N, act), SMALL)
    (group, *_) = chunked.chunk_groups(plan, 0)
    gp = fused.program_of_group(plan, group)
    assert first_race(gp.compiled) is None
    func = group_model.entry_func(gp.source)
    rng = np.random.default_rng(3)
    arrays = {label: rng.standard_normal(tuple(a.type.shape)).astype(np.float32)
              for a, label in zip(func.args, func.arg_names())}
    x, w1, w2, y0 = (arrays[k].copy() for k in ("up_A", "up_B", "down_B", "down_C"))
    run = run_program(program_of_module(gp.source, "group", source="ffn"), plan.config, arrays,
                      RunOptions(estimate=False), compiled=gp.compiled)
    assert run.sim is not None
    got = np.asarray(run.sim.outputs["down_C"])
    # layer by layer: each kernel's own reference, whole tensors
    t = gemm_reference(x, w1, np.zeros((M, H), np.float32))["C"]
    flat = t.reshape(-1)
    f = workloads.get(f"{act}:N={M * H}").reference({"x": flat, "y": np.zeros_like(flat)})["y"]
    f = f.reshape(M, H)
    want = gemm_reference(f.astype(np.float32), w2, y0)["C"]
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4) and np.abs(got - y0).max() > 0


# attention: scores = Q·K per head, softmax per row, context = P·V per head; the scores of all
# four heads (4 x 32 x 32 f32, twice: scores and probabilities, 32 KiB) do not fit a 32 KiB
# level beside the tiles, one or two heads at a time do
ATTN = ("scores   batched_gemm:batch=4,M=32,N=32,K=16\n"
        "softmax  softmax:M=128,N=32\n"
        "context  batched_gemm:batch=4,M=32,N=16,K=32\n")
TINY = {"sram.capacity_kib": 32}


def test_attention_heads_are_a_batch_chain() -> None:
    plan = _plan(ATTN, TINY)
    chain, last = chunked.chain_at(plan, 0)
    assert (chain.kind, chain.batch, chain.M, chain.K, chain.H, chain.N) == ("batch", 4, 32, 16, 32, 16)
    assert chain.inplace == (False,) and chain.buffers == 2 and last == 2
    assert chunked.widths(plan, chain) == [2, 1]   # divisors of the 4 heads below 4
    # a row-wise kernel is not taken between two plain gemms (only unary elementwise ones)
    assert chunked._row_param("softmax:M=128,N=32", 128, 32) == "M"
    assert chunked._row_param("gelu:N=4096", 128, 32) is None


@pytest.mark.parametrize("heads", [1, 2])
def test_chunked_attention_moves_the_closed_form_bytes_and_equals_the_kernels(heads: int) -> None:
    import workloads

    B, M, K, H, N = 4, 32, 16, 32, 16
    plan = _plan(ATTN, TINY)
    group = Group(0, 2, tuple(plan.links[p] for p in (0, 1)), (), chunk=heads)
    gp = fused.program_of_group(plan, group)
    assert first_race(gp.compiled) is None
    run = fused.run_group(plan, group, "analytic")
    # Q, K, V read once, the context read (it accumulates) and written once: the scores and
    # probabilities never leave the chip, whatever the chunk
    assert run.figures["dram_bytes"] == B * (M * K + K * H + H * N + 2 * M * N) * 4
    func = group_model.entry_func(gp.source)
    rng = np.random.default_rng(5)
    arrays = {label: rng.standard_normal(tuple(a.type.shape)).astype(np.float32)
              for a, label in zip(func.args, func.arg_names())}
    q, k, v, o0 = (arrays[n].copy() for n in ("scores_A", "scores_B", "context_B", "context_C"))
    sim = run_program(program_of_module(gp.source, "group", source="attn"), plan.config, arrays,
                      RunOptions(estimate=False), compiled=gp.compiled)
    got = np.asarray(sim.sim.outputs["context_C"])
    s = np.matmul(q, k).reshape(B * M, H)
    p = workloads.get(f"softmax:M={B * M},N={H}").reference({"X": s, "Y": np.zeros_like(s)})["Y"]
    want = o0 + np.matmul(p.reshape(B, M, H).astype(np.float32), v)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-5) and np.abs(got - o0).max() > 0


def test_a_chunked_group_row_reports_its_chunk() -> None:
    from accelsim.network.timing import run_timing

    plan = _plan(ATTN, TINY)
    group = Group(0, 2, tuple(plan.links[p] for p in (0, 1)), (), chunk=2)
    run = fused.run_group(plan, group, "analytic")
    base = run_timing(plan.network, "default", TINY, "analytic", workers=0, progress=False)
    result = fused.assemble(plan.network, base, [run], plan.config)
    (row,) = result.layers
    assert row.figures["chunk"] == 2 and row.figures["fused_group"] == ["scores", "softmax", "context"]
    assert row.figures["dram_bytes_saved"] == (
        sum(int(r.figures["dram_bytes"]) for r in base.layers) - int(run.figures["dram_bytes"]))
    assert result.network_figures["fused_groups"][0]["chunk"] == 2
    assert "in chunks of 2" in result.table()


def test_the_fused_schedule_keeps_a_chunked_attention_and_auto_chooses_it() -> None:
    from accelsim.network.schedule import run_schedule

    net = parse_layer_list(ATTN, "attn.layers")
    runs = {s: run_schedule(net, s, "default", TINY, fidelity="analytic", workers=0, progress=False)
            for s in ("layer-by-layer", "fused", "auto")}
    lbl, fus, auto = (runs[s].totals() for s in ("layer-by-layer", "fused", "auto"))
    (row,) = runs["fused"].layers
    assert row.figures["chunk"] in (1, 2) and row.figures["fused_group"] == ["scores", "softmax", "context"]
    # never slower than layer by layer by the estimate, and lighter on DRAM: Q, K, V once,
    # the context read and written once — the scores never leave the chip
    assert fus["cycles"] <= lbl["cycles"] and fus["dram_bytes"] == 4 * (512 + 512 + 512 + 1024) * 4
    assert runs["auto"].schedule == "fused" and auto["cycles"] == fus["cycles"]


MERGE = ATTN + "merge    permute:d0=1,d1=4,d2=32,d3=16,p0=0,p1=2,p2=1,p3=3\n"


def test_the_merge_of_the_heads_is_folded_into_the_context_gemm() -> None:
    import workloads

    B, M, K, H, N = 4, 32, 16, 32, 16
    plan = _plan(MERGE, TINY)
    chain, last = chunked.chain_at(plan, 0)
    assert (chain.post, chain.perm, last) == (3, (0, 2, 1, 3), 3)
    group = Group(0, 3, tuple(plan.links[p] for p in (0, 1)), (), chunk=2)
    gp = fused.program_of_group(plan, group)
    assert first_race(gp.compiled) is None
    assert [label for label, _, _ in gp.args][-1] == "merge_output"
    run = fused.run_group(plan, group, "analytic")
    # no permute runs: the context gemm writes (1, M, heads, N) itself, once
    assert run.figures["dram_bytes"] == B * (M * K + K * H + H * N + 2 * M * N) * 4
    func = group_model.entry_func(gp.source)
    rng = np.random.default_rng(7)
    arrays = {label: rng.standard_normal(tuple(a.type.shape)).astype(np.float32)
              for a, label in zip(func.args, func.arg_names())}
    arrays["merge_output"][...] = 0   # a fresh tensor, as the context's output is
    q, k, v = (arrays[n].copy() for n in ("scores_A", "scores_B", "context_B"))
    sim = run_program(program_of_module(gp.source, "group", source="attn"), plan.config, arrays,
                      RunOptions(estimate=False), compiled=gp.compiled)
    got = np.asarray(sim.sim.outputs["merge_output"])
    s = np.matmul(q, k).reshape(B * M, H)
    p = workloads.get(f"softmax:M={B * M},N={H}").reference({"X": s, "Y": np.zeros_like(s)})["Y"]
    ctx = np.matmul(p.reshape(B, M, H).astype(np.float32), v)
    want = np.transpose(ctx[None], (0, 2, 1, 3))
    assert got.shape == (1, M, B, N) and np.allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_chunked_group_may_spend_only_the_cycles_earlier_groups_saved() -> None:
    from dataclasses import replace

    from accelsim.network.timing import run_timing

    plan = _plan(ATTN, TINY)
    group = Group(0, 2, tuple(plan.links[p] for p in (0, 1)), (), chunk=2)
    run = fused.run_group(plan, group, "analytic")
    base = run_timing(plan.network, "default", TINY, "analytic", workers=0, progress=False)
    # layer by layer made 100 cycles faster than the group: it pays only with 100 cycles of
    # slack (what groups before it saved), not with 99
    target = int(run.figures["cycles"]) - 100
    rows = list(base.layers)
    rest = sum(int(r.figures["cycles"]) for r in rows[1:])
    rows[0] = replace(rows[0], figures={**rows[0].figures, "cycles": target - rest})
    slow = replace(base, layers=tuple(rows))
    assert fused._pays(plan, group, slow) is None
    assert fused._pays(plan, group, slow, slack=99) is None
    kept = fused._pays(plan, group, slow, slack=100)
    assert kept is not None and kept.figures["cycles"] == run.figures["cycles"]
