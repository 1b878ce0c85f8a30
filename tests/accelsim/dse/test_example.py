"""The example sweep users run first: it validates, and a sample of its points simulates."""

from pathlib import Path

from accelsim.dse import load, load_spec, pareto_front, run_sweep

EXAMPLE = Path(__file__).parents[3] / "examples" / "dse" / "gemm_memory.toml"


def test_example_spec_is_valid_and_its_points_run(tmp_path):
    sweep = load_spec(EXAMPLE)
    points = sweep.points()
    assert (sweep.size, len(points)) == (80, 68)
    for p in points:  # the constraint kept only tiles whose buffers fit
        tiles = p.options["tile_sizes"]
        if tiles != "auto":
            biggest = max(int(t) for t in str(tiles).split(","))
            assert 3 * 4 * biggest ** 2 * p.options["stages"] <= p.hw["sram.capacity_kib"] * 1024
    sample = points[:: len(points) // 3][:3]
    summary = run_sweep(sample, tmp_path / "ex.sqlite", workers=0, progress=False)
    assert (summary.ran, summary.failed) == (3, 0)
    df = load(tmp_path / "ex.sqlite")
    assert len(pareto_front(df, ["cycles", "energy_pj"])) >= 1


def test_resnet18_dram_example_is_valid():
    """Dataflow x DRAM technology x SRAM size, fidelity both: the spec validates as written."""
    sweep = load_spec(EXAMPLE.parent / "resnet18_dram.toml")
    points = sweep.points()
    assert len(points) == 36 and {p.fidelity for p in points} == {"both"}
    assert sweep.objectives == ("cycles", "sram.capacity_kib")
    assert {p.hw["dram.technology"] for p in points} == {"DDR4-3200", "LPDDR5-6400", "HBM2e"}
    assert {p.hw["compute.dataflow"] for p in points} == {"os", "ws", "is"}
