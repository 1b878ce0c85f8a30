"""Memref shapes at the edges (issue 14): a zero extent is valid MLIR (`memref<0xf32>`, lexed
as a hex literal before); `index` elements parse; a shape too large to hold is a clear error
naming the argument and its size on every target that needs data, while a timing-only
simulation of it runs (it moves no data)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accelsim import simulate
from accelsim.cli import main
from accelsim.errors import InputError
from compiler.backend import run_host
from compiler.text import parse_module, print_module

HUGE = "memref<99999999999x99999999999xf32>"


def _file(tmp_path: Path, arg_type: str, body: str = "") -> Path:
    p = tmp_path / "m.mlir"
    p.write_text(f"func.func @f(%A: {arg_type}) {{\n{body}  return\n}}\n")
    return p


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


@pytest.mark.parametrize("t", ["memref<0xf32>", "memref<4x0x3xf32>", "memref<8xindex>",
                               "memref<0x?xf64, 1>"])
def test_types_parse_and_print_back(t: str) -> None:
    module = parse_module(f"func.func @f(%A: {t}) {{\n  return\n}}\n", "m.mlir")
    assert str(module.funcs[0].args[0].type) == t
    assert print_module(parse_module(print_module(module))) == print_module(module)


def test_a_bad_dimension_is_still_a_located_error() -> None:
    from compiler.diagnostics import ParseError

    with pytest.raises(ParseError, match=r"invalid memref dimension 'a' in '4xax3xf32'"):
        parse_module("func.func @f(%A: memref<4xax3xf32>) {\n  return\n}\n", "m.mlir")


def test_a_zero_extent_memref_runs_on_both_targets(capsys, tmp_path: Path) -> None:
    loop = ("  affine.for %i = 0 to 0 {\n    %v = affine.load %A[%i] : memref<0xf32>\n"
            "    affine.store %v, %A[%i] : memref<0xf32>\n  }\n")
    path = _file(tmp_path, "memref<0xf32>", loop)
    for target in ("host", "sim"):
        status, _, err = _run(capsys, "run", str(path), "--target", target)
        assert status == 0, err
    out_arrays = run_host(parse_module(path.read_text(), "m.mlir"), {"A": np.zeros(0, np.float32)})
    assert out_arrays["A"].shape == (0,)


@pytest.mark.parametrize("target", [["host"], ["sim"]])
def test_a_shape_too_large_to_hold_is_refused_naming_it(capsys, tmp_path: Path,
                                                        target: list[str]) -> None:
    status, _, err = _run(capsys, "run", str(_file(tmp_path, HUGE)), "--target", *target)
    assert status == 1
    assert f"argument %A: {HUGE} alone 39,999,999,999,200,000,000,004 bytes" in err
    assert "more than this machine's memory" in err


def test_a_timing_only_run_of_a_huge_shape_needs_no_data(capsys, tmp_path: Path) -> None:
    status, _, err = _run(capsys, "run", str(_file(tmp_path, HUGE)), "--target", "sim",
                            "--timing-only", "--json")
    assert status == 0, err


def test_the_python_api_refuses_a_huge_functional_run() -> None:
    module = parse_module(f"func.func @f(%A: {HUGE}) {{\n  return\n}}\n", "m.mlir")
    with pytest.raises(InputError, match=r"argument %A: memref<99999999999x99999999999xf32> "
                                         r"needs 39,999,999,999,200,000,000,004 bytes"):
        simulate(module, "default")
    assert simulate(module, "default", functional=False).cycles >= 0


def test_an_allocation_too_large_is_a_located_simulation_error() -> None:
    from accelsim.errors import SimulationError

    src = (f"func.func @f() {{\n  %b = memref.alloc() : {HUGE}\n"
           f"  memref.dealloc %b : {HUGE}\n  return\n}}\n")
    with pytest.raises(SimulationError, match=r"memref.alloc of b: .* needs") as e:
        simulate(parse_module(src, "m.mlir"), "default", outline=False)
    assert e.value.loc.line == 2


def test_no_bounds_check_is_a_host_option(capsys) -> None:
    status, _, err = _run(capsys, "run", "gemm:M=8,N=8,K=8", "--target", "sim",
                          "--no-bounds-check")
    assert status == 1 and "--no-bounds-check: only --target host reads this" in err


@pytest.mark.parametrize(("where", "text"), [
    ("a loop bound", "  affine.for %i = 0 to 18446744073709551616 {\n  }\n"),
    ("an index", "  %v = affine.load %A[18446744073709551616] : memref<4xf32>\n"),
    ("an affine expression", "  affine.for %i = 0 to 4 {\n"
                             "    %v = affine.load %A[%i + 18446744073709551616] : memref<4xf32>\n  }\n"),
    ("an index constant", "  %c = arith.constant 18446744073709551616 : index\n"),
])
def test_integer_literals_past_64_bits_are_refused(capsys, tmp_path: Path, where: str,
                                                   text: str) -> None:
    status, _, err = _run(capsys, "opt", str(_file(tmp_path, "memref<4xf32>", text)))
    assert status == 1, where
    assert "18446744073709551616 does not fit in" in err and "m.mlir:" in err


def test_an_empty_loop_of_trillions_of_iterations_compiles_and_runs(capsys, tmp_path: Path) -> None:
    """The cache model's tile size for it was found by trying every divisor (it hung)."""
    path = _file(tmp_path, "memref<4xf32>", "  affine.for %i = 0 to 4000000000000 {\n  }\n")
    for target in (["sim"], ["sim", "--as-is"], ["host"]):
        status, _, err = _run(capsys, "run", str(path), "--target", *target)
        assert status == 0, (target, err)


def _nested_loops(n: int) -> str:
    head = "".join("  " * (k + 1) + f"affine.for %i{k} = 0 to 1 {{\n" for k in range(n))
    body = "  " * (n + 1) + "%v = affine.load %A[%i0] : memref<4xf32>\n"
    body += "  " * (n + 1) + "affine.store %v, %A[%i0] : memref<4xf32>\n"
    return head + body + "".join("  " * (n - k) + "}\n" for k in range(n))


def _parenthesized(n: int) -> str:
    return ("  affine.for %i = 0 to 4 {\n    %v = affine.load %A[" + "(" * n + "%i" + ")" * n
            + "] : memref<4xf32>\n    affine.store %v, %A[%i] : memref<4xf32>\n  }\n")


@pytest.mark.parametrize(("body", "message"), [
    (_nested_loops(600), "regions nested more than 128 deep (a limit of accelsim)"),
    (_parenthesized(600), "affine expression nested more than 100 deep (a limit of accelsim)"),
])
def test_nesting_past_the_limits_is_a_located_error(capsys, tmp_path: Path, body: str,
                                                    message: str) -> None:
    status, _, err = _run(capsys, "opt", str(_file(tmp_path, "memref<4xf32>", body)))
    assert status == 1 and message in err and "m.mlir:" in err


@pytest.mark.parametrize("body", [_nested_loops(126), _parenthesized(99)])
def test_nesting_just_under_the_limits_runs_on_both_targets(capsys, tmp_path: Path,
                                                            body: str) -> None:
    path = _file(tmp_path, "memref<4xf32>", body)
    for target in (["host"], ["sim", "--as-is"]):
        status, _, err = _run(capsys, "run", str(path), "--target", *target)
        assert status == 0, (target, err)
