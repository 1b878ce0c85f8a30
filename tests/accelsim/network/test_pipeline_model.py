"""The many-cluster schedule model (accelsim/network/pipeline_model.py): row models, the chunk
recurrence's exact start and end cycles, and the segment choice of `plan`."""

from __future__ import annotations

import pytest

from accelsim.network.pipeline_model import (
    Handoff,
    RowModel,
    cluster_span,
    plan,
)

FREE = Handoff(latency=0, bytes_per_cycle=1e12, clusters=4)


def test_window_rows_need_the_halo_and_end_at_the_whole_input() -> None:
    # 3-row window, stride 1, 6 input rows -> 4 output rows; row r reads rows 0..r+2
    assert RowModel.window(4, 6, 2, 1).need == (3 / 6, 4 / 6, 5 / 6, 1.0)
    # stride 2: output row r reads up to row 2r+2 of 9
    assert RowModel.window(4, 9, 2, 2).need == (3 / 9, 5 / 9, 7 / 9, 1.0)
    # padding (first = -top): output row 0 reads no input row, counted as the first one
    assert RowModel.window(4, 2, -1, 1).need == (0.5, 0.5, 1.0, 1.0)
    assert len(RowModel.elementwise(10_000).need) == 32
    with pytest.raises(ValueError, match="end at 1"):
        RowModel((0.5,))
    with pytest.raises(ValueError, match="must not decrease"):
        RowModel((0.5, 0.25, 1.0))


def test_then_composes_two_kernels_of_a_layer() -> None:
    pad = RowModel.window(6, 4, -1, 1)      # 4 rows padded to 6
    conv = RowModel.window(4, 6, 2, 1)      # then a 3-row window
    both = conv.then(pad)
    # conv row 0 needs padded rows 0..2 = input rows 0..1
    assert both.need[0] == pytest.approx(2 / 4) and both.need[-1] == 1.0


def test_a_two_layer_pipeline_overlaps_by_the_recurrence() -> None:
    """Layer 0: 4 chunks of 25 cycles on 2 clusters; layer 1 needs its producer's chunk r, 4
    chunks of 10 cycles on 2 clusters: it starts when chunk 0 is ready (25 + 5 hand-off) and
    ends 10 after the last chunk is handed off (100 + 5 + 10)."""
    rows = [RowModel.elementwise(4), RowModel.elementwise(4)]
    durations = {1: [400.0, 400.0], 2: [100.0, 40.0], 4: [90.0, 60.0]}
    handoff = Handoff(latency=5, bytes_per_cycle=1e12, clusters=4)
    p = plan(durations, rows, [0.0, 0.0], [None, 0], 4, handoff)
    assert p.segments == ((0, 2),)
    assert [(q.first, q.size, q.start, q.end) for q in p.placements] == [(0, 2, 0, 100),
                                                                          (2, 2, 30, 115)]
    assert p.cycles == 115 and p.pipelined_layers == 2
    assert [q.clusters for q in p.placements] == ["0-1", "2-3"]


def test_plan_keeps_data_parallel_where_a_pipeline_does_not_pay() -> None:
    """Perfect scaling and a layer that needs all of its input: nothing to overlap, so every
    layer runs alone on the whole machine (today's schedule), one after another."""
    rows = [RowModel.elementwise(8), RowModel((1.0,)), RowModel.elementwise(8)]
    durations = {1: [400.0, 80.0, 200.0], 2: [200.0, 40.0, 100.0], 4: [100.0, 20.0, 50.0]}
    p = plan(durations, rows, [0.0] * 3, [None, 0, 1], 4, FREE)
    assert p.segments == ((0, 1), (1, 2), (2, 3))
    assert [(q.size, q.start, q.end) for q in p.placements] == [(4, 0, 100), (4, 100, 120),
                                                                 (4, 120, 170)]


def test_plan_pipelines_layers_that_scale_badly_and_never_loses_to_data_parallel() -> None:
    """Two streaming layers that gain little past one cluster and nothing past two: side by side
    on two clusters each they overlap, the consumer one chunk behind; the plan is never slower
    than every layer on every cluster."""
    rows = [RowModel.elementwise(16), RowModel.elementwise(16)]
    durations = {1: [160.0, 160.0], 2: [150.0, 150.0], 4: [150.0, 150.0]}
    p = plan(durations, rows, [0.0, 0.0], [None, 0], 4, FREE)
    assert p.segments == ((0, 2),)
    assert [(q.size, q.start, q.end) for q in p.placements] == [(2, 0, 150), (2, 9, 159)]
    assert p.cycles == 159  # 150 + one chunk of the consumer (150 / 16)
    assert p.cycles <= sum(durations[4])


def test_handoff_bytes_at_the_consumer_groups_share() -> None:
    h = Handoff(latency=4, bytes_per_cycle=64.0, clusters=16)
    assert h.cycles(1024, 4) == pytest.approx(4 + 1024 / 16)


def test_cluster_span() -> None:
    assert cluster_span("3") == range(3, 4) and cluster_span("0-15") == range(0, 16)
    for bad in ("", "a-b", "4-2", "1-"):
        with pytest.raises(ValueError, match="cluster assignment"):
            cluster_span(bad)


def test_a_light_layer_shares_its_producers_group_so_a_pipeline_fits() -> None:
    """Four clusters, five layers (heavy, light, heavy, light, heavy; 5 stages do not fit). A
    light layer (less work than one cluster's fair share, 320 / 4) joins its producer's group,
    which interleaves their chunks (the consumer's on a tie): A B on 0-1 (A's chunks 20, B's 2:
    A 0-20, B 20-22, A 22-42, ... A 66-86, B 86-88), C D on 2-3 streaming B's chunks (C 22-42,
    D 42-44, C 44-64, D 64-66, C 66-86, D 86-88, C 88-108, D 108-110), then E alone on all
    four: 110 + 70 = 180, against 70 + 7 + 70 + 7 + 70 = 224 data-parallel."""
    rows = [RowModel.elementwise(4)] * 5
    durations = {1: [100.0, 10.0, 100.0, 10.0, 100.0], 2: [80.0, 8.0, 80.0, 8.0, 80.0],
                 4: [70.0, 7.0, 70.0, 7.0, 70.0]}
    p = plan(durations, rows, [0.0] * 5, [None, 0, 1, 2, 3], 4, FREE)
    assert p.segments == ((0, 4), (4, 5)) and p.pipelined_layers == 4
    assert [(q.clusters, q.start, q.end) for q in p.placements] == [
        ("0-1", 0, 86), ("0-1", 20, 88), ("2-3", 22, 108), ("2-3", 42, 110), ("0-3", 110, 180)]
    assert p.cycles == 180 < sum(durations[4])
