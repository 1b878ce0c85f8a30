"""Many clusters: config keys and errors, the interconnect's closed forms, the N-processor
event run (one cluster == today's machine exactly; real data through DRAM and the
interconnect checked against numpy on 1, 4, 16 clusters, bus and mesh; barriers; races
between clusters named), and the report's figures."""

from __future__ import annotations

import json

import numpy as np
import pytest

import workloads
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config, parse_sets
from accelsim.cost.interconnect import InterconnectModel, xy_route
from accelsim.errors import ConfigError, HazardError
from accelsim.report.chrome_trace import chrome_trace_json
from accelsim.report.clusters import cluster_report
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate
from workloads.gemm import build_gemm

# ---- config ---------------------------------------------------------------------------------

def test_cluster_presets_and_set() -> None:
    c4, c16 = load_config("cluster4"), load_config("cluster16")
    assert (c4.clusters, c16.clusters) == (4, 16)
    assert c4.interconnect.kind == "bus"
    over = load_config("cluster4", parse_sets(["clusters=8", "interconnect.kind=mesh"]))
    assert over.clusters == 8 and over.interconnect.kind == "mesh"
    assert [lv.name for lv in c4.shared_levels()] == ["dram"] and c4.local_level().name == "sram"
    # one cluster and the default interconnect leave every older config's hash as it was
    assert load_config("default", {"clusters": 1}).hash() == load_config("default").hash()
    assert "clusters" not in load_config("default").to_dict()


