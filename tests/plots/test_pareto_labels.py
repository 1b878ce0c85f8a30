"""Front labels name dotted sweep keys by their shortest distinguishing suffix."""

import pandas as pd

from plots.pareto import front_labels, short_names


def test_short_names_keep_the_level_apart() -> None:
    cols = ["memory.glb.capacity_kib", "memory.spad.capacity_kib", "dma.engines"]
    assert short_names(cols) == {"memory.glb.capacity_kib": "glb.capacity_kib",
                                 "memory.spad.capacity_kib": "spad.capacity_kib",
                                 "dma.engines": "engines"}
    assert short_names(["sram.capacity_kib", "capacity_kib"]) == {
        "sram.capacity_kib": "sram.capacity_kib", "capacity_kib": "capacity_kib"}


def test_front_labels_use_the_short_names() -> None:
    rows = pd.DataFrame({"memory.glb.capacity_kib": [256, 320], "memory.spad.capacity_kib": [384, 320],
                         "dma.engines": [2, 2]})
    assert front_labels(rows, list(rows.columns)) == [
        "glb.capacity_kib=256 spad.capacity_kib=384", "glb.capacity_kib=320 spad.capacity_kib=320"]
