"""Hypothesis picks small sizes (and alpha/beta/a) for every workload; the built IR must
verify and, run by the test interpreter, equal the reference."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import workloads
from workloads.model import Param

# Largest value hypothesis may pick per parameter: keeps the interpreted loop nests small.
CAPS = {"H": 6, "W": 6, "N": 5, "T": 4}


def _strategy(p: Param) -> st.SearchStrategy[object]:
    if p.kind in ("dtype", "type"):  # the element type, the accumulator and weights' types
        return st.just("f64")
    if p.kind == "float":
        return st.sampled_from(["0", "1", "-0.5", "2.25"])
    lo = p.lo or 1
    return st.integers(lo, max(lo, min(CAPS.get(p.name, 4), p.hi or 4))).map(str)


@pytest.mark.parametrize("name", workloads.names())
def test_random_small_sizes(name: str, run_ir: Callable[..., dict[str, np.ndarray]]) -> None:
    w = workloads.lookup(name)
    values = st.fixed_dictionaries({p.name: _strategy(p) for p in w.params})
    if name == "permute":  # p0..p3 must be a permutation: draw one instead of filtering
        values = st.tuples(values, st.permutations(range(4))).map(
            lambda vp: {**vp[0], **{f"p{i}": str(k) for i, k in enumerate(vp[1])}})

    @settings(max_examples=20, deadline=None)
    @given(values, st.integers(0, 1000))
    def check(spec_values: dict[str, str], seed: int) -> None:
        try:
            bound = w.bind(spec_values)
        except workloads.WorkloadError:
            assume(False)  # inconsistent sizes (filter larger than the image)
            return
        inputs = bound.random_inputs(seed)
        got = run_ir(bound.module(), bound.func_name, inputs)
        expected = bound.reference(inputs)
        for arg in expected:
            np.testing.assert_allclose(got[arg], expected[arg], rtol=1e-12, atol=1e-12,
                                       err_msg=f"{bound.spec}: {arg}")

    check()
