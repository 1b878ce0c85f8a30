"""Pareto fronts (all objectives minimized) and non-dominated sorting.

A point dominates another when it is no worse in every objective and strictly better in at
least one. Equal points do not dominate each other, so duplicates on the front all stay on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accelsim.errors import ConfigError


def _as_matrix(values: Any) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 2:
        raise ConfigError(f"pareto: expected a 2-D array (points x objectives), found shape {arr.shape}")
    if np.isnan(arr).any():
        raise ConfigError("pareto: objective values contain NaN (drop failed points first)")
    return arr


def pareto_mask(values: Any) -> np.ndarray:
    """Boolean mask of the non-dominated rows of an (n, k) array.

    Rows are visited in lexicographic order: anything that dominates a row sorts before it,
    and a dominated front candidate's dominator is itself on the front (transitivity), so
    comparing each row against the front found so far is enough.
    """
    arr = _as_matrix(values)
    n = arr.shape[0]
    mask = np.zeros(n, dtype=bool)
    if n == 0:
        return mask
    if arr.shape[1] == 2:
        return _pareto_mask_2d(arr)
    order = np.lexsort(arr.T[::-1])
    front = np.empty_like(arr)  # the front so far, rows [:m] (a view, never a copy)
    m = 0
    for i in order:
        row = arr[i]
        f = front[:m]
        if m and np.any(np.all(f <= row, axis=1) & np.any(f < row, axis=1)):
            continue
        front[m] = row
        m += 1
        mask[i] = True
    return mask


def _pareto_mask_2d(arr: np.ndarray) -> np.ndarray:
    """Two objectives in O(n log n). Sorted by (a, b), row i is dominated exactly when an
    earlier a-group has some b <= b_i, or its own a-group has a smaller b (equal rows do not
    dominate each other)."""
    order = np.lexsort((arr[:, 1], arr[:, 0]))
    a, b = arr[order, 0], arr[order, 1]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])  # first row of each a-group
    group = np.cumsum(np.r_[True, a[1:] != a[:-1]]) - 1
    group_min = b[starts][group]  # b is sorted within a group
    prefix_min = np.minimum.accumulate(b)
    before = np.where(starts > 0, prefix_min[np.maximum(starts - 1, 0)], np.inf)[group]
    dominated = (before <= b) | (b > group_min)
    mask = np.zeros(len(arr), dtype=bool)
    mask[order[~dominated]] = True
    return mask


def non_dominated_sort(values: Any) -> np.ndarray:
    """Front rank per row: 0 for the Pareto front, 1 for the front once 0 is removed, ..."""
    arr = _as_matrix(values)
    ranks = np.full(arr.shape[0], -1, dtype=int)
    remaining = np.arange(arr.shape[0])
    rank = 0
    while remaining.size:
        m = pareto_mask(arr[remaining])
        ranks[remaining[m]] = rank
        remaining = remaining[~m]
        rank += 1
    return ranks


def pareto_front(df: Any, objectives: Sequence[str], only_ok: bool = True) -> Any:
    """The rows of a results DataFrame on the front of `objectives`, sorted by the first one."""
    check_objectives(df, objectives)
    data = df
    if only_ok and "status" in df.columns:
        data = df[df["status"] == "ok"]
    data = data.dropna(subset=list(objectives))
    mask = pareto_mask(data[list(objectives)].to_numpy(dtype=float))
    return data[mask].sort_values(list(objectives))


def check_objectives(df: Any, objectives: Sequence[str]) -> None:
    if not 2 <= len(objectives) <= 3:
        raise ConfigError(f"pareto: expected 2 or 3 objectives, found {len(objectives)}: {list(objectives)}")
    for o in objectives:
        if o not in df.columns:
            raise ConfigError(f"pareto: unknown objective '{o}' (columns: {', '.join(map(str, df.columns))})")
