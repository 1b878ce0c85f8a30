import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from accelsim.dse import non_dominated_sort, pareto_front, pareto_mask
from accelsim.errors import ConfigError


def dominates(a, b) -> bool:
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def brute_mask(values) -> list[bool]:
    return [not any(dominates(q, p) for q in values) for p in values]


# Small integer ranges make ties and duplicates common, which is where fronts go wrong.
point_sets = st.integers(2, 3).flatmap(
    lambda k: arrays(np.int64, st.tuples(st.integers(0, 40), st.just(k)), elements=st.integers(0, 6)))


@given(point_sets)
def test_front_equals_brute_force(values):
    assert pareto_mask(values).tolist() == brute_mask(values.tolist())


@given(point_sets)
def test_non_dominated_sort_ranks(values):
    ranks = non_dominated_sort(values)
    rows = values.tolist()
    for i, p in enumerate(rows):
        # no point of the same or a later rank dominates p; some point of the previous rank does
        assert not any(dominates(rows[j], p) for j in range(len(rows)) if ranks[j] >= ranks[i])
        if ranks[i] > 0:
            assert any(dominates(rows[j], p) for j in range(len(rows)) if ranks[j] == ranks[i] - 1)


@given(arrays(np.int64, st.tuples(st.integers(0, 60), st.just(2)), elements=st.integers(0, 4)))
def test_two_objective_fast_path_on_heavy_ties(values):
    assert pareto_mask(values).tolist() == brute_mask(values.tolist())


def test_ties_and_duplicates():
    v = [[1, 5], [1, 5], [2, 2], [3, 2], [5, 1], [1, 6]]
    assert pareto_mask(v).tolist() == [True, True, True, False, True, False]


def test_dataframe_front_skips_failed_rows_and_checks_names():
    df = pd.DataFrame({"status": ["ok", "ok", "error", "ok"], "cycles": [10, 5, np.nan, 7],
                       "energy_pj": [1.0, 3.0, np.nan, 3.5], "x": [1, 2, 3, 4]})
    front = pareto_front(df, ["cycles", "energy_pj"])
    assert front["x"].tolist() == [2, 1]
    with pytest.raises(ConfigError, match="unknown objective 'area'"):
        pareto_front(df, ["cycles", "area"])
    with pytest.raises(ConfigError, match="2 or 3 objectives"):
        pareto_front(df, ["cycles"])
