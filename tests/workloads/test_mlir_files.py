"""The committed workloads/mlir/*.mlir files: up to date, accepted upstream, re-parseable."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

import workloads
from compiler.text import parse_file, parse_module, print_module

MLIR_DIR = Path(workloads.__file__).resolve().parent / "mlir"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("workloads_mlir_generate", MLIR_DIR / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generator()


def test_committed_files_match_the_generator(tmp_path: Path) -> None:
    written = generate.generate(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{n}.mlir" for n in workloads.names())
    committed = sorted(p.name for p in MLIR_DIR.glob("*.mlir"))
    assert committed == sorted(p.name for p in written), "run: python workloads/mlir/generate.py"
    for path in written:
        assert (MLIR_DIR / path.name).read_text() == path.read_text(), (
            f"{path.name} is stale; run: python workloads/mlir/generate.py")
    assert generate.stale_files(MLIR_DIR) == []


def test_check_mode_reports_a_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generate.generate(tmp_path)
    assert generate.main(["--check", "--out", str(tmp_path)]) == 0
    victim = tmp_path / "gemm.mlir"
    victim.write_text(victim.read_text().replace("256", "255", 1))
    assert generate.main(["--check", "--out", str(tmp_path)]) == 1
    assert "gemm.mlir" in capsys.readouterr().err


@pytest.mark.parametrize("name", workloads.names())
def test_file_reparses_to_the_same_module(name: str) -> None:
    w = workloads.get(name)
    parsed = parse_file(str(MLIR_DIR / f"{name}.mlir"))
    assert print_module(parsed) == print_module(w.module())
    func = parsed.lookup(w.func_name)
    assert func is not None and func.arg_names() == list(w.arg_types())


@pytest.mark.mlir_opt
@pytest.mark.parametrize("name", workloads.names())
def test_upstream_mlir_opt_accepts_the_file_and_we_read_its_output(name: str, mlir_opt: str) -> None:
    path = MLIR_DIR / f"{name}.mlir"
    proc = subprocess.run([mlir_opt, str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    reparsed = parse_module(proc.stdout, filename=f"mlir-opt:{path.name}")
    w = workloads.get(name)
    func = w.func(w.module())
    upstream = reparsed.lookup(func.sym_name)
    assert upstream is not None
    assert upstream.function_type == func.function_type
    kinds = [op.NAME for op in upstream.walk()]
    assert kinds == [op.NAME for op in func.walk()], "mlir-opt printed the same ops in the same order"
