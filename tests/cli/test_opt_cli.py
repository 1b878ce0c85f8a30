"""`accelsim opt` as a user runs it: a subprocess, exit codes, stderr format, never a traceback."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

from compiler.text import module_diff, parse_module

ROOT = pathlib.Path(__file__).parents[2]
ACCELSIM = ROOT / ".venv" / "bin" / "accelsim"
KERNELS = ROOT / "tests" / "compiler" / "text" / "kernels"


def accelsim(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [str(ACCELSIM)] if ACCELSIM.exists() else [sys.executable, "-m", "accelsim"]
    proc = subprocess.run([*cmd, *args], input=stdin, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_opt_prints_an_equivalent_module() -> None:
    src = KERNELS / "rowsum_if.mlir"
    proc = accelsim("opt", str(src))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert module_diff(parse_module(src.read_text()), parse_module(proc.stdout)) is None


def test_opt_writes_output_file(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "o.mlir"
    proc = accelsim("opt", str(KERNELS / "gemm.mlir"), "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert parse_module(out.read_text()).funcs[0].sym_name == "gemm"


def test_opt_reads_stdin_and_debug_locs() -> None:
    text = (KERNELS / "vadd.mlir").read_text()
    proc = accelsim("opt", "-", "--debug-locs", stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert '} loc("<stdin>":3:3)' in proc.stdout  # the affine.for of vadd.mlir: line 3, col 3


def test_parse_error_on_stdin_renders_line_and_caret() -> None:
    bad = "func.func @f(%A: memref<4xf32>) {\n  %v = affine.load %A[%i] : memref<4xf32>\n  return\n}\n"
    proc = accelsim("opt", "-", stdin=bad)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "<stdin>:2:23: error: use of undefined SSA value '%i'",
        "  %v = affine.load %A[%i] : memref<4xf32>",
        "                      ^",
    ]


def test_verify_error_in_file(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "rank.mlir"
    src.write_text("func.func @f(%A: memref<4x4xf32>) {\n  affine.for %i = 0 to 4 {\n"
                   "    %v = affine.load %A[%i] : memref<4x4xf32>\n  }\n  return\n}\n")
    proc = accelsim("opt", str(src))
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0] == (f"{src}:3:5: error: 'affine.load' op memref has 1 index(es) but %A of type "
                        f"memref<4x4xf32> has rank 2")
    assert lines[1:] == ["    %v = affine.load %A[%i] : memref<4x4xf32>", "    ^"]


def test_verify_error_on_stdin_still_shows_the_line() -> None:
    bad = "func.func @f(%x: f32) -> index {\n  return %x : f32\n}\n"
    proc = accelsim("opt", "-", stdin=bad)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[1:] == ["  return %x : f32", "  ^"]


def test_unknown_pass_and_unknown_argument_are_clean_errors() -> None:
    proc = accelsim("opt", str(KERNELS / "vadd.mlir"), "--no-such-pass=foo")
    assert proc.returncode == 1
    assert re.match(r"error: unknown pass '--no-such-pass' \(known passes: .*\)", proc.stderr)
    proc = accelsim("opt", str(KERNELS / "vadd.mlir"), "stray")
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: unrecognized argument 'stray'")


def test_missing_input_file() -> None:
    proc = accelsim("opt", "does/not/exist.mlir")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "error: cannot read 'does/not/exist.mlir': No such file or directory"


def test_unknown_op_in_file_is_rendered(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "u.mlir"
    src.write_text("func.func @f() {\n  foo.compute\n  return\n}\n")
    proc = accelsim("opt", str(src))
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (f"{src}:2:3: error: unknown op 'foo.compute' (an op of a "
                                           "dialect accelsim does not model must be written in the "
                                           "generic form, '\"name\"(...)')")


def test_unregistered_op_is_kept_by_opt_and_refused_by_the_host(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "u.mlir"
    src.write_text('func.func @f() {\n  "compute"() {k = 1 : i64} : () -> ()\n  return\n}\n')
    proc = accelsim("opt", str(src))
    assert proc.returncode == 0 and '"compute"() {k = 1 : i64} : () -> ()' in proc.stdout
    proc = accelsim("run", str(src), "--target", "host")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == f"{src}:2:3: error: the host backend cannot lower 'compute'"


def test_pass_flags_run_in_order_when_registered() -> None:
    from compiler.transforms.registry import PASSES

    if "affine-pipeline-data-transfer" not in PASSES:
        pytest.skip("affine-pipeline-data-transfer has not landed yet")
    src = ROOT / "tests" / "compiler" / "text" / "upstream" / "vadd_copy.mlir"
    proc = accelsim("opt", str(src), "--affine-pipeline-data-transfer")
    assert proc.returncode == 0, proc.stderr
    out = parse_module(proc.stdout)
    assert sum(1 for op in out.walk() if op.NAME == "affine.dma_start") >= 2


def test_pass_flags_match_the_pass_manager_in_the_given_order() -> None:
    from compiler.ir.verifier import verify
    from compiler.text import print_module
    from compiler.transforms.registry import PASSES, PassManager

    if not {"affine-loop-tile", "affine-data-copy-generate"} <= set(PASSES):
        pytest.skip("tiling and copy generation have not landed yet")
    src = KERNELS / "gemm.mlir"
    flags = ["--affine-loop-tile=tile-sizes=16,16,16",
             "--affine-data-copy-generate=generate-dma fast-mem-space=1 fast-mem-capacity=16"]
    outputs = []
    for order in (flags, flags[::-1]):
        proc = accelsim("opt", str(src), *order)
        assert proc.returncode == 0, proc.stderr
        module = parse_module(src.read_text(), str(src))
        verify(module)
        PassManager.from_flags(order).run(module)
        assert proc.stdout == print_module(module)
        outputs.append(proc.stdout)
    assert outputs[0] != outputs[1]  # the order given is the order run


def test_list_passes_and_missing_input() -> None:
    from compiler.transforms.registry import PASSES

    proc = accelsim("opt", "--list-passes")
    assert proc.returncode == 0
    listed = re.findall(r"^--([\w-]+)", proc.stdout, re.M)
    assert listed == sorted(PASSES)
    proc = accelsim("opt")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "error: missing INPUT (a .mlir file, or '-' for standard input)"
