"""`accelsim run ... --target host` end to end, through `accelsim.cli.main`."""

import hashlib
import json

import numpy as np
import pytest

import workloads
from accelsim.cli import main
from compiler.ir import F32, Builder, memref
from compiler.text import print_module

N = 12


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def axpy_file(tmp_path):
    """y[i] = x[i] * 3 + y[i], printed as MLIR (arguments keep their names %x, %y)."""
    b = Builder()
    with b.func("axpy", x=memref((N,), F32), y=memref((N,), F32)) as (x, y):
        for i in b.range(N):
            y[i] = x[i] * 3.0 + y[i]
    path = tmp_path / "axpy.mlir"
    path.write_text(print_module(b.module))
    return path


def test_workload_spec_json_report_matches_reference_and_saved_arrays(capsys, tmp_path):
    spec = "gemm:M=9,N=7,K=5"
    out_npz = tmp_path / "out.npz"
    status, out, _ = _run(capsys, "run", spec, "--target", "host", "--json", "--seed", "3",
                          "--save", str(out_npz), "--check")
    assert status == 0
    report = json.loads(out)
    for key in ("target", "func", "wall_seconds", "compile_seconds", "outputs"):
        assert key in report
    assert report["target"] == "host" and report["func"] == "gemm" and report["check"]["ok"]
    w = workloads.get(spec)
    ins = w.random_inputs(3)
    ref = w.reference(ins)["C"]
    saved = np.load(out_npz)
    assert sorted(saved.files) == ["A", "B", "C"]
    np.testing.assert_allclose(saved["C"], ref, rtol=w.rtol, atol=w.atol)
    np.testing.assert_array_equal(saved["A"], ins["A"])
    c = report["outputs"]["C"]
    assert c["shape"] == [9, 7] and c["dtype"] == "float32"
    assert c["sha256"] == hashlib.sha256(saved["C"].tobytes()).hexdigest()
    assert c["sum"] == pytest.approx(float(saved["C"].astype(np.float64).sum()))


def test_seed_is_deterministic(capsys):
    runs = [json.loads(_run(capsys, "run", "vector_add:N=100", "--json", "--seed", s)[1])
            for s in ("1", "1", "2")]
    sha = [r["outputs"]["z"]["sha256"] for r in runs]
    assert sha[0] == sha[1] != sha[2]


def test_mlir_file_with_named_and_positional_npz_keys(capsys, tmp_path, axpy_file):
    x = np.arange(N, dtype=np.float32)
    y = np.ones(N, np.float32)
    for keys in (("x", "y"), ("arg0", "arg1"), ("arg0", "y")):
        npz = tmp_path / "in.npz"
        np.savez(npz, **{keys[0]: x, keys[1]: y})
        out_npz = tmp_path / "out.npz"
        status, _, err = _run(capsys, "run", str(axpy_file), "--inputs", str(npz), "--save", str(out_npz))
        assert status == 0, err
        saved = np.load(out_npz)
        np.testing.assert_array_equal(saved["y"], x * 3 + 1)
        np.testing.assert_array_equal(saved["x"], x)


@pytest.mark.parametrize("inputs,fragment", [
    ({"x": np.zeros(N, np.float32)}, "'y'"),                                              # missing
    ({"x": np.zeros(N, np.float32), "y": np.zeros(N, np.float32), "z": np.zeros(1)}, "'z'"),  # extra
    ({"x": np.zeros(N + 1, np.float32), "y": np.zeros(N, np.float32)}, "'x'"),            # shape
    ({"x": np.zeros(N, np.float64), "y": np.zeros(N, np.float32)}, "'x'"),                # dtype
    ({"x": np.zeros(N, np.float32), "arg1": np.zeros(N, np.float32), "y": np.zeros(N, np.float32)},
     "twice"),
], ids=["missing", "extra", "shape", "dtype", "twice"])
def test_bad_inputs_are_clean_errors_naming_the_key(capsys, tmp_path, axpy_file, inputs, fragment):
    npz = tmp_path / "in.npz"
    np.savez(npz, **inputs)
    status, out, err = _run(capsys, "run", str(axpy_file), "--inputs", str(npz))
    assert status == 1 and out == ""
    assert err.startswith("error:") and fragment in err and "Traceback" not in err


def test_unknown_target_function_and_input(capsys, axpy_file):
    status, _, err = _run(capsys, "run", str(axpy_file), "--target", "fpga")
    assert status == 1 and "unknown target 'fpga'" in err and "host" in err
    status, _, err = _run(capsys, "run", str(axpy_file), "--func", "nope")
    assert status == 1 and "@nope" in err and "@axpy" in err
    status, _, err = _run(capsys, "run", "nosuchkernel:N=3")
    assert status == 1 and "gemm" in err  # lists the known workloads
    status, _, err = _run(capsys, "run", str(axpy_file), "--bogus-flag")
    assert status == 1 and "--bogus-flag" in err


def test_parse_errors_point_at_the_line(capsys, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %0 = arith.constant : f32\n}\n")
    status, _, err = _run(capsys, "run", str(bad))
    assert status == 1 and f"{bad}:2:" in err


def test_text_report_and_scalar_result(capsys, tmp_path):
    b = Builder()
    with b.func("total", results=[F32], x=memref((4,), F32)) as (x,):
        b.ret([x[0] + x[3]])
    path = tmp_path / "total.mlir"
    path.write_text(print_module(b.module))
    npz = tmp_path / "in.npz"
    np.savez(npz, x=np.array([1, 2, 3, 4], np.float32))
    status, out, _ = _run(capsys, "run", str(path), "--inputs", str(npz))
    assert status == 0 and "target host" in out and "func @total" in out and "result: 5.0" in out


def test_shipped_mlir_file_and_workload_spec_agree(capsys):
    """workloads/mlir/gemm.mlir (parsed) and the gemm builder at the same size, same seed:
    both input generators draw the same arrays, so the outputs must be bit-identical."""
    import pathlib

    path = pathlib.Path(workloads.__file__).parent / "mlir" / "gemm.mlir"
    spec = path.read_text().splitlines()[1].split("spec: ")[1]
    from_file = json.loads(_run(capsys, "run", str(path), "--json", "--seed", "4")[1])
    from_spec = json.loads(_run(capsys, "run", spec, "--json", "--seed", "4")[1])
    assert from_file["outputs"]["C"]["sha256"] == from_spec["outputs"]["C"]["sha256"]
