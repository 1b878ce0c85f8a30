"""Scalar function arguments reach the program on every path (issue 14: the simulator
ignored them): a float stored into a memref, an index used as a loop bound, given from
Python or as 0-d arrays in an `--inputs` archive; host and simulator agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accelsim import simulate
from accelsim.cli import main
from accelsim.errors import InputError
from compiler.backend import compile_module
from compiler.text import parse_module

FILL = """func.func @fill(%n: index, %x: f32, %A: memref<8xf32>) {
  affine.for %i = 0 to %n {
    affine.store %x, %A[%i] : memref<8xf32>
  }
  return
}
"""


def _inputs() -> dict[str, np.ndarray]:
    return {"n": np.array(5), "x": np.array(2.5, np.float32), "A": np.zeros(8, np.float32)}


def _expected() -> np.ndarray:
    return np.array([2.5] * 5 + [0.0] * 3, np.float32)


def test_simulator_uses_float_and_index_scalars() -> None:
    out = simulate(parse_module(FILL, "fill.mlir"), "default", inputs=_inputs()).outputs
    assert out is not None
    np.testing.assert_array_equal(out["A"], _expected())


def test_simulator_and_host_agree_on_scalar_arguments() -> None:
    module = parse_module(FILL, "fill.mlir")
    host = _inputs()
    compile_module(module).call("fill", host)
    sim = simulate(parse_module(FILL, "fill.mlir"), "default", inputs=_inputs()).outputs
    assert sim is not None
    np.testing.assert_array_equal(sim["A"], host["A"])


def test_the_index_scalar_sets_the_timing_of_a_timing_only_run() -> None:
    def cycles(n: int) -> int:
        return simulate(parse_module(FILL, "fill.mlir"), "default", inputs={"n": np.array(n)},
                        functional=False).cycles

    assert cycles(2) < cycles(8)


def test_a_non_scalar_value_for_a_scalar_argument_is_refused() -> None:
    bad = {**_inputs(), "x": np.ones(3, np.float32)}
    with pytest.raises(InputError, match=r"input 'x': expected a f32 scalar, got shape \(3,\)"):
        simulate(parse_module(FILL, "fill.mlir"), "default", inputs=bad)


def test_zero_d_arrays_in_an_inputs_archive_are_scalars(capsys, tmp_path: Path) -> None:
    src, npz, out = tmp_path / "fill.mlir", tmp_path / "in.npz", tmp_path / "out.npz"
    src.write_text(FILL)
    np.savez(npz, **_inputs())
    assert main(["run", str(src), "--target", "host", "--inputs", str(npz),
                 "--save", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out)["A"], _expected())
    capsys.readouterr()


@pytest.mark.parametrize("target", ["host", "sim"])
def test_one_element_arrays_in_an_inputs_archive_are_scalars(capsys, tmp_path: Path,
                                                             target: str) -> None:
    # some writers save a scalar as shape (1,): it is the scalar it holds, on both targets
    src, npz, out = tmp_path / "fill.mlir", tmp_path / "in.npz", tmp_path / "out.npz"
    src.write_text(FILL)
    np.savez(npz, **{k: v.reshape(1) if v.ndim == 0 else v for k, v in _inputs().items()})
    assert main(["run", str(src), "--target", target, "--inputs", str(npz),
                 "--save", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out)["A"], _expected())
    capsys.readouterr()


def test_a_one_element_array_is_a_scalar_for_the_host_runtime_too() -> None:
    one = {**_inputs(), "n": np.array([3]), "x": np.array([1.5], np.float32)}
    compile_module(parse_module(FILL, "fill.mlir")).call("fill", one)
    np.testing.assert_array_equal(one["A"], np.array([1.5] * 3 + [0.0] * 5, np.float32))


def test_a_longer_array_in_an_inputs_archive_is_still_refused(capsys, tmp_path: Path) -> None:
    src, npz = tmp_path / "fill.mlir", tmp_path / "in.npz"
    src.write_text(FILL)
    np.savez(npz, **{**_inputs(), "n": np.array([5, 6])})
    assert main(["run", str(src), "--target", "host", "--inputs", str(npz)]) != 0
    assert "input 'n' has shape (2,), expected a index scalar" in capsys.readouterr().err
