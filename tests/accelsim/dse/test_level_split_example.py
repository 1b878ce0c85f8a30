"""`examples/dse/level_split.toml`: memory-level keys sweep and constrain like any config key,
and a point's row carries the hierarchy's figures."""

from pathlib import Path

from accelsim.config import load_config
from accelsim.dse import load_spec
from accelsim.dse.evaluate import evaluate_point

SPEC = Path(__file__).parents[3] / "examples" / "dse" / "level_split.toml"


def test_the_split_keeps_the_budget_and_a_point_evaluates():
    points = load_spec(SPEC).points()
    splits = sorted((p.hw["memory.glb.capacity_kib"], p.hw["memory.spad.capacity_kib"]) for p in points)
    assert splits == [(128, 512), (256, 384), (384, 256), (512, 128), (576, 64)]
    p = next(p for p in points if p.hw["memory.spad.capacity_kib"] == 512)
    cfg = load_config(p.config).with_overrides(p.hw)
    assert [lv.capacity_kib for lv in cfg.memory_chain()[1:]] == [128, 512]
    row = evaluate_point(p)
    assert row["config_hash"] == cfg.hash() and row["cycles"] > 0
    assert row["hierarchical_roofline_bound"] in ("compute", "dram->glb", "glb->spad")
    assert row["hierarchical_roofline_cycles"] <= row["cycles"]
