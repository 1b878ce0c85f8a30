"""`fold-memref-alias-ops` / the front door's static `memref.subview` (issue 31): the subview
folds into its users' subscripts; host and simulator give numpy's slice; a subview that
leaves its source, or is used by an op that cannot fold, is a located error."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim.compile.frontend import lower_linalg
from accelsim.sim.simulate import simulate
from compiler.backend import run_host
from compiler.diagnostics import AccelsimError
from compiler.text import parse_module, print_module

COPY = """func.func @f(%A: memref<16x16xf32>, %B: memref<{rows}x8xf32>) {{
  %s = memref.subview %A[{offsets}] [{sizes}] [{strides}] : memref<16x16xf32> to {ty}
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to 8 {{
      %v = affine.load %s[{sub}] : {ty}
      affine.store %v, %B[%i, %j] : memref<{rows}x8xf32>
    }}
  }}
  return
}}
"""

CASES = {
    "strided": (dict(rows=8, offsets="4, 1", sizes="8, 8", strides="1, 2", sub="%i, %j",
                     ty="memref<8x8xf32, strided<[16, 2], offset: 65>>"),
                lambda a: a[4:12, 1:16:2]),
    "rank-reducing": (dict(rows=1, offsets="3, 5", sizes="1, 8", strides="1, 1", sub="%j",
                           ty="memref<8xf32, strided<[1], offset: 53>>"),
                      lambda a: a[3:4, 5:13]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_subview_folds_and_runs_on_host_and_sim(case: str) -> None:
    fields, want = CASES[case]
    text = COPY.format(**fields)
    m = parse_module(text)
    assert print_module(parse_module(print_module(m))) == print_module(m)   # kept and printed
    flags = lower_linalg(m)
    assert "--fold-memref-alias-ops" in flags and "subview" not in print_module(m)
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    b = np.zeros((fields["rows"], 8), np.float32)
    host = run_host(m, {"A": a, "B": b})["B"]
    np.testing.assert_array_equal(host, want(a))
    sim = simulate(m, "default", inputs={"A": a, "B": b}, functional=True).outputs["B"]
    np.testing.assert_array_equal(sim, want(a))


def test_a_subview_outside_its_source_is_an_error() -> None:
    text = COPY.format(rows=8, offsets="4, 2", sizes="8, 8", strides="1, 2", sub="%i, %j",
                       ty="memref<8x8xf32, strided<[16, 2], offset: 66>>")
    with pytest.raises(AccelsimError, match="leaves memref<16x16xf32>: dimension 1 reaches 16"):
        lower_linalg(parse_module(text))


def test_dynamic_offsets_are_a_parse_error() -> None:
    text = """func.func @f(%A: memref<16xf32>, %o: index) {
  %s = memref.subview %A[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
  return
}
"""
    with pytest.raises(AccelsimError, match="dynamic offsets is not supported"):
        parse_module(text)
