"""Every shipped workload (the registry, not a list) on 1, 4 and 16 clusters over a bus and a
2-D mesh, the outputs checked against numpy, the report's figures per cluster, and a
workload with no parallel loop named as running on cluster 0.

In-process and compiled once per workload and cluster count: `weigh` compiles every
candidate distribution (block, block2d, cyclic) for the bus machine, as `--distribution auto`
does; the pick is simulated on the bus and on the mesh (the programs do not depend on the
interconnect but for the tile search's fair share, so the mesh runs the bus's programs), and
every other distinct candidate on the bus at 4 clusters (at 4 and 16 with `-m slow`): each
distribution of each workload is checked. The kernels the mesh run needs are the bus run's
(the backend's compile cache), so the second interconnect costs the event run alone. One
cluster has no interconnect: one run. A few cases go through the CLI
(`accelsim run --target sim --check --json`, the same `run_clusters`), mesh-compiled.
Small shapes by default; `-m slow` runs a larger size."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import workloads
from accelsim.cli import main
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clusters import weigh
from accelsim.config import load_config
from accelsim.report.clusters import cluster_figures
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate

SMALL, LARGE = 8, 24


def _params(name: str, size: int) -> dict[str, str]:
    w = workloads.lookup(name)
    vals = {p.name: str(min(int(p.default), size)) for p in w.params if p.kind == "int"}
    if name == "jacobi-2d":
        vals["T"] = "2"  # two sweeps: the second reads what other clusters wrote (a barrier)
    return vals


def _spec(name: str, size: int) -> str:
    return name + ":" + ",".join(f"{k}={v}" for k, v in _params(name, size).items())


def _config(clusters: int, kind: str) -> Any:
    return load_config("cluster16" if clusters == 16 else "cluster4",
                       {"clusters": clusters, "interconnect.kind": kind})


def _outputs_ok(b: Any, inputs: dict[str, np.ndarray], got: dict[str, np.ndarray], what: str) -> None:
    want = b.reference(inputs)
    for name in b.outputs:
        np.testing.assert_allclose(got[name].astype(np.float64), want[name].astype(np.float64),
                                   rtol=b.rtol, atol=b.atol, err_msg=f"{what}: {name}")


def _figures_ok(f: dict[str, Any], clusters: int, what: str) -> None:
    cycles = f["cycles"]
    assert isinstance(cycles, int) and cycles > 0, what
    rows = f["clusters"]
    assert isinstance(rows, list) and [r["cluster"] for r in rows] == list(range(clusters))
    busy = [r["busy_cycles"] for r in rows]
    assert any(busy), what
    serial = f["serial_nests"]
    assert isinstance(serial, list)
    active = f.get("active_clusters", clusters)  # `auto` may give the work to fewer clusters
    if not any(busy[1:]) and active > 1:  # everything ran on cluster 0: the report must say why
        assert serial and all("runs whole on cluster 0" in s for s in serial), (what, serial)
    if not serial and active > 1:  # every nest was spread: more than one cluster worked
        assert sum(b > 0 for b in busy) > 1, (what, busy)
    assert not any(busy[active:]), (what, active, busy)
    for r in rows:
        assert r["utilization"] == pytest.approx(r["busy_cycles"] / cycles)
    assert isinstance(f["analytic_cycles"], int) and f["analytic_cycles"] > 0, what


def _matrix(name: str, size: int, every_candidate: tuple[int, ...] = (4,)) -> set[tuple[int, str]]:
    """Checks every run against numpy and its figures; returns the (clusters, interconnect)
    pairs that ran."""
    b = workloads.lookup(name).bind(_params(name, size))
    inputs = b.random_inputs(0)
    one = load_config("cluster4", {"clusters": 1})
    m = b.module()
    compile_for_accelerator(one, m, b.func_name)
    r = simulate(m, one, inputs=inputs, func=b.func_name)
    _outputs_ok(b, inputs, r.outputs, f"{name} on 1 cluster")  # type: ignore[arg-type]
    ran = {(1, "none")}
    for clusters in (4, 16):
        bus = _config(clusters, "bus")
        weighed = weigh(bus, b.module(), b.func_name)
        pick = min(weighed, key=lambda d: weighed[d][1])  # auto's rule (ties: block first)
        runs = [(pick, "bus"), (pick, "mesh")]
        seen = [weighed[pick][0].modules]
        for d, (progs, _) in weighed.items():
            if clusters in every_candidate and d != pick and not any(_same(progs.modules, s) for s in seen):
                runs.append((d, "bus"))
                seen.append(progs.modules)
        for d, kind in runs:
            what = f"{name} on {clusters} clusters ({kind}, {d})"
            cfg = bus if kind == "bus" else _config(clusters, kind)
            progs, analytic = weighed[d]
            res = simulate_clusters(progs.modules, cfg, inputs, b.func_name,
                                    options=SimOptions(functional=True))
            _outputs_ok(b, inputs, res.outputs, what)  # type: ignore[arg-type]
            f = cluster_figures(res, cfg, analytic, d, progs.flags)
            f["serial_nests"] = progs.serial
            _figures_ok(f, clusters, what)
            ran.add((clusters, kind))
    return ran


EVERY_MACHINE = {(1, "none"), (4, "bus"), (4, "mesh"), (16, "bus"), (16, "mesh")}


def _same(a: list[Any], b: list[Any]) -> bool:
    from compiler.text import print_module

    return all(print_module(x) == print_module(y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", workloads.names())
def test_every_workload_on_clusters(name: str) -> None:
    assert _matrix(name, SMALL) == EVERY_MACHINE


@pytest.mark.parametrize("name,clusters,kind", [("gemm", 16, "mesh"), ("2mm", 4, "bus"),
                                                ("jacobi-2d", 4, "mesh")])
def test_through_the_cli(name: str, clusters: int, kind: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's many-cluster path, `--distribution auto` compiled for the mesh too."""
    spec = _spec(name, SMALL)
    preset = "cluster16" if clusters == 16 else "cluster4"
    rc = main(["run", spec, "--target", "sim", "--config", preset, "--set", f"clusters={clusters}",
               "--set", f"interconnect.kind={kind}", "--json", "--check"])
    out = capsys.readouterr().out
    assert rc == 0, f"{spec} on {clusters} clusters ({kind}): exit {rc}\n{out[-2000:]}"
    f = json.loads(out)
    assert f["check"]["ok"] is True
    _figures_ok(f, clusters, spec)


def test_one_cluster_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["run", _spec("gemm", SMALL), "--target", "sim", "--config", "cluster4", "--set",
               "clusters=1", "--json", "--check"])
    f = json.loads(capsys.readouterr().out)
    assert rc == 0 and f["check"]["ok"] is True
    assert "clusters" not in f  # today's machine: no interconnect, no cluster table


@pytest.mark.slow
@pytest.mark.parametrize("name", workloads.names())
def test_every_workload_on_clusters_larger(name: str) -> None:
    assert _matrix(name, LARGE, (4, 16)) == EVERY_MACHINE
