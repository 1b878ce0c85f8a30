import numpy as np
import pandas as pd

from accelsim.dse import pareto_mask
from plots.pareto import FRONT_LABEL, OTHER_LABEL, front_points, plot_pareto


def frame(n=60, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"cycles": rng.integers(100, 2000, n), "energy_pj": rng.integers(10, 90, n) * 1.0,
                       "sram_peak_bytes": rng.integers(1, 9, n) * 4096, "status": "ok"})
    df.loc[::7, "status"] = "error"
    return df


def collection(ax, label):
    return next(c for c in ax.collections if c.get_label() == label)


def test_two_objectives_highlight_exactly_the_front(tmp_path):
    df = frame()
    fig = plot_pareto(df, ["cycles", "energy_pj"], tmp_path / "p.png")
    ok = df[df["status"] == "ok"][["cycles", "energy_pj"]].to_numpy(float)
    mask = pareto_mask(ok)
    drawn = front_points(fig)
    assert sorted(map(tuple, drawn)) == sorted(map(tuple, ok[mask]))
    others = np.asarray(collection(fig.axes[0], OTHER_LABEL).get_offsets())
    assert sorted(map(tuple, others)) == sorted(map(tuple, ok[~mask]))
    assert f"{mask.sum()} of {len(ok)} points" in fig._suptitle.get_text()
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_three_objectives_draw_three_projections_of_the_3d_front(tmp_path):
    df = frame()
    objs = ["cycles", "energy_pj", "sram_peak_bytes"]
    fig = plot_pareto(df, objs, tmp_path / "p3.svg")
    ok = df[df["status"] == "ok"][objs].to_numpy(float)
    front = ok[pareto_mask(ok)]
    for panel, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        ax = fig.axes[panel]
        assert ax.get_xlabel().startswith(objs[a].split("_")[0])
        got = sorted(map(tuple, front_points(fig, panel)))
        assert got == sorted(map(tuple, front[:, [a, b]]))
        assert collection(ax, FRONT_LABEL).get_offsets().shape[0] == len(front)
    assert (tmp_path / "p3.svg").read_text().lstrip().startswith("<?xml")


def test_small_fronts_are_labelled_with_the_parameters_that_vary_along_them():
    df = pd.DataFrame({"cycles": [10, 20, 30, 30, 40, 5], "energy_pj": [9.0, 5.0, 2.0, 2.0, 8.0, 9.5],
                       "sram.capacity_kib": [64, 128, 256, 256, 64, 64], "stages": [2, 2, 1, 2, 2, 2],
                       "status": ["ok"] * 5 + ["error"]})
    fig = plot_pareto(df, ["cycles", "energy_pj"], label_columns=["sram.capacity_kib", "stages"])
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    # (30, 2) holds two designs: one label for both; the failed row is not on the plot
    assert texts == ["capacity_kib=128 stages=2", "capacity_kib=256 stages=1 / capacity_kib=256 stages=2",
                     "capacity_kib=64 stages=2"]
    assert not plot_pareto(df, ["cycles", "energy_pj"]).axes[0].texts  # no labels unless asked
