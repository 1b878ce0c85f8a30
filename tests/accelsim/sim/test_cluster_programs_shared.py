"""Clusters whose programs differ only in affine maps run one IR (`SimOptions.share_programs`,
`accelsim.sim.program_match`): differential against every cluster generating its own
program. Cycles, every trace record in order, outputs, counters, the per-cluster report rows
and race errors are the same; the matcher finds only the maps that differ and refuses
programs that differ in anything else."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.errors import HazardError
from accelsim.report.clusters import cluster_report
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from accelsim.sim.program_match import parameter_ops
from compiler.ir import ops as O
from compiler.ir.affine_expr import Const
from compiler.ir.affine_map import AffineMap
from workloads.gemm import build_gemm

SHARED, OWN = SimOptions(), SimOptions(share_programs=False)


def _both(modules, cfg, inputs, functional):  # type: ignore[no-untyped-def]
    out = []
    for opts in (SHARED, OWN):
        r = simulate_clusters(modules, cfg, inputs,
                              options=opts.updated(functional=functional))
        out.append(r)
    return out


def _same_results(a, b, cfg) -> None:  # type: ignore[no-untyped-def]
    assert a.cycles == b.cycles
    assert list(a.trace.records) == list(b.trace.records)
    for key in ("dma_ops", "kernel_calls", "macs", "alu_ops", "special_ops",
                "kernel_sram_bytes", "dma_sram_bytes", "ideal_compute_cycles"):
        assert getattr(a.stats, key) == getattr(b.stats, key), key
    assert a.stats.flags == b.stats.flags and a.level_peaks == b.level_peaks
    ra = cluster_report(a.trace, cfg, a.cycles, a.stats.ideal_compute_cycles)
    rb = cluster_report(b.trace, cfg, b.cycles, b.stats.ideal_compute_cycles)
    assert ra == rb
    if a.outputs is not None:
        assert a.outputs.keys() == b.outputs.keys()
        for k in a.outputs:
            np.testing.assert_array_equal(a.outputs[k], b.outputs[k])


@pytest.mark.parametrize("sets,shape,functional", [
    ({}, (512, 512, 256), True),
    ({}, (1024, 1024, 1024), False),  # the bench's run (bench_clusters.py section 4)
    ({"interconnect.kind": "mesh"}, (1024, 1024, 1024), False),
])
def test_gemm_shared_equals_own_programs(sets: dict, shape: tuple[int, int, int],  # type: ignore[type-arg]
                                         functional: bool) -> None:
    cfg = load_config("cluster16", sets)
    m, n, k = shape
    progs = compile_for_clusters(cfg, build_gemm(m, n, k), None, "block2d")
    rng = np.random.default_rng(1)
    inputs = {"A": rng.standard_normal((m, k)).astype(np.float32),
              "B": rng.standard_normal((k, n)).astype(np.float32),
              "C": rng.standard_normal((m, n)).astype(np.float32)} if functional else None
    a, b = _both(progs.modules, cfg, inputs, functional)
    _same_results(a, b, cfg)
    assert a.extra["programs"] == 1  # one program generated for all sixteen clusters
    assert b.extra["programs"] == cfg.clusters
    if functional:
        ref = inputs["C"] + inputs["A"] @ inputs["B"]  # type: ignore[index]
        np.testing.assert_allclose(a.outputs["C"], ref, rtol=1e-4, atol=1e-3)  # type: ignore[index]


def test_race_errors_are_the_same() -> None:
    cfg = load_config("cluster4", {"clusters": 2})
    mods = []
    for _ in range(2):  # one program twice: both clusters write every element of C
        m = build_gemm(32, 32, 16)
        compile_for_accelerator(cfg, m)
        mods.append(m)
    inputs = {"A": np.ones((32, 16), np.float32), "B": np.ones((16, 32), np.float32),
              "C": np.zeros((32, 32), np.float32)}
    messages = []
    for opts in (SHARED, OWN):
        with pytest.raises(HazardError) as e:
            simulate_clusters(mods, cfg, inputs, options=opts)
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "no barrier" in messages[0]


def test_matcher_finds_the_offsets_and_nothing_else() -> None:
    cfg = load_config("cluster16")
    mods = compile_for_clusters(cfg, build_gemm(1024, 1024, 1024), None, "block2d").modules
    assert parameter_ops(mods[0], mods[0]) == {}
    params = parameter_ops(mods[0], mods[5])
    assert params and {type(op) for op in params} == {O.AffineApplyOp}
    for op, mine in params.items():
        assert op.map != mine.map  # type: ignore[attr-defined]


def _first(mod: O.ModuleOp, t: type) -> O.Operation:  # type: ignore[type-arg]
    return next(op for op in mod.walk() if isinstance(op, t))


def test_matcher_refuses_other_differences() -> None:
    cfg = load_config("cluster16")
    mods = compile_for_clusters(cfg, build_gemm(512, 512, 256), None, "block2d").modules
    assert parameter_ops(mods[0], mods[1])
    # a DMA's access map: not a parameter (its index code is generated from it)
    other = mods[1].clone()
    dma = _first(other, O.AffineDmaStartOp)
    m = dma.src_map  # type: ignore[attr-defined]
    dma.src_map = AffineMap(m.num_dims, m.num_symbols,  # type: ignore[attr-defined]
                            (m.results[0] + Const(1), *m.results[1:]))
    assert parameter_ops(mods[0], other) is None
    # a constant's value
    other = mods[1].clone()
    c = _first(other, O.ConstantOp)
    c.value = 12345  # type: ignore[attr-defined]
    assert parameter_ops(mods[0], other) is None
    # an operand swapped for another value
    other = mods[1].clone()
    dma = _first(other, O.AffineDmaStartOp)
    dma.operands[0], dma.operands[-1] = dma.operands[-1], dma.operands[0]
    assert parameter_ops(mods[0], other) is None
    # another shape
    other = compile_for_clusters(cfg, build_gemm(512, 512, 128), None, "block2d").modules[1]
    assert parameter_ops(mods[0], other) is None
