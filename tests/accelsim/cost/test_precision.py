"""Precision on the machine (accelsim/cost/precision.py): MACs of integer multiply-adds, rates per
precision, energy per op per precision, packed bytes, the int8 preset, unsupported precisions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import workloads
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import load_config
from accelsim.cost import precision
from accelsim.cost.kernel import CostModel
from accelsim.errors import ConfigError
from accelsim.report import Report, input_traffic
from accelsim.sim.simulate import simulate
from compiler.analysis.counting import count_ops
from compiler.transforms.registry import PassManager


def _fixed(spec: str, cfg, capacity_kib: int, tiles=(32, 32, 32)):
    """The workload compiled with fixed tiles and a copy capacity that places the copies at
    the innermost tile loop (so the schedules of two precisions differ only in their element
    sizes), simulated for timing."""
    w = workloads.get(spec)
    m = w.module()
    need = input_traffic(w.module(), w.func_name, cfg)
    pipe = AcceleratorPipeline.for_config(cfg).with_tiles(tiles, capacity_kib)
    PassManager(pipe.passes()).run(m)
    r = simulate(m, cfg, functional=False)
    return r, Report.from_result(r, need)


def _dma_bytes(rep: Report, arg: str, direction: str) -> int:
    rows = [b for b in rep.buffers if b.direction == direction and b.label.split("->")[
        0 if direction == "in" else 1].startswith(arg)]
    assert rows, [b.label for b in rep.buffers]
    return sum(b.bytes for b in rows)


def test_int8_gemm_moves_a_quarter_of_the_operand_bytes_and_counts_its_macs():
    cfg = load_config("default")
    # 32^3 tiles: A, B, C tiles 1 + 1 + 4 KiB at i8, 4 + 4 + 4 at f32; a whole k-row of
    # tiles 4 + 4 + 4 / 16 + 16 + 4: capacities between the two keep the copies innermost
    r8, rep8 = _fixed("gemm:M=128,N=128,K=128,dtype=i8", cfg, 8)
    r32, rep32 = _fixed("gemm:M=128,N=128,K=128,dtype=f32", cfg, 16)
    macs = 128 ** 3
    # MACs on the array, the same count as f32's (never "0 ops")
    assert r8.stats.macs == r32.stats.macs == macs
    assert rep8.roofline.ops == rep32.roofline.ops == 2 * macs
    # operands A and B: exactly 1/4 of f32's DMA bytes; C is the i32 accumulator, f32's size
    for arg in ("A", "B"):
        assert 4 * _dma_bytes(rep8, arg, "in") == _dma_bytes(rep32, arg, "in") > 0
    assert _dma_bytes(rep8, "C", "out") == _dma_bytes(rep32, "C", "out")
    # compulsory traffic: A, B at 1 B, C read and written at 4 B
    n = 128 * 128
    assert rep8.compulsory.bytes == 2 * n * 1 + 2 * n * 4
    assert rep32.compulsory.bytes == 4 * n * 4
    # compute energy from the int8 row: int8 multiply 0.2 pJ + int32 add 0.1 pJ a MAC
    assert rep8.energy.compute_pj == pytest.approx(macs * (0.2 + 0.1))
    assert rep32.energy.compute_pj == pytest.approx(macs * (3.7 + 0.9))
    # the default array runs both at the native rate: the same compute cycles
    assert r8.stats.ideal_compute_cycles == r32.stats.ideal_compute_cycles


def test_int8_gemm_within_1_2x_of_its_roofline_on_the_int8_preset():
    cfg = load_config("int8")
    w = workloads.get("gemm:M=512,N=512,K=512,dtype=i8")
    m = w.module()
    need = input_traffic(w.module(), w.func_name, cfg)
    compile_for_accelerator(cfg, m)
    r = simulate(m, cfg, functional=False)
    rep = Report.from_result(r, need)
    assert rep.roofline.bound == "compute"  # the int8 array's 1024 MACs a cycle
    assert rep.roofline.cycles == 512 ** 3 // (32 * 32)
    assert r.cycles / rep.roofline.cycles <= 1.2
    assert rep.energy.compute_pj == pytest.approx(512 ** 3 * 0.3)


def test_rates_scale_the_array_and_the_roofline():
    # bf16 at half the native rate: twice the array cycles of the same kernel at i8
    cfg = load_config("int8").with_overrides({"compute.macs_rate": {"i8": 1.0, "bf16": 0.5}})
    model = CostModel(cfg)
    k8 = workloads.get("gemm:M=64,N=64,K=64,dtype=i8").func()
    k16 = workloads.get("gemm:M=64,N=64,K=64,dtype=bf16").func()
    c8, c16 = model.kernel(k8, [None] * 3), model.kernel(k16, [None] * 3)
    assert c8.on_matrix and c16.on_matrix
    assert c16.compute_cycles == 2 * c8.compute_cycles == 2 * 64 ** 3 // (32 * 32)
    assert precision.precisions(c8.counts) == "i8->i32"
    assert precision.precisions(c16.counts) == "bf16->f32"
    # i4 x i4 packed two to a PE on the int8 preset: half the cycles
    i4 = CostModel(load_config("int8")).kernel(
        workloads.get("gemm:M=64,N=64,K=64,dtype=i4").func(), [None] * 3)
    assert i4.compute_cycles == c8.compute_cycles // 2


def test_unsupported_precision_names_the_unit_and_the_precision():
    cfg = load_config("int8")
    f64 = workloads.get("gemm:M=32,N=32,K=32,dtype=f64").func()
    with pytest.raises(precision.UnsupportedPrecision, match=r"matrix unit \(32x32, native i8\) "
                       r"does not support f64 MACs.*vector lanes \(32\) do not support f64"):
        CostModel(cfg).kernel(f64, [None] * 3)
    # an f32 GEMM: no f32 on the int8 array, so it runs on the lanes (which have f32) ...
    f32 = workloads.get("gemm:M=32,N=32,K=32,dtype=f32").func()
    cost = CostModel(cfg).kernel(f32, [None] * 3)
    assert not cost.on_matrix and cost.compute_cycles == math.ceil(32 ** 3 / 32)
    # ... unless the matmul must run on the array
    arr = cfg.with_overrides({"compute.matmul_unit": "array"})
    with pytest.raises(ConfigError, match="does not support f32 MACs"):
        CostModel(arr).kernel(f32, [None] * 3)
    # an accumulator wider than the PEs hold
    narrow = cfg.with_overrides({"compute.acc_dtype": "i16", "compute.native_dtype": "i8"})
    wide = workloads.get("gemm:M=32,N=32,K=32,dtype=i8,acc=i32").func()
    assert not CostModel(narrow).kernel(wide, [None] * 3).on_matrix


def test_integer_multiply_adds_are_macs_and_casts_feeding_them_are_free():
    f = workloads.get("gemm:M=8,N=4,K=16,dtype=i8").func()
    c = count_ops(f, [None] * 3)
    assert c.mac == 8 * 4 * 16 and c.matmul_like
    assert c.other == 0 and c.mul == 0 and c.add == 0  # the extsi's are the PE's
    assert c.typed == (("mac", "i8", "i32", 8 * 4 * 16),)
    # i4 weights times i8 activations: i8 MACs
    mixed = count_ops(workloads.get("gemm:M=8,N=4,K=16,dtype=i8,wdtype=i4").func(), [None] * 3)
    assert mixed.typed == (("mac", "i8", "i32", 8 * 4 * 16),)
    # a reduction of widened values: one add per element at the accumulator's precision
    rs = count_ops(workloads.get("row_sum:M=4,N=8,dtype=i8").func(), [None] * 2)
    assert rs.add == 32 and rs.other == 32  # the extsi is lane work here (no multiply)
    assert ("add", "i32", "", 32) in rs.typed and ("other", "i32", "", 32) in rs.typed


def test_energy_table_is_horowitz_with_derived_rows():
    t = precision.TECHNOLOGIES["horowitz45"]
    assert "ISSCC 2014" in t.source
    for dt, add, mult in (("i8", 0.03, 0.2), ("i32", 0.1, 3.1), ("f16", 0.4, 1.1), ("f32", 0.9, 3.7)):
        assert (t.add(dt), t.mult(dt)) == (add, mult)
    assert t.mult("bf16") == pytest.approx(1.1 * (8 / 11) ** 2, abs=1e-4)
    assert t.add("bf16") == pytest.approx(0.4 * 8 / 11, abs=1e-4)
    assert t.mult("i4") == pytest.approx(0.05) and t.mult("i16") == pytest.approx(0.8)
    e = load_config("default").energy
    assert precision.mac_pj(e, "i8", "i32") == pytest.approx(0.3)
    assert precision.mac_pj(e, "f32", "f32") == pytest.approx(4.6)
    # an override replaces the table for every precision
    over = load_config("default").with_overrides({"energy.mac_pj": 1.0}).energy
    assert precision.mac_pj(over, "i8", "i32") == precision.mac_pj(over, "f32", "f32") == 1.0


def test_rate_tables_are_checked():
    cfg = load_config("default")
    with pytest.raises(ConfigError, match=r"compute.macs_rate.int9 = 'int9': unknown precision"):
        cfg.with_overrides({"compute.macs_rate": {"int9": 1.0}})
    with pytest.raises(ConfigError, match=r"compute.macs_rate.bf16 = 0: must be a number in \(0, 64\]"):
        cfg.with_overrides({"compute.macs_rate": {"bf16": 0}})
    with pytest.raises(ConfigError, match="relative to the native precision"):
        cfg.with_overrides({"compute.native_dtype": "int8", "compute.macs_rate": {"i8": 2.0}})
    # aliases, and the native precision added at 1.0 when absent
    c = cfg.with_overrides({"compute.native_dtype": "int8", "compute.macs_rate": {"fp8": 2.0}}).compute
    assert c.native_dtype == "i8" and dict(c.macs_rate) == {"i8": 1.0, "f8E4M3FN": 2.0}
    # a config without precision keys keeps its TOML shape (and hash)
    assert "macs_rate" not in cfg.to_dict()["compute"]
    i8 = load_config("int8")
    assert i8.to_dict()["compute"]["macs_rate"] == dict(i8.compute.macs_rate)
    assert i8.with_overrides({}).hash() == i8.hash()


def test_packed_bytes():
    assert precision.storage_bytes("i4", 7) == 4 and precision.storage_bytes("i8", 7) == 7
    assert precision.storage_bytes("bf16", 3) == 6


@pytest.mark.parametrize("spec", [
    "gemm:M=8,N=12,K=40,dtype=i8",
    "gemm:M=8,N=12,K=40,dtype=i8,wdtype=i4",
    "gemm:M=8,N=12,K=40,dtype=i4",
    "batched_gemm:batch=2,M=4,N=4,K=8,dtype=i16",
    "conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,stride=1,dtype=i8",
    "depthwise_conv2d:N=1,C=3,H=6,W=6,R=3,S=3,stride=1,dtype=i8",
    "row_sum:M=4,N=30,dtype=i8",
    "gemm:M=8,N=12,K=40,dtype=bf16",
    "gemm:M=8,N=12,K=40,dtype=f8E4M3FN",
    "gemm:M=8,N=12,K=40,dtype=f16,acc=f16",
    # requantized in the kernel: the sum in iter_args from zero, each output scaled and clamped
    "gemm:M=8,N=12,K=40,dtype=i8,out=i8",
    "batched_gemm:batch=2,M=4,N=4,K=8,dtype=i8,out=i4",
    "conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,stride=2,dtype=i8,out=i8",
    "depthwise_conv2d:N=1,C=3,H=6,W=6,R=3,S=3,stride=1,dtype=i8,out=i8",
    "gemm:M=8,N=12,K=40,dtype=bf16,out=bf16",
])
def test_precision_workloads_match_their_reference_on_the_simulator(spec):
    w = workloads.get(spec)
    inputs = w.random_inputs(3)
    ref = w.reference(inputs)
    r = simulate(w.module(), "default", inputs=inputs)
    for name in w.outputs:
        got, want = r.outputs[name], ref[name]
        assert got.dtype == want.dtype == w.func().args[
            w.func().arg_names().index(name)].type.element.numpy_dtype
        if w.params["acc"].is_int:  # type: ignore[union-attr]
            assert np.array_equal(got, want)  # integers: bit-exact
        else:
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                       rtol=w.rtol, atol=w.atol)


def test_requantization_in_the_kernel_is_lane_work_and_keeps_the_accumulator_out_of_memory():
    cfg = load_config("int8")
    fused = workloads.get("gemm:M=64,N=64,K=64,dtype=i8,out=i8").func()
    c = count_ops(fused, [None] * 3)
    assert c.mac == 64 ** 3 and c.matmul_like  # the iter_args reduction still maps on the array
    assert c.other == 4 * 64 * 64  # shrsi, maxsi, minsi, trunci per output: the lanes'
    assert [m for m in c.typed if m[0] == "mac"] == [("mac", "i8", "i32", 64 ** 3)]
    cost = CostModel(cfg).kernel(fused, [None] * 3)
    assert cost.on_matrix
    assert cost.compute_cycles == 64 ** 3 // (32 * 32) + math.ceil(4 * 64 * 64 / 32)
    # the output argument is the i8 result: no i32 accumulator in memory
    assert str(fused.function_type.inputs[2]) == "memref<64x64xi8>"


def test_workload_types_default_and_refuse():
    i8 = workloads.get("gemm:M=4,N=4,K=4,dtype=int8")
    assert i8.spec == "gemm:M=4,N=4,K=4,dtype=i8"
    assert (i8.params["acc"].name, i8.params["wdtype"].name) == ("i32", "i8")  # type: ignore[union-attr]
    assert workloads.get("gemm:M=4,N=4,K=4,dtype=i8,wdtype=i4,acc=i16").spec == \
        "gemm:M=4,N=4,K=4,dtype=i8,acc=i16,wdtype=i4"
    assert workloads.get("gemm:M=4,N=4,K=4,dtype=bf16").params["acc"].name == "f32"  # type: ignore[union-attr]
    assert workloads.get("gemm:M=4,N=4,K=4").spec == "gemm:M=4,N=4,K=4,dtype=f32"
    with pytest.raises(workloads.WorkloadError, match="dtype must be one of f32, f64"):
        workloads.get("relu:N=4,dtype=i8")
