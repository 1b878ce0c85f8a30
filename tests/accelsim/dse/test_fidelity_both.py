"""`fidelity = "both"` in a sweep: every point analytic, the analytic Pareto front confirmed by
the event machine, both figures in the store; a resumed sweep confirms nothing twice."""

from __future__ import annotations

import pytest

from accelsim.dse import load, run_sweep
from accelsim.dse.pareto import pareto_mask
from accelsim.dse.spec import Sweep, from_dict
from accelsim.errors import ConfigError


def _sweep() -> Sweep:
    return Sweep(workloads=["gemm:M=64,N=64,K=64"], fidelity="both",
                 hardware={"dram.model": ["timing"],
                           "dram.technology": ["DDR4-3200", "LPDDR5-6400", "HBM2e"],
                           "sram.capacity_kib": [16, 32, 64]},
                 objectives=("cycles", "sram.capacity_kib"))


def test_front_is_confirmed_by_event_and_the_store_keeps_both(tmp_path):
    db = tmp_path / "both.sqlite"
    summary = run_sweep(_sweep(), db, workers=0, progress=False)
    df = load(db)
    assert len(df) == 9 and (df["status"] == "ok").all()
    confirmed = df[df["confirmed"] == 1]
    rest = df[df["confirmed"] == 0]
    assert summary.ran == 9 + len(confirmed)
    # the analytic front was confirmed, and so is the final front (event figures where
    # confirmed): every point on it has its event figures
    first = pareto_mask(df[["analytic_cycles", "sram.capacity_kib"]].to_numpy())
    assert set(df["key"][first]) <= set(confirmed["key"])
    final = pareto_mask(df[["cycles", "sram.capacity_kib"]].to_numpy())
    assert set(df["key"][final]) <= set(confirmed["key"])
    assert 0 < len(confirmed) < len(df)
    for _, r in confirmed.iterrows():  # event figures, both cycle counts, their divergence
        assert r["cycles"] == r["event_cycles"]
        assert r["divergence"] == pytest.approx(r["analytic_cycles"] / r["event_cycles"] - 1)
    assert rest["event_cycles"].isna().all() and (rest["cycles"] == rest["analytic_cycles"]).all()
    again = run_sweep(_sweep(), db, workers=0, progress=False)  # resumed: nothing left to run
    assert again.ran == 0


def test_objectives_are_checked() -> None:
    with pytest.raises(ConfigError, match="key 'objectives': expected 2 or 3 column names"):
        from_dict({"workloads": ["gemm:M=8"], "fidelity": "both", "objectives": ["cycles"]})
    with pytest.raises(ConfigError, match="key 'fidelity': expected one of"):
        from_dict({"workloads": ["gemm:M=8"], "fidelity": "all"})
