"""Kernel costs shared by trip counts (`accelsim.cost.kernel_shape`) against costing every call
directly (`count_ops` + access boxes), and which kernels qualify."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from accelsim import load_config
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.cost.kernel import CostModel, cost_args, kernel_shape_key
from accelsim.cost.kernel_shape import KernelShape
from compiler.ir import F32, INDEX, Builder, memref
from compiler.transforms.outline_kernels import ensure_outlined
from compiler.transforms.registry import PassManager


def _direct(cfg, f, args):
    """The cost of one call without any sharing: counts and boxes of exactly these args."""
    return CostModel(cfg)._cost(f, args)


def _kernels(spec, preset):
    cfg = load_config(preset)
    mod = workloads.get(spec).module()
    flags = accelerator_pipeline(cfg).flags()
    PassManager.from_flags(flags).run(mod)
    ensure_outlined(mod)
    return cfg, [f for f in mod.funcs if f.private]


@pytest.mark.parametrize("spec,preset,rectangular", [
    ("gemm:M=64,N=48,K=80", "edge", True), ("2mm:NI=40,NJ=48,NK=56,NL=36", "edge", True),
    ("conv2d:C=16,H=28,W=28,K=32", "default", True), ("syrk:N=24,M=20", "default", False)])
def test_shared_costs_equal_direct_costs_on_compiled_kernels(spec, preset, rectangular):
    cfg, kernels = _kernels(spec, preset)
    rng = random.Random(7)
    shared = CostModel(cfg)
    probe = [[0 if a.type == INDEX else None for a in f.args] for f in kernels]
    assert any(kernel_shape_key(f, p)[1] is not None for f, p in zip(kernels, probe)) == rectangular
    for f in kernels:
        nidx = [k for k, a in enumerate(f.args) if a.type == INDEX]
        for _ in range(12):
            args = [None] * len(f.args)
            for k in nidx:
                args[k] = rng.randrange(0, 96, 4)
            assert shared.kernel(f, args) == _direct(cfg, f, args), (f.sym_name, args)


def _shifted_kernel():
    """for i in [a, a+8), j in [b, b+n), k in [i, i+4): acc[j-b] += x[i-a, k-i] * y[k-i, j-b]."""
    b = Builder()
    with b.func("k", private=True, a=INDEX, bb=INDEX, n=INDEX, x=memref((8, 4), F32, 1),
                y=memref((4, 64), F32, 1), acc=memref((64,), F32, 1)) as (a, bb, n, x, y, acc):
        for i in b.range(a, a + 8):
            for j in b.range(bb, bb + n):
                for k in b.range(i, i + 4):
                    acc[j - bb] = acc[j - bb] + x[i - a, k - i] * y[k - i, j - bb]
    return b.module.lookup("k")


def _triangular_kernel():
    b = Builder()
    with b.func("t", private=True, n=INDEX, c=memref((64, 64), F32, 1)) as (n, c):
        for i in b.range(n):
            for j in b.range(i):
                c[i, j] = c[i, j] + c[j, i]
    return b.module.lookup("t")


def _modular_index_kernel():
    b = Builder()
    with b.func("m", private=True, n=INDEX, c=memref((4, 64), F32, 1)) as (n, c):
        for i in b.range(n):
            c[i % 4, i] = c[i % 4, i] * c[0, i]
    return b.module.lookup("m")


def test_which_kernels_are_rectangular():
    shifted = KernelShape(_shifted_kernel())
    assert shifted.key([3, 5, 7, None, None, None]) == (8, 7, 4)
    assert shifted.trip_args == {2}  # a and bb only move the loops
    assert KernelShape(_triangular_kernel()).key([10, None]) is None
    assert KernelShape(_modular_index_kernel()).key([10, None]) is None
    assert cost_args(_triangular_kernel()) == {0, 1}  # not rectangular: every argument counts


@settings(max_examples=40, deadline=None)
@given(a=st.integers(0, 40), bb=st.integers(0, 40), n=st.integers(0, 30), a2=st.integers(0, 40),
       bb2=st.integers(0, 40), kind=st.sampled_from(["matrix", "vector"]))
def test_calls_with_equal_trip_counts_cost_the_same(a, bb, n, a2, bb2, kind):
    cfg = load_config("default").with_overrides({"compute.kind": kind})
    f = _shifted_kernel()
    first, second = [a, bb, n, None, None, None], [a2, bb2, n, None, None, None]
    assert kernel_shape_key(f, first) == kernel_shape_key(f, second)
    model = CostModel(cfg)
    assert model.kernel(f, first) == _direct(cfg, f, first)
    assert model.kernel(f, second) == _direct(cfg, f, second)  # served from the shared entry


def test_structurally_equal_kernels_share_their_figures():
    f, g = _shifted_kernel(), _shifted_kernel()
    args = [1, 2, 9, None, None, None]
    assert f is not g and kernel_shape_key(f, args) == kernel_shape_key(g, args)
    h = _triangular_kernel()
    assert kernel_shape_key(h, [9, None])[0] != kernel_shape_key(f, args)[0]


@pytest.mark.parametrize("preset", ["default", "edge", "gemmini"])
def test_configs_differing_only_in_dma_and_dram_share_one_model_with_equal_costs(preset):
    """`CostModel.for_config` shares a model between configs whose `kernel_view` is equal
    (DMA engines, DRAM channels and bandwidth: never read by a kernel's cost), and the shared
    model's costs are those a model of the other config computes on its own."""
    from accelsim.cost.kernel import kernel_view

    cfg, kernels = _kernels("conv2d:C=16,H=28,W=28,K=32", preset)
    over = {"dma.engines": cfg.dma.engines + 1, "dram.bandwidth_bytes_per_cycle": 3}
    if cfg.dram.data_paths == "shared":  # (split paths need one channel)
        over["dram.channels"] = 8
    other = cfg.with_overrides(over)
    assert kernel_view(cfg) == kernel_view(other)
    assert CostModel.for_config(cfg) is CostModel.for_config(other)
    # what a kernel's cost reads is not shared: its own model
    for key in ("dram.latency_cycles", "sram.bank_bytes_per_cycle", "compute.lanes"):
        section, name = key.split(".")
        changed = cfg.with_overrides({key: 2 * int(getattr(getattr(cfg, section), name))})
        assert kernel_view(changed) != kernel_view(cfg), key
    rng = random.Random(3)
    for f in kernels:
        nidx = [k for k, a in enumerate(f.args) if a.type == INDEX]
        for _ in range(6):
            args = [None] * len(f.args)
            for k in nidx:
                args[k] = rng.randrange(0, 96, 4)
            assert CostModel.for_config(other).kernel(f, args) == CostModel(other)._cost(f, args)
