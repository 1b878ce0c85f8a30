"""DSE points on machines of several clusters: the evaluator runs the code of
`accelsim run KERNEL --target sim` with clusters > 1 (`accelsim.dse.cluster_run`), so a point's
figures equal the CLI run's; a sweep over `clusters = [1, 4]` evaluates every point."""

from __future__ import annotations

import json

import pytest

from accelsim.cli import main
from accelsim.dse import load, load_spec
from accelsim.dse.evaluate import evaluate_point
from accelsim.dse.spec import Point
from accelsim.errors import InputError

GEMM = "gemm:M=64,N=64,K=64"


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["run", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return json.loads(out)


@pytest.mark.parametrize("fidelity", ["event", "analytic"])
def test_cluster_point_equals_the_cli_run(capsys, fidelity: str) -> None:
    point = Point(GEMM, config="cluster4", compiler=(("tile_sizes", "search"),),
                  fidelity=fidelity, functional=False)
    figures = evaluate_point(point)
    alone = _cli(capsys, GEMM, "--target", "sim", "--timing-only", "--config", "cluster4",
                 "--fidelity", fidelity)
    for key in ("cycles", "distribution", "config_hash"):
        assert figures[key] == alone[key], key
    if fidelity == "event":
        assert figures["analytic_cycles"] == alone["analytic_cycles"]
        assert figures["dma_ops"] == alone["dma_ops"]
        assert figures["load_imbalance"] == pytest.approx(alone["load_imbalance"])
    # and a different machine from the one-cluster point of the same workload
    one = evaluate_point(Point(GEMM, config="cluster4", hardware=(("clusters", 1),),
                               compiler=(("tile_sizes", "search"),), fidelity=fidelity))
    assert one["cycles"] != figures["cycles"]


def test_explicit_tiles_with_clusters_are_refused() -> None:
    point = Point(GEMM, config="cluster4", compiler=(("tile_sizes", "16,16,16"),), fidelity="event")
    with pytest.raises(InputError, match="tile_sizes = '16,16,16' with clusters = 4"):
        evaluate_point(point)


def test_sweep_over_clusters(tmp_path, capsys) -> None:
    spec = tmp_path / "clusters.toml"
    spec.write_text(f'name = "clusters"\nconfig = "cluster4"\nworkloads = ["{GEMM}"]\n'
                    'fidelity = "event"\n[hardware]\nclusters = [1, 4]\n'
                    '[compiler]\ntile_sizes = ["search"]\n')
    db = tmp_path / "r.sqlite"
    assert main(["dse", "run", str(spec), "--db", str(db), "--workers", "0"]) == 0
    capsys.readouterr()
    df = load(db)
    assert len(df) == len(load_spec(spec).points()) == 2
    assert df["error"].isna().all(), df["error"].tolist()
    by = {int(c): int(cy) for c, cy in zip(df["clusters"], df["cycles"], strict=True)}
    alone = _cli(capsys, GEMM, "--target", "sim", "--timing-only", "--config", "cluster4")
    assert by[4] == alone["cycles"]
    one = _cli(capsys, GEMM, "--target", "sim", "--timing-only", "--config", "cluster4",
               "--set", "clusters=1")
    assert by[1] == one["cycles"]