@pytest.mark.parametrize("key,value,message", [
    ("clusters", 0, r"clusters = 0: must be an integer in \[1, 256\]"),
    ("clusters", 300, r"clusters = 300: must be an integer in \[1, 256\]"),
    ("interconnect.kind", "ring", r"interconnect.kind = 'ring': must be one of 'bus', 'mesh'"),
    ("interconnect.bandwidth_bytes_per_cycle", 0, r"interconnect.bandwidth_bytes_per_cycle = 0"),
    ("interconnect.routing", "yx", r"interconnect.routing = 'yx': must be one of 'xy'"),
    ("interconnect.flits", 3, r"interconnect.flits = 3: unknown key"),
])
def test_config_errors_name_key_value_range(key: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config("cluster4", {key: value})


def test_mesh_placement_errors() -> None:
    with pytest.raises(ConfigError, match=r"interconnect.memory_row = 2: must be an integer in \[0, 1\]"):
        load_config("cluster4", {"interconnect.kind": "mesh", "interconnect.memory_row": 2})
    with pytest.raises(ConfigError, match="a 1x2 mesh holds 2 clusters, fewer than clusters = 4"):
        load_config("cluster4", {"interconnect.kind": "mesh", "interconnect.mesh_rows": 1,
                                 "interconnect.mesh_cols": 2})


# ---- the interconnect's closed forms --------------------------------------------------------

def test_xy_route_is_row_then_column_and_manhattan() -> None:
    hops = xy_route((0, 0), (2, 3))
    assert hops[:3] == [((0, 0), (0, 1)), ((0, 1), (0, 2)), ((0, 2), (0, 3))]
    assert hops[3:] == [((0, 3), (1, 3)), ((1, 3), (2, 3))]
    cfg = load_config("cluster16", {"interconnect.kind": "mesh"})
    m = InterconnectModel.for_config(cfg)
    assert m is not None
    ic = cfg.interconnect
    for k in range(16):
        r, c = divmod(k, 4)
        d = abs(r - ic.memory_row) + abs(c - ic.memory_col)
        assert len(m.path(k, "read")) == len(m.path(k, "write")) == d
        assert m.latency[k] == d * ic.hop_latency_cycles
    assert InterconnectModel.for_config(load_config("default")) is None


def test_grant_is_fifo_over_the_path() -> None:
    m = InterconnectModel.for_config(load_config("cluster4"))
    assert m is not None and m.names == ("noc.bus",)
    free = [0]
    assert m.hold(1000) == -(-1000 // 256)
    assert m.grant(free, (0,), 10, 4) == 10 and free == [14]
    assert m.grant(free, (0,), 12, 4) == 14 and free == [18]


# ---- the event run ----------------------------------------------------------------------------

def _gemm_inputs(M: int, N: int, K: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"A": rng.standard_normal((M, K)).astype(np.float32),
            "B": rng.standard_normal((K, N)).astype(np.float32),
            "C": rng.standard_normal((M, N)).astype(np.float32)}


def test_one_cluster_is_todays_machine_exactly() -> None:
    """The many-cluster run of one program on one cluster: the cycles and the outputs of
    `simulate` (the N-processor hub, with nothing to interleave, changes nothing)."""
    cfg = load_config("default")
    inputs = _gemm_inputs(64, 48, 40)
    m = build_gemm(64, 48, 40)
    compile_for_accelerator(cfg, m)
    want = simulate(m, cfg, inputs=inputs)
    got = simulate_clusters([m], cfg, inputs)
    assert got.cycles == want.cycles
    np.testing.assert_array_equal(got.outputs["C"], want.outputs["C"])  # type: ignore[index]


@pytest.mark.parametrize("preset", ["cluster4", "cluster16"])
@pytest.mark.parametrize("kind", ["bus", "mesh"])
@pytest.mark.parametrize("dist", ["block", "block2d", "cyclic"])
def test_gemm_correct_on_clusters(preset: str, kind: str, dist: str) -> None:
    cfg = load_config(preset, {"interconnect.kind": kind})
    M, N, K = 50, 36, 24
    inputs = _gemm_inputs(M, N, K, 3)
    progs = compile_for_clusters(cfg, build_gemm(M, N, K), None, dist)
    r = simulate_clusters(progs.modules, cfg, inputs)
    want = inputs["C"] + inputs["A"] @ inputs["B"]
    np.testing.assert_allclose(r.outputs["C"], want, rtol=1e-4, atol=1e-4)  # type: ignore[index]


# every workload on 1, 4 and 16 clusters, bus and mesh: tests/accelsim/sim/test_cluster_matrix.py


def test_barrier_waits_are_recorded() -> None:
    """2mm: the second product reads the first's result, which other clusters wrote: every
    cluster waits at the barrier, and the waits end at one cycle."""
    cfg = load_config("cluster4")
    b = workloads.lookup("2mm").bind({"NI": "16", "NJ": "12", "NK": "8", "NL": "12"})
    inputs = b.random_inputs(0)
    progs = compile_for_clusters(cfg, b.module(), b.func_name, "block")
    r = simulate_clusters(progs.modules, cfg, inputs, b.func_name)
    waits = [rec for rec in r.trace if rec.kind == "barrier"]
    assert waits and len({rec.end for rec in waits}) == 1
    rep = cluster_report(r.trace, cfg, r.cycles, r.stats.ideal_compute_cycles)
    assert sum(row.barrier_cycles for row in rep.rows) == sum(w.end - w.start for w in waits)


def test_two_clusters_writing_the_same_elements_is_an_error() -> None:
    cfg = load_config("cluster4", {"clusters": 2})
    mods = []
    for _ in range(2):  # both clusters run the whole gemm: they race on every element of C
        m = build_gemm(32, 32, 16)
        compile_for_accelerator(cfg, m)
        mods.append(m)
    with pytest.raises(HazardError, match=r"cluster c\d: .* C element .* cluster c\d .* no barrier"):
        simulate_clusters(mods, cfg, _gemm_inputs(32, 32, 16))


def test_reading_what_another_cluster_writes_is_an_error() -> None:
    """Cluster 1 reads C (copy-in) while cluster 0 writes it, nothing ordering them."""
    cfg = load_config("cluster4", {"clusters": 2})
    writer = build_gemm(32, 32, 16)
    compile_for_accelerator(cfg, writer)
    reader = build_gemm(32, 32, 16)
    compile_for_accelerator(cfg, reader)
    with pytest.raises(HazardError, match=r"C element"):
        simulate_clusters([writer, reader], cfg, _gemm_inputs(32, 32, 16))


# ---- the report -----------------------------------------------------------------------------

def test_report_uneven_split_shows_imbalance_and_json_keys() -> None:
    cfg = load_config("cluster16")
    progs = compile_for_clusters(cfg, build_gemm(100, 16, 16), None, "block")  # 6 or 7 rows each
    r = simulate_clusters(progs.modules, cfg, options=SimOptions(functional=False))
    rep = cluster_report(r.trace, cfg, r.cycles, r.stats.ideal_compute_cycles)
    busy = [row.busy_cycles for row in rep.rows]
    assert len(set(busy)) == 2 and rep.imbalance == pytest.approx(max(busy) / np.mean(busy) - 1)
    out = rep.as_json()
    assert len(out["clusters"]) == 16
    for row in out["clusters"]:
        assert {"busy_cycles", "stall_cycles", "barrier_cycles", "utilization"} <= set(row)
        assert row["utilization"] == pytest.approx(row["busy_cycles"] / r.cycles)
    assert out["interconnect"]["hottest_link"] == "noc.bus"


def test_perfetto_one_process_per_cluster() -> None:
    cfg = load_config("cluster4", {"interconnect.kind": "mesh"})
    progs = compile_for_clusters(cfg, build_gemm(32, 32, 16), None, "block")
    r = simulate_clusters(progs.modules, cfg, options=SimOptions(functional=False))
    data = json.loads(chrome_trace_json(r.trace, cfg.clock_ghz))
    procs = {e["args"]["name"] for e in data["traceEvents"] if e.get("name") == "process_name"}
    assert {f"cluster {k}" for k in range(4)} <= procs


def test_cli_json_has_clusters(capsys: pytest.CaptureFixture[str]) -> None:
    from accelsim.cli import main

    rc = main(["run", "gemm:M=40,N=24,K=16", "--target", "sim", "--config", "cluster4",
               "--set", "interconnect.kind=mesh", "--json", "--check"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["cluster"] for c in out["clusters"]] == [0, 1, 2, 3]
    assert set(out["clusters"][0]) >= {"busy_cycles", "stall_cycles", "barrier_cycles", "utilization"}


def test_cluster_timeline_groups_lanes_per_cluster(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from plots.cluster_timeline import cluster_lanes, plot_cluster_timeline

    cfg = load_config("cluster4")
    progs = compile_for_clusters(cfg, build_gemm(32, 32, 16), None, "block")
    r = simulate_clusters(progs.modules, cfg, options=SimOptions(functional=False))
    lanes = cluster_lanes(r.trace)
    assert list(lanes)[:3] == ["c0 control", "c0 dma", "c0 compute"]
    assert {f"c{k} compute" for k in range(4)} <= set(lanes) and "DRAM" in lanes
    busy = sum(e - s for s, e, _ in lanes["c2 compute"])
    assert busy == sum(x.end - x.start for x in r.trace if x.unit == "c2.compute0")
    plot_cluster_timeline(r.trace, tmp_path / "t.png", config=cfg)
    assert (tmp_path / "t.png").stat().st_size > 0


@pytest.mark.parametrize("kind", ["bus", "mesh"])
def test_shared_global_buffer(kind: str) -> None:
    """three_level with 4 clusters: the glb and DRAM shared, a scratchpad each; correct data
    and the glb's bandwidth in the report."""
    cfg = load_config("three_level", {"clusters": 4, "interconnect.kind": kind})
    assert [lv.name for lv in cfg.shared_levels()] == ["dram", "glb"]
    inputs = _gemm_inputs(48, 40, 24, 5)
    progs = compile_for_clusters(cfg, build_gemm(48, 40, 24), None, "block2d")
    r = simulate_clusters(progs.modules, cfg, inputs)
    np.testing.assert_allclose(r.outputs["C"], inputs["C"] + inputs["A"] @ inputs["B"],  # type: ignore[index]
                               rtol=1e-4, atol=1e-4)
    rep = cluster_report(r.trace, cfg, r.cycles, r.stats.ideal_compute_cycles)
    bw, peak = rep.shared_levels["glb"]
    assert 0 < bw <= peak and peak == 2 * 64
    own = {x.unit.split(".")[0] for x in r.trace if ".dma[glb->spad]" in x.unit}
    assert own == {"c0", "c1", "c2", "c3"}  # the link into each scratchpad is the cluster's
    assert any(x.unit.startswith("dma[dram->glb]") for x in r.trace)  # the shared link


def test_cli_bad_interconnect_is_a_clear_error() -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "accelsim", "run", "gemm:M=8,N=8,K=8", "--target",
                           "sim", "--config", "cluster4", "--set", "interconnect.kind=torus"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "interconnect.kind = 'torus': must be one of 'bus', 'mesh'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_simulate_refuses_many_clusters() -> None:
    from accelsim.errors import InputError

    m = build_gemm(8, 8, 8)
    with pytest.raises(InputError, match="clusters = 4: compile with"):
        simulate(m, load_config("cluster4"))
