"""Every shipped workload (the registry, not a list) on 1, 4 and 16 clusters over a bus and a
2-D mesh, through `accelsim run --target sim --check --json` (the CLI's many-cluster path,
`accelsim.dse.cluster_run.run_clusters`): the outputs checked against numpy, the report's
figures per cluster, and a workload with no parallel loop named as running on cluster 0.
Small shapes by default; `-m slow` runs a larger size."""

from __future__ import annotations

import json

import pytest

import workloads
from accelsim.cli import main

SMALL, LARGE = 8, 24


def _spec(name: str, size: int) -> str:
    w = workloads.lookup(name)
    vals = {p.name: min(int(p.default), size) for p in w.params if p.kind == "int"}
    if name == "jacobi-2d":
        vals["T"] = 2  # two sweeps: the second reads what other clusters wrote (a barrier)
    return name + ":" + ",".join(f"{k}={v}" for k, v in vals.items())


def _run(spec: str, clusters: int, kind: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    preset = "cluster16" if clusters == 16 else "cluster4"
    rc = main(["run", spec, "--target", "sim", "--config", preset, "--set", f"clusters={clusters}",
               "--set", f"interconnect.kind={kind}", "--json", "--check"])
    out = capsys.readouterr().out
    assert rc == 0, f"{spec} on {clusters} clusters ({kind}): exit {rc}\n{out[-2000:]}"
    figures: dict[str, object] = json.loads(out)
    return figures


def _check(spec: str, clusters: int, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    f = _run(spec, clusters, kind, capsys)
    assert f["check"]["ok"] is True  # type: ignore[index]
    cycles = f["cycles"]
    assert isinstance(cycles, int) and cycles > 0
    if clusters == 1:
        assert "clusters" not in f  # today's machine: no interconnect, no cluster table
        return
    rows = f["clusters"]
    assert isinstance(rows, list) and [r["cluster"] for r in rows] == list(range(clusters))
    busy = [r["busy_cycles"] for r in rows]
    assert any(busy)
    serial = f["serial_nests"]
    assert isinstance(serial, list)
    if not any(busy[1:]):  # everything ran on cluster 0: the report must say why
        assert serial and all("runs whole on cluster 0" in s for s in serial), (spec, serial)
    if not serial:  # every nest was spread: more than one cluster worked
        assert sum(b > 0 for b in busy) > 1, (spec, busy)
    for r in rows:
        assert r["utilization"] == pytest.approx(r["busy_cycles"] / cycles)
    assert isinstance(f["analytic_cycles"], int) and f["analytic_cycles"] > 0


@pytest.mark.parametrize("kind", ["bus", "mesh"])
@pytest.mark.parametrize("clusters", [1, 4, 16])
@pytest.mark.parametrize("name", workloads.names())
def test_every_workload_on_clusters(name: str, clusters: int, kind: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    _check(_spec(name, SMALL), clusters, kind, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["bus", "mesh"])
@pytest.mark.parametrize("clusters", [1, 4, 16])
@pytest.mark.parametrize("name", workloads.names())
def test_every_workload_on_clusters_larger(name: str, clusters: int, kind: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _check(_spec(name, LARGE), clusters, kind, capsys)
