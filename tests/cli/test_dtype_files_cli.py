"""`accelsim run --inputs/--save` with the narrow element types (docs/precision.md): bf16 and
fp8 memrefs as their raw bits (uint16/uint8), i4 as int8 in [-8, 7], the numpy types as
themselves; the same output on host and simulator; a wrong dtype is a one-line error naming
the memref and the dtype the file must have."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from accelsim.cli import main

KERNEL = """func.func @k(%X: memref<4x8xbf16>, %W: memref<4x8xi4>, %S: memref<4x8xi16>,
                 %Z: memref<4x8xbf16>, %Q: memref<4x8xf8E4M3FN>, %R: memref<4x8xf8E5M2>,
                 %H: memref<4x8xf16>, %A: memref<4x8xi32>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 {
      %x = affine.load %X[%i, %j] : memref<4x8xbf16>
      %w = affine.load %W[%i, %j] : memref<4x8xi4>
      %s = affine.load %S[%i, %j] : memref<4x8xi16>
      %wf = arith.sitofp %w : i4 to bf16
      %z = arith.mulf %x, %wf : bf16
      affine.store %z, %Z[%i, %j] : memref<4x8xbf16>
      %q = arith.truncf %z : bf16 to f8E4M3FN
      affine.store %q, %Q[%i, %j] : memref<4x8xf8E4M3FN>
      %zf = arith.extf %z : bf16 to f32
      %r = arith.truncf %zf : f32 to f8E5M2
      affine.store %r, %R[%i, %j] : memref<4x8xf8E5M2>
      %h = arith.truncf %zf : f32 to f16
      affine.store %h, %H[%i, %j] : memref<4x8xf16>
      %w32 = arith.extsi %w : i4 to i32
      %s32 = arith.extsi %s : i16 to i32
      %a = arith.muli %w32, %s32 : i32
      affine.store %a, %A[%i, %j] : memref<4x8xi32>
    }
  }
  return
}
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    k = tmp_path / "k.mlir"
    k.write_text(KERNEL)
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, (4, 8)).astype(ml_dtypes.bfloat16)
    arrays = {"X": x.view(np.uint16), "W": rng.integers(-8, 8, (4, 8)).astype(np.int8),
              "S": rng.integers(-30000, 30000, (4, 8)).astype(np.int16),
              "Z": np.zeros((4, 8), np.uint16), "Q": np.zeros((4, 8), np.uint8),
              "R": np.zeros((4, 8), np.uint8), "H": np.zeros((4, 8), np.float16),
              "A": np.zeros((4, 8), np.int32)}
    return k, arrays


@pytest.mark.parametrize("target", ["host", "sim"])
def test_raw_bits_in_and_out(capsys, tmp_path: Path, files, target: str) -> None:
    k, arrays = files
    np.savez(tmp_path / "in.npz", **arrays)
    out = tmp_path / f"out_{target}.npz"
    status, err = _run(capsys, "run", str(k), "--target", target, "--inputs",
                       str(tmp_path / "in.npz"), "--save", str(out))
    assert status == 0, err
    got = np.load(out)
    dtypes = {name: got[name].dtype for name in got.files}
    assert dtypes == {"X": np.uint16, "W": np.int8, "S": np.int16, "Z": np.uint16, "Q": np.uint8,
                      "R": np.uint8, "H": np.float16, "A": np.int32}
    x = arrays["X"].view(ml_dtypes.bfloat16)
    w = arrays["W"]
    z = (x.astype(np.float32) * w.astype(np.float32)).astype(ml_dtypes.bfloat16)
    assert np.array_equal(got["Z"], z.view(np.uint16))
    assert np.array_equal(got["Q"], z.astype(np.float64).astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
    assert np.array_equal(got["R"], z.astype(np.float64).astype(ml_dtypes.float8_e5m2).view(np.uint8))
    assert np.array_equal(got["H"], z.astype(np.float16))
    assert np.array_equal(got["A"], w.astype(np.int32) * arrays["S"].astype(np.int32))
    assert np.array_equal(got["W"], w) and np.array_equal(got["X"], arrays["X"])


@pytest.mark.parametrize(("name", "bad", "message"), [
    ("X", lambda a: a.view(ml_dtypes.bfloat16).astype(np.float32),
     "input 'X' (memref<4x8xbf16>) has dtype float32, expected uint16 (the raw bits of bf16"),
    ("Q", lambda a: a.astype(np.int8),
     "input 'Q' (memref<4x8xf8E4M3FN>) has dtype int8, expected uint8 (the raw bits of f8E4M3FN"),
    ("W", lambda a: a.astype(np.int32),
     "input 'W' (memref<4x8xi4>) has dtype int32, expected int8 (values in [-8, 7])"),
    ("W", lambda a: (a * 0 + 9).astype(np.int8),
     "input 'W' (memref<4x8xi4>) holds 9, outside i4's range [-8, 7]"),
    ("S", lambda a: a.astype(np.int32),
     "input 'S' (memref<4x8xi16>) has dtype int32, expected int16"),
])
def test_wrong_dtype_names_the_memref_and_the_expected_dtype(capsys, tmp_path: Path, files,
                                                             name, bad, message) -> None:
    k, arrays = files
    arrays = dict(arrays, **{name: bad(arrays[name])})
    np.savez(tmp_path / "in.npz", **arrays)
    status, err = _run(capsys, "run", str(k), "--inputs", str(tmp_path / "in.npz"))
    assert status == 1
    assert message in err and err.count("\n") == 1, err
