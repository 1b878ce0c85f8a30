"""The sweep API's traps (issue 34): a `Sweep` with its defaults gives `accelsim run`'s cycles;
a stored point runs again when its config's content or the timing model changed (and `dse
status` says why); the default fidelity's rows have energy, so the default objectives work;
a script without the `__main__` guard works, or fails once before storing anything."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import accelsim
from accelsim import dse
from accelsim.cli import main
from accelsim.dse import staleness
from accelsim.dse.store import ResultStore
from accelsim.errors import ConfigError

GEMM = "gemm:M=64,N=64,K=64"
ROOT = Path(__file__).resolve().parents[3]
PRESET = ROOT / "accelsim" / "presets" / "default.toml"


def _cycles(db: Path) -> list[int]:
    return [int(c) for c in dse.load(db)["cycles"]]


def test_sweep_defaults_are_the_clis(tmp_path: Path) -> None:
    """No compiler options: the tile search of `accelsim run --target sim` (issue: "auto" gave
    159,960 cycles for gemm 256^3 where the CLI gives 71,952)."""
    sweep = dse.Sweep(workloads=[GEMM], fidelity=["analytic", "event"])
    assert {p.options["tile_sizes"] for p in sweep.points()} == {"search"}
    db = tmp_path / "r.sqlite"
    dse.run_sweep(sweep, db, workers=0, progress=False)
    df = dse.load(db).set_index("fidelity")
    assert int(df.loc["event", "cycles"]) == accelsim.run(GEMM, timing_only=True).cycles
    assert int(df.loc["analytic", "cycles"]) == accelsim.run(GEMM, fidelity="analytic").cycles


def test_sweeping_what_the_search_ignores_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"compiler\.stages.*tile_sizes = \"auto\""):
        dse.Sweep(workloads=[GEMM], compiler={"stages": [1, 2]})
    both = dse.Sweep(workloads=[GEMM], compiler={"tile_sizes": ["search", "auto"], "stages": [1, 2]})
    # the search's points do not repeat per stages value; auto's do
    assert sorted(str(p.options["tile_sizes"]) for p in both.points()) == ["auto", "auto", "search"]


def test_an_edited_config_runs_its_points_again(tmp_path: Path, capsys) -> None:
    chip = tmp_path / "chip.toml"
    text = PRESET.read_text()
    chip.write_text(text)
    sweep = dse.Sweep(workloads=[GEMM], config=str(chip), fidelity="event")
    db = tmp_path / "r.sqlite"
    first = dse.run_sweep(sweep, db, workers=0, progress=False)
    assert first.ran == 1
    assert dse.run_sweep(sweep, db, workers=0, progress=False).ran == 0  # unchanged: reused

    chip.write_text(text.replace("latency_cycles = 120", "latency_cycles = 400"))
    assert main(["dse", "status", str(db)]) == 0
    assert "1 point stale: config content changed" in capsys.readouterr().out
    again = dse.run_sweep(sweep, db, workers=0, progress=False)
    assert again.ran == 1 and again.stale == ((staleness.CONFIG_CHANGED, 1),)
    assert "1 point stale: config content changed, run again" in str(again)
    # the row was replaced: one point, with the edited config's cycles
    assert _cycles(db) == [accelsim.run(GEMM, config=str(chip), timing_only=True).cycles]
    main(["dse", "status", str(db)])
    assert "stale" not in capsys.readouterr().out


def test_another_timing_model_runs_its_points_again(tmp_path: Path, monkeypatch) -> None:
    sweep = dse.Sweep(workloads=[GEMM])
    db = tmp_path / "r.sqlite"
    dse.run_sweep(sweep, db, workers=0, progress=False)
    with ResultStore(db) as store:
        (row,) = store.identities().values()
    assert row["timing_model"] == staleness.TIMING_MODEL_VERSION and row["config_hash"]
    monkeypatch.setattr(staleness, "TIMING_MODEL_VERSION", "9999.01.01.1")
    again = dse.run_sweep(sweep, db, workers=0, progress=False)
    assert again.ran == 1 and again.stale[0][0].startswith(staleness.MODEL_CHANGED)


def test_default_objectives_work_on_the_default_fidelity(tmp_path: Path) -> None:
    """The analytic estimate has energy (the event report's formula on its counts)."""
    sweep = dse.Sweep(workloads=[GEMM, "gemm:M=32,N=32,K=32"], hardware={"dma.engines": [1, 2]})
    assert sweep.fidelity == ("analytic",)
    db = tmp_path / "r.sqlite"
    dse.run_sweep(sweep, db, workers=0, progress=False)
    df = dse.load(db)
    front = dse.pareto_front(df, list(sweep.objectives))
    assert len(front) >= 1 and (df["energy_pj"] > 0).all()
    event = accelsim.run(GEMM, timing_only=True).to_dict()
    import workloads

    engines = accelsim.load_config("default").dma.engines
    analytic = df[(df["workload"] == workloads.get(GEMM).spec) & (df["dma.engines"] == engines)].iloc[0]
    assert float(analytic["energy_pj"]) == pytest.approx(event["energy_pj"], rel=1e-3)


def _script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "sweep_script.py"
    path.write_text(textwrap.dedent(body))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=600)


def test_a_script_without_the_main_guard_works(tmp_path: Path) -> None:
    """Before: every worker re-ran the script, 2,578 lines of tracebacks, every point stored
    as failed. Now the workers never import the script."""
    out = _script(tmp_path, """
        from accelsim import dse
        sweep = dse.Sweep(workloads=["gemm:M=32,N=32,K=32"], hardware={"dma.engines": [1, 2]})
        print(dse.run_sweep(sweep, "r.sqlite", workers=2, progress=False))
        """)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    assert "2 points evaluated (0 failed)" in out.stdout
    assert (dse.load(tmp_path / "r.sqlite")["status"] == "ok").all()


def test_own_evaluator_without_the_main_guard_fails_once_before_storing(tmp_path: Path) -> None:
    out = _script(tmp_path, """
        from accelsim import dse
        def evaluate(point):
            return {"cycles": 1}
        sweep = dse.Sweep(workloads=["gemm:M=32,N=32,K=32"], hardware={"dma.engines": [1, 2]})
        dse.run_sweep(sweep, "r.sqlite", workers=2, progress=False, evaluate=evaluate)
        """)
    assert out.returncode == 1
    assert out.stderr.count("Traceback") == 1
    assert 'if __name__ == "__main__":' in out.stderr.splitlines()[-1]
    with ResultStore(tmp_path / "r.sqlite") as store:
        assert store.count() == 0
