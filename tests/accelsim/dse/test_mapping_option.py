"""A DSE spec's `mapping` and `tile_policy` compiler options (issue #30): the point compiles
the program `accelsim run --mapping` / `--tile-policy gemmini` would, and a malformed
mapping is refused when the spec is read."""

from __future__ import annotations

import pytest

from accelsim.dse.evaluate import evaluate_point
from accelsim.dse.spec import from_dict

MAPPING = "L3[WIO] K2 C2 - L2[WI] N1 K16X - L1[O] K2 C2 P2 C16X - L0[W] P16"


def _points(compiler):
    sweep = from_dict({"config": "gemmini", "workloads": ["gemm:M=32,N=64,K=64"],
                       "compiler": compiler, "fidelity": "analytic"})
    return list(sweep.points())


def test_mapping_option_compiles_the_mapped_program():
    (mapped,) = _points({"mapping": MAPPING})
    (policy,) = _points({"tile_policy": "gemmini"})
    (plain,) = _points({})
    a, b, c = (evaluate_point(p) for p in (mapped, policy, plain))
    assert a["cycles"] and b["cycles"] and c["cycles"]
    # two K tiles x two C tiles of the mapping: one kernel call per tile and input chunk
    assert a["kernel_calls"] == 2 * 2 * 2
    assert a["cycles"] != c["cycles"]


def test_malformed_mapping_is_refused_with_the_spec():
    with pytest.raises(Exception, match="keeps 'Z'"):
        _points({"mapping": "L3[WIO] K12 - L2[WZ] K16X"})
