"""The real evaluator: figures agree with a direct simulation and with closed forms."""

import pytest

from accelsim.dse import Point
from accelsim.dse.evaluate import compile_flags, compile_point, evaluate_point

GEMM = "gemm:M=32,N=32,K=32,dtype=f32"


def point(**kw) -> Point:
    hw = kw.pop("hardware", (("sram.capacity_kib", 64),))
    opts = {"tile_sizes": "none", "stages": 1, **kw.pop("compiler", {})}
    return Point(kw.pop("workload", GEMM), hardware=hw, compiler=tuple(sorted(opts.items())),
                 fidelity=kw.pop("fidelity", "event"), **kw)


def test_untiled_gemm_moves_each_array_once():
    f = evaluate_point(point())
    n = 32 * 32 * 4
    assert f["dram_bytes_read"] == 3 * n  # A, B and C (C += A @ B reads C)
    assert f["dram_bytes_written"] == n
    assert f["dram_bytes"] == 4 * n
    assert f["macs"] == 32 ** 3
    assert f["sram_peak_bytes"] == 3 * n
    # one nest: one call, or affine-copy-stream's pieces where the estimate keeps them (8
    # equal ones, or 32 rows in pieces of the 16-row array's rows: 2)
    assert f["kernel_calls"] in (1, 2, 8)
    assert f["cycles"] >= f["roofline_cycles"] > 0
    assert f["roofline_ratio"] == pytest.approx(f["cycles"] / f["roofline_cycles"])
    assert 0 < f["compute_utilization"] <= 1 and 0 < f["dma_utilization"] <= 1
    # at least the DRAM traffic and the MACs at the default config's energy figures
    assert f["energy_pj"] >= 4 * n * 162.5 + 32 ** 3 * 4.6
    assert f["analytic_cycles"] > 0
    assert f["analytic_error"] == pytest.approx((f["analytic_cycles"] - f["cycles"]) / f["cycles"])


def test_figures_equal_a_direct_simulation():
    import workloads
    from accelsim.config import load_config
    from accelsim.sim.simulate import simulate

    p = point(hardware=(("dma.engines", 1), ("sram.capacity_kib", 64)))
    cfg = load_config("default").with_overrides(p.hw)
    module = compile_point(p, workloads.get(GEMM).module(), cfg)
    direct = simulate(module, cfg, functional=False)
    f = evaluate_point(p)
    assert f["cycles"] == direct.cycles
    assert f["config_hash"] == cfg.hash() != load_config("default").hash()


def test_analytic_point_gives_the_estimates_figures():
    f = evaluate_point(point(fidelity="analytic"))
    e = evaluate_point(point())
    assert f["cycles"] == e["analytic_cycles"]
    assert f["dram_bytes"] == e["dram_bytes"] and f["dma_ops"] == e["dma_ops"]
    # the event report's energy formula on the estimate's counts (`accelsim.cost.energy`)
    assert f["energy_pj"] == pytest.approx(e["energy_pj"], rel=1e-2)
    assert f["energy_compute_pj"] == pytest.approx(e["energy_compute_pj"])


def test_functional_point_checks_outputs_against_the_reference():
    f = evaluate_point(point(functional=True))
    assert f["outputs_match"] is True
    assert f["max_abs_error"] < 1e-4
    assert f["cycles"] == evaluate_point(point())["cycles"]  # data does not change timing


def test_compile_flags_follow_the_options_and_the_config():
    from accelsim.config import load_config

    cfg = load_config("default").with_overrides({"sram.capacity_kib": 96})
    opts = {"tile_sizes": "auto", "stages": 3, "copy_out_pipelining": False, "cross_tile_prefetch": True,
            "data_copy": True}
    flags = dict(compile_flags(opts, cfg))
    assert flags["affine-loop-tile"] == "cache-size=16"  # 96 KiB / 3 stages, half of it per tile
    assert "fast-mem-capacity=32" in flags["affine-data-copy-generate"]
    assert "fast-mem-capacity=96" in flags["affine-pipeline-data-transfer"]
    assert "stages=3" in flags["affine-pipeline-data-transfer"]
    assert "pipeline-copy-out=false" in flags["affine-pipeline-data-transfer"]
    assert list(dict(compile_flags({**opts, "stages": 1, "tile_sizes": "8,8"}, cfg))) == [
        "affine-producer-consumer-fusion", "affine-sibling-fusion", "affine-loop-tile",
        "affine-data-copy-generate", "affine-copy-forward", "affine-dma-forward",
        "affine-dma-start-hoist",
        "affine-copy-stream", "affine-scalar-replace", "affine-dma-wait-sink"]
    # no tiling and no copies: the pipeline's first and last passes stay
    assert [n for n, _ in compile_flags({**opts, "data_copy": False, "tile_sizes": "none"}, cfg)] == [
        "affine-producer-consumer-fusion", "affine-sibling-fusion", "affine-scalar-replace"]


def test_compile_cache_shares_modules_only_between_compatible_points():
    from accelsim.dse import evaluate

    evaluate._COMPILED.clear()
    tiled = {"tile_sizes": "8,8,8", "stages": 2}
    a = evaluate_point(point(hardware=(("dma.engines", 1), ("sram.capacity_kib", 16)), compiler=tiled))
    assert len(evaluate._COMPILED) == 1
    b = evaluate_point(point(hardware=(("dma.engines", 2), ("sram.capacity_kib", 16)), compiler=tiled))
    assert len(evaluate._COMPILED) == 1  # DMA engines do not change the compiled program
    evaluate_point(point(hardware=(("dma.engines", 2), ("sram.capacity_kib", 32)), compiler=tiled))
    assert len(evaluate._COMPILED) == 2  # the SRAM capacity does (copy placement, pipelining)
    evaluate._COMPILED.clear()
    fresh = evaluate_point(point(hardware=(("dma.engines", 2), ("sram.capacity_kib", 16)), compiler=tiled))
    assert {k: v for k, v in b.items()} == fresh  # a cached module simulates like a fresh one
    assert a["dma_ops"] == b["dma_ops"]


@pytest.mark.parametrize("workload", ["conv2d:N=1,C=4,H=10,W=10,K=4", "softmax:M=16,N=32",
                                      "jacobi-2d:N=20,T=2"])
def test_compiler_options_keep_programs_correct_beyond_gemm(workload):
    """Auto tiles + DMA copies + 2-stage pipelining in a 4 KiB SRAM: the simulated arrays
    still match the numpy reference."""
    p = point(workload=workload, hardware=(("sram.capacity_kib", 4),),
              compiler={"tile_sizes": "auto", "stages": 2}, functional=True)
    f = evaluate_point(p)
    assert f["outputs_match"] is True
    assert f["dma_ops"] > 0 and f["sram_peak_bytes"] <= 4 * 1024
