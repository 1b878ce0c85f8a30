"""DSE over networks: a sweep spec names a network; its points' figures are network totals,
equal to running the network with the same hardware; objectives (a Pareto front) over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelsim.cli import main
from accelsim.config import load_config
from accelsim.dse import load
from accelsim.dse.spec import Sweep
from accelsim.errors import ConfigError
from accelsim.network.timing import run_timing
from accelsim.network.topology import read_topology

TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 10, 10, 3, 3, 4, 8, 1,
p1, 8, 8, 1, 1, 8, 16, 1,
"""


def test_network_sweep_totals_equal_network_runs(tmp_path: Path, capsys) -> None:
    topo = tmp_path / "tiny.csv"
    topo.write_text(TOPO)
    spec = tmp_path / "sweep.toml"
    spec.write_text(f'workloads = ["network:{topo}", "gemm:M=16,N=16,K=16"]\n'
                    'fidelity = "event"\n[hardware]\n"dram.channels" = [1, 2]\n'
                    '[compiler]\ntile_sizes = "search"\n')
    db = tmp_path / "r.sqlite"
    assert main(["dse", "run", str(spec), "--db", str(db), "--workers", "0", "--no-progress"]) == 0
    df = load(db)
    assert set(df["status"]) == {"ok"} and len(df) == 4
    net_rows = df[df["workload"] == f"network:{topo}"].sort_values("dram.channels")
    assert list(net_rows["layer_count"]) == [2, 2]
    for channels, cycles, energy in zip(net_rows["dram.channels"], net_rows["cycles"], net_rows["energy_pj"],
                                        strict=True):
        alone = run_timing(read_topology(str(topo)), "default", hardware={"dram.channels": int(channels)},
                           workers=0, progress=False).totals()
        assert cycles == alone["cycles"] and energy == pytest.approx(alone["energy_pj"])
    assert net_rows["cycles"].iloc[0] >= net_rows["cycles"].iloc[1]  # one channel is no faster
    assert main(["dse", "pareto", str(db), "--objectives", "cycles,energy_pj"]) == 0
    assert load_config("default").dram.channels == 2


def test_unknown_network_is_a_spec_error() -> None:
    with pytest.raises(ConfigError, match=r"key 'workloads\[0\]': unknown network 'nosuch'; the zoo has"):
        Sweep(workloads=["network:nosuch"])
    with pytest.raises(ConfigError, match=r"network file 'gone\.csv' does not exist"):
        Sweep(workloads=["network:gone.csv"])
