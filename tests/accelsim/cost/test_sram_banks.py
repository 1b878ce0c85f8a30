"""SRAM bank conflicts: the closed forms (unit stride = the bandwidth model, a stride that hits
one bank, broadcast), the periodic count against brute force, kernels and DMAs under
`sram.bank_model = "conflicts"`, and the bandwidth model left as it was."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config
from accelsim.cost.dma import DmaCostModel
from accelsim.cost.kernel import CostModel
from accelsim.cost.sram_banks import bank_cycles, stream_load
from compiler.ir import F32, Builder, memref

B, W = 8, 16  # the default preset: 8 banks of 16 B per cycle


def brute(n, chunk, stride, group, banks, word, outer=1, outer_stride=0):
    load = [0] * banks
    for i in range(outer):
        for g in range(0, n, group):
            words = set()
            for j in range(g, min(n, g + group)):
                a = i * outer_stride + j * stride
                words.update(range(a // word, (a + chunk - 1) // word + 1))
            for w in words:
                load[w % banks] += 1
    return load


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 300), chunk=st.sampled_from([1, 2, 4, 8, 12, 40]),
       stride=st.integers(0, 300), group=st.sampled_from([1, 4, 16]), banks=st.sampled_from([1, 4, 8]),
       word=st.sampled_from([4, 16]), outer=st.integers(1, 20), outer_stride=st.integers(0, 700))
def test_periodic_count_equals_brute_force(n, chunk, stride, group, banks, word, outer, outer_stride):
    got = stream_load(n, chunk, stride, group, banks, word, outer, outer_stride)
    assert list(got) == brute(n, chunk, stride, group, banks, word, outer, outer_stride)


@pytest.mark.parametrize("n", [1, 31, 32, 1000, 4096])
def test_unit_stride_is_the_bandwidth_model(n):
    assert bank_cycles([(n, 4, 4, 16, 1, 0)], B, W) == math.ceil(n * 4 / (B * W))


@pytest.mark.parametrize("k", [1, 2, 5])
def test_stride_of_whole_bank_rotations_hits_one_bank(k):
    # every access k * banks * word bytes after the previous: all in bank 0, one word each
    n = 1000
    assert bank_cycles([(n, 4, k * B * W, 16, 1, 0)], B, W) == n


@pytest.mark.parametrize(("words_apart", "banks_hit"), [(1, 8), (2, 4), (4, 2), (3, 8), (6, 4)])
def test_stride_in_words_uses_banks_over_gcd(words_apart, banks_hit):
    n = 960
    assert banks_hit == B // math.gcd(B, words_apart)
    assert bank_cycles([(n, 4, words_apart * W, 1, 1, 0)], B, W) == n // banks_hit


def test_broadcast_is_one_read_per_group():
    assert bank_cycles([(1000, 4, 0, 16, 1, 0)], B, W) == math.ceil(1000 / 16)


def _kernel(rows, cols, by_column):
    """sum over the matrix into a vector, innermost loop along rows (column walk) or columns."""
    b = Builder()
    with b.func("k", A=memref((rows, cols), F32, 1), out=memref((cols if by_column else rows,), F32, 1)
                ) as (A, out):
        outer, inner = (cols, rows) if by_column else (rows, cols)
        for x in b.range(outer):
            for y in b.range(inner):
                i, j = (y, x) if by_column else (x, y)
                o = j if by_column else i
                out[o] = out[o] + A[i, j]
    return b.module.funcs[0]


def test_vector_kernel_column_walk_hits_one_bank():
    cfg = load_config("edge").with_overrides({"sram.bank_model": "conflicts",
                                                "compute.vector_registers": 0})  # vector, 4 x 8 B
    banks, word, lanes = cfg.sram.banks, cfg.sram.bank_bytes_per_cycle, cfg.compute.lanes
    cols = banks * word // 4  # a row pitch of one bank rotation: a column is in one bank
    rows = 64
    col = CostModel(cfg).kernel(_kernel(rows, cols, True), (None, None))
    row = CostModel(cfg).kernel(_kernel(rows, cols, False), (None, None))
    # column walk: A one bank rotation per step (each column's reads in one bank), repeated
    # per column one element on; out[j] one word a group (broadcast), loaded and stored
    assert col.sram_cycles == bank_cycles(
        [(rows, 4, cols * 4, lanes, cols, 4), (rows, 4, 0, lanes, cols, 4),
         (rows, 4, 0, lanes, cols, 4)], banks, word)
    assert col.sram_cycles >= rows * (word // 4)  # the A reads of the word-mates in one bank
    # row walk: A at unit stride (the bandwidth figure) plus the broadcast out[i] (one word a group)
    assert row.sram_cycles == bank_cycles(
        [(cols, 4, 4, lanes, rows, cols * 4), (cols, 4, 0, lanes, rows, 4),
         (cols, 4, 0, lanes, rows, 4)], banks, word)
    bw = load_config("edge").with_overrides({"compute.vector_registers": 0})
    assert CostModel(bw).kernel(_kernel(rows, cols, True), (None, None)).sram_cycles == \
        CostModel(bw).kernel(_kernel(rows, cols, False), (None, None)).sram_cycles  # blind to strides
    assert col.sram_cycles > row.sram_cycles


def test_vector_kernel_one_bank_closed_form():
    """A single column walk, no other SRAM stream: exactly n cycles on one bank."""
    cfg = load_config("edge").with_overrides({"sram.bank_model": "conflicts",
                                                "compute.vector_registers": 0})
    banks, word = cfg.sram.banks, cfg.sram.bank_bytes_per_cycle
    cols, rows = banks * word // 4, 96
    b = Builder()
    with b.func("k", A=memref((rows, cols), F32, 1), out=memref((1,), F32, 0)) as (A, out):
        for i in b.range(rows):
            out[0] = out[0] + A[i, 3]
    c = CostModel(cfg).kernel(b.module.funcs[0], (None, None))
    assert c.sram_cycles == rows  # every read in the bank of column 3
    c_bw = CostModel(load_config("edge").with_overrides({"compute.vector_registers": 0})).kernel(
        b.module.funcs[0], (None, None))
    assert c_bw.sram_cycles == math.ceil(rows * 4 / cfg.sram.bytes_per_cycle)


def test_dma_contiguous_side_is_unchanged_and_strided_sram_side_conflicts():
    cfg = load_config("default")
    on = cfg.with_overrides({"sram.bank_model": "conflicts"})
    bw, cf = DmaCostModel.for_config(cfg), DmaCostModel.for_config(on)
    # DRAM -> SRAM, 4096 f32 in rows of 64, DRAM side strided: the SRAM side is contiguous
    args = (4096, 256, 64, 4, True, False, True, 1)
    assert cf.transfer(*args) == bw.transfer(*args)
    # SRAM -> SRAM, one f32 per chunk, chunks one bank rotation apart: every read in bank 0
    n = 512
    s = cf.transfer(n, B * W // 4, 1, 4, False, False, True, 2)
    # bank 0: the n source reads, plus its share of the contiguous destination
    assert s.port_cycles == n + math.ceil(n * 4 / W / B)
    assert bw.transfer(n, B * W // 4, 1, 4, False, False, True, 2).port_cycles == \
        math.ceil(2 * n * 4 / (B * W))


def test_bank_model_defaults_to_bandwidth():
    for name in ("default", "edge", "server", "ideal"):
        assert load_config(name).sram.bank_model == "bandwidth"


@pytest.mark.parametrize(("preset", "spec"), [("edge", "gemm:M=40,N=48,K=36"),
                                              ("default", "gemm:M=64,N=48,K=40"),
                                              ("edge", "atax:M=39,N=41")])
def test_event_and_analytic_agree_under_conflicts(preset, spec):
    import workloads
    from accelsim import simulate
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.estimate.analytic import estimate
    from compiler.transforms.outline_kernels import ensure_outlined

    cfg = load_config(preset).with_overrides({"sram.bank_model": "conflicts"})
    mod = workloads.get(spec).module()
    compile_for_accelerator(cfg, mod)
    ensure_outlined(mod)
    sim = simulate(mod, cfg, functional=False)
    assert estimate(mod, cfg).cycles == sim.cycles > 0
