"""The network sweep example parses, names a zoo network and has the points it says."""

from __future__ import annotations

from pathlib import Path

from accelsim.dse import load_spec

EXAMPLE = Path(__file__).parents[3] / "examples" / "dse" / "network_dram.toml"


def test_network_example_spec() -> None:
    sweep = load_spec(EXAMPLE)
    points = sweep.points()
    assert len(points) == 6 and {p.workload for p in points} == {"network:bert_base_layer"}
    assert {p.env()["kernel"] for p in points} == {"network"}
