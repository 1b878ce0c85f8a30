"""`accelsim run --target host`: bounds-checked by default for `--check` and `.mlir` input,
`--no-bounds-check` turns it off (issue 14)."""

import json

import pytest

from accelsim.cli import main

OFF_BY_ONE = """\
module {
  func.func @f(%A: memref<4xf32>, %B: memref<4xf32>) {
    affine.for %i = 0 to 4 {
      %v = affine.load %A[%i + 1] : memref<4xf32>
      affine.store %v, %B[%i] : memref<4xf32>
    }
    return
  }
}
"""

IN_BOUNDS = OFF_BY_ONE.replace("%A[%i + 1]", "%A[%i]")


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_mlir_input_is_bounds_checked_and_the_error_is_located(capsys, tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(OFF_BY_ONE)
    status, out, err = _run(capsys, "run", str(path))
    assert status == 1 and out == ""
    assert err.startswith(f"{path}:4:7: error: affine.load from %A (memref<4xf32>) out of bounds: "
                          "index 4 of dimension 0 not in [0, 3]")
    assert "%v = affine.load %A[%i + 1]" in err and "Traceback" not in err


@pytest.mark.parametrize("argv,checked", [
    (["IN.mlir"], True),
    (["IN.mlir", "--no-bounds-check"], False),
    (["vector_add:N=64"], False),
    (["vector_add:N=64", "--check"], True),
    (["vector_add:N=64", "--check", "--no-bounds-check"], False),
])
def test_when_the_checks_are_on(capsys, tmp_path, argv, checked):
    path = tmp_path / "k.mlir"
    path.write_text(IN_BOUNDS)
    argv = [str(path) if a == "IN.mlir" else a for a in argv]
    status, out, err = _run(capsys, "run", *argv, "--json")
    assert status == 0, err
    assert json.loads(out)["bounds_check"] is checked
