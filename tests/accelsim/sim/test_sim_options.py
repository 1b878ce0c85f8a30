"""`SimOptions` (one value instead of four boolean arguments) and the handler templates the
generic and specialized DMA/call handlers are both made from."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.sim.handlers import CALL, DMA_START, DMA_WAIT, HandlerTemplate
from accelsim.sim.options import SimOptions
from workloads.dma_programs import tiled_gemm

CFG = load_config("default")


def test_options_and_keywords_run_the_same_simulation():
    mod = tiled_gemm(32, 32, 48, 16)
    by_options = simulate(mod, CFG, options=SimOptions(functional=False, compiled=False))
    by_keywords = simulate(mod, CFG, functional=False, compiled=False)
    assert by_options.outputs is None and by_keywords.outputs is None
    assert by_options.cycles == by_keywords.cycles > 0
    assert list(by_options.trace.records) == list(by_keywords.trace.records)


def test_a_keyword_replaces_the_field_of_its_name():
    mod = tiled_gemm(32, 32, 48, 16)
    inputs = {"A": np.ones((32, 48), np.float32), "B": np.ones((48, 32), np.float32)}
    r = simulate(mod, CFG, inputs=inputs, options=SimOptions(functional=False), functional=True)
    assert r.outputs is not None
    np.testing.assert_array_equal(r.outputs["C"], np.full((32, 32), 48, np.float32))
    assert SimOptions(functional=False).updated(functional=None) == SimOptions(functional=False)
    assert SimOptions().updated(outline=False) == SimOptions(outline=False)


def test_templates_bind_every_slot_in_both_forms():
    """Every `$slot` and `@slot` of a handler template has a generic binding (checked when
    the template is made), and the generic form renders without any slot left."""
    for t in (DMA_START, DMA_WAIT, CALL):
        source = "\n".join(t.render({**t.lookups, **t.slots}))
        assert "$" not in source and "\n    @" not in source
    with pytest.raises(AssertionError, match="unbound slots"):
        HandlerTemplate("h", body="x = $missing\n@block", state={}, lookups={}, slots={})
