"""Bad input to `accelsim run` is a clear one-line error and a non-zero exit, never a
traceback, and it is refused before anything runs (issue 14, "Tracebacks where a clear error
belongs")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accelsim.cli import main

SPEC = "gemm:M=8,N=8,K=8"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse errors exit 2
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, err


def test_non_utf8_config_names_the_file_and_the_byte(capsys, tmp_path: Path) -> None:
    cfg = tmp_path / "latin1.toml"
    cfg.write_bytes(b'name = "caf\xe9"\n')
    status, err = _run(capsys, "run", SPEC, "--target", "sim", "--config", str(cfg))
    assert status == 1
    assert f"{cfg}: not UTF-8 text (byte 0xe9 at offset 11)" in err


@pytest.mark.parametrize(("content", "reason"), [
    (b"", "the file is empty"),
    (b"not a numpy file", "not an .npz archive"),
    (b"PK\x03\x04truncated zip", "cannot read inputs from"),
])
def test_unreadable_inputs_file(capsys, tmp_path: Path, content: bytes, reason: str) -> None:
    npz = tmp_path / "in.npz"
    npz.write_bytes(content)
    status, err = _run(capsys, "run", SPEC, "--target", "host", "--inputs", str(npz))
    assert status == 1
    assert reason in err and str(npz) in err


def test_a_truncated_archive_is_refused(capsys, tmp_path: Path) -> None:
    good = tmp_path / "good.npz"
    np.savez(good, A=np.ones((8, 8), np.float32), B=np.ones((8, 8), np.float32),
             C=np.zeros((8, 8), np.float32))
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    status, err = _run(capsys, "run", SPEC, "--target", "host", "--inputs", str(cut))
    assert status == 1 and f"cannot read inputs from {cut}" in err


def test_a_bare_npy_array_is_not_an_archive(capsys, tmp_path: Path) -> None:
    npy = tmp_path / "a.npy"
    np.save(npy, np.zeros(3))
    status, err = _run(capsys, "run", SPEC, "--target", "host", "--inputs", str(npy))
    assert status == 1 and "a single array (.npy)" in err


@pytest.mark.parametrize("option", ["--timeline", "--roofline"])
def test_unknown_figure_format_is_refused_before_the_run(capsys, tmp_path: Path,
                                                          option: str) -> None:
    out = tmp_path / "fig.bmp"
    status, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing-only", option, str(out))
    assert status == 1
    assert f"{option} {out}: unknown figure format 'bmp'" in err and "png" in err
    assert "cycles" not in err and not out.exists()


def test_negative_seed_is_an_argument_error(capsys) -> None:
    status, err = _run(capsys, "run", SPEC, "--target", "host", "--seed", "-1")
    assert status == 2 and "argument --seed: -1 is not in [0, 2**32 - 1]" in err


def test_save_to_an_existing_directory_is_refused_before_the_run(capsys, tmp_path: Path) -> None:
    d = tmp_path / "outdir"
    d.mkdir()
    status, err = _run(capsys, "run", SPEC, "--target", "host", "--save", str(d))
    assert status == 1 and f"--save {d}: is a directory" in err
    assert not Path(f"{d}.npz").exists()


@pytest.mark.parametrize("option", [["--timeline", "t.png"], ["--trace", "t.json"],
                                    ["--roofline", "r.svg"], ["--timing-only"]])
def test_sim_only_options_on_the_host_target_are_refused(capsys, option: list[str]) -> None:
    status, err = _run(capsys, "run", SPEC, "--target", "host", *option)
    assert status == 1 and f"{option[0]}: only --target sim reads this" in err


def test_a_module_without_functions_says_so(capsys, tmp_path: Path) -> None:
    f = tmp_path / "empty.mlir"
    f.write_text("module {\n}\n")
    for target in ("host", "sim"):
        status, err = _run(capsys, "run", str(f), "--target", target)
        assert status == 1
        assert "the module defines no function to run" in err and "several" not in err


OFF_BY_ONE = """func.func @f(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %A[%i, %j + 1] : memref<8x8xf32>
      affine.store %v, %B[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
"""


@pytest.mark.parametrize("how", [[], ["--timing-only"], ["--affine-loop-tile=tile-sizes=4,4"],
                                 ["--as-is"]])
def test_an_out_of_bounds_input_is_an_error_on_every_sim_path(capsys, tmp_path: Path,
                                                              how: list[str]) -> None:
    """The pipeline's copies clip to the memref: the read of A[., 8] used to vanish."""
    src = tmp_path / "oob.mlir"
    src.write_text(OFF_BY_ONE)
    status, err = _run(capsys, "run", str(src), "--target", "sim", *how)
    assert status == 1, err
    assert f"{src}:4:7" in err and "outside memref<8x8xf32>" in err and "A[0, 8]" in err


def test_an_out_of_bounds_input_is_an_error_on_the_host(capsys, tmp_path: Path) -> None:
    src = tmp_path / "oob.mlir"
    src.write_text(OFF_BY_ONE)
    status, err = _run(capsys, "run", str(src), "--target", "host")
    assert status == 1 and f"{src}:4:7: error:" in err and "index 8 of dimension 1" in err
