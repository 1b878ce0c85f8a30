"""Zero-rank memrefs through the simulator's generated fast path (issue 31): upstream's
`affine-data-copy.mlir` cases `zero_ranked` and `scalar_memref_copy_in_loop` as mlir-opt-19's
`-affine-data-copy-generate=generate-dma` leaves them (DMAs of `memref<i1>` with an empty index
`[]`) used to stop `run --target sim --as-is` with a Python SyntaxError from the index code.
They run now, race-free, and a reduction into a zero-rank argument gives numpy's answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accelsim.compile.frontend import lower_linalg
from accelsim.compile.race_check import first_race
from accelsim.sim.simulate import simulate
from compiler.text import parse_module

DATA = Path(__file__).parent / "data" / "zero_rank"


@pytest.mark.parametrize("name", ["zero_ranked", "scalar_memref_copy_in_loop"])
def test_upstream_zero_rank_copies_run_as_is(name: str) -> None:
    m = parse_module((DATA / f"{name}.dma.mlir").read_text())
    lower_linalg(m)   # the front door: memref.copy of zero_ranked becomes affine code
    assert first_race(m) is None
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 480).astype(bool)
    res = simulate(m, "default", inputs={"arg0": a.copy()}, functional=True)
    np.testing.assert_array_equal(res.outputs["arg0"], a)   # only read
    assert res.cycles > 0


def test_min_reduction_into_a_zero_rank_argument_matches_numpy() -> None:
    m = parse_module((DATA / "min_reduce.dma.mlir").read_text())
    assert first_race(m) is None
    a = np.random.default_rng(1).uniform(-1, 1, 64).astype(np.float32)
    r = np.array(0.5, dtype=np.float32)
    res = simulate(m, "default", inputs={"arg0": a, "arg1": r.copy()}, functional=True)
    assert res.outputs["arg1"].shape == ()
    assert float(res.outputs["arg1"]) == float(min(a.min(), r))
