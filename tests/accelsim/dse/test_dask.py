"""A real Dask LocalCluster on loopback (worker processes) runs a sweep; its rows equal the
local runner's."""

import pandas as pd
import pytest

from accelsim.dse import Sweep, load, run_sweep

distributed = pytest.importorskip("distributed")

import toy_eval  # noqa: E402

COMPARED = ["status", "error", "workload", "config", "fidelity", "sram.capacity_kib", "dma.engines",
            "stages", "accelsim_version"]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as c:
        yield c


def test_dask_rows_equal_local_rows_closed_form(tmp_path, cluster):
    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"],
                  hardware={"sram.capacity_kib": [32, 64, 128], "dma.engines": [1, 2]},
                  compiler={"stages": [1, 2]})
    local = run_sweep(sweep, tmp_path / "local.sqlite", evaluate=toy_eval.failing, workers=0, progress=False)
    dask = run_sweep(sweep, tmp_path / "dask.sqlite", evaluate=toy_eval.slow,
                     scheduler=cluster.scheduler_address, progress=False)
    assert (local.ran, dask.ran) == (12, 12)
    a = load(tmp_path / "local.sqlite").set_index("key").sort_index()
    b = load(tmp_path / "dask.sqlite").set_index("key").sort_index()
    figures = ["cycles", "energy_pj", "sram_peak_bytes", "note"]
    assert (a["status"] == "error").sum() == 4
    pd.testing.assert_frame_equal(a[COMPARED + figures], b[COMPARED + figures])
    assert len(set(b["worker"])) == 2  # both Dask workers took points


def test_dask_rows_equal_local_rows_simulator(tmp_path, cluster):
    """The real evaluator (compile + simulate) on both runners: identical rows."""
    sweep = Sweep(workloads=["gemm:M=32,N=32,K=32", "gemm:M=16,N=48,K=32"],
                  fidelity=["analytic", "event"],
                  hardware={"sram.capacity_kib": [4, 64], "dma.engines": [1, 2]},
                  compiler={"tile_sizes": [[16, 16, 16]], "stages": [1, 2]})
    local = run_sweep(sweep, tmp_path / "local.sqlite", workers=2, progress=False)
    dask = run_sweep(sweep, tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address, progress=False)
    assert (local.ran, dask.ran, local.failed) == (32, 32, 0)
    a = load(tmp_path / "local.sqlite").set_index("key").sort_index()
    b = load(tmp_path / "dask.sqlite").set_index("key").sort_index()
    figures = [c for c in a.columns if c not in ("wall_s", "worker", "finished_at")]
    assert {"cycles", "energy_pj", "dram_bytes_read", "roofline_ratio", "config_hash"} <= set(figures)
    pd.testing.assert_frame_equal(a[figures], b[figures])
    assert a["cycles"].nunique() >= 4  # the parameters really changed the simulation
