"""What the host backend refuses or stops on, each a located error (issue 14): integer
division by zero or overflow at run time; integer literals outside their type, recursion and
nesting deeper than the documented limit before lowering."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from compiler.backend import IntegerDivisionError, LoweringError, compile_module
from compiler.backend.preflight import MAX_NESTING
from compiler.diagnostics import ParseError
from compiler.ir import F32, I32, I64, INDEX, Builder, memref
from compiler.text import parse_module

ROOT = Path(__file__).resolve().parents[3]


def _divide(op: str, t: str) -> str:
    return f"""\
module {{
  func.func @f(%A: memref<4x{t}>, %d: {t}) {{
    affine.for %i = 0 to 4 {{
      %v = affine.load %A[%i] : memref<4x{t}>
      %q = {op} %v, %d : {t}
      affine.store %q, %A[%i] : memref<4x{t}>
    }}
    return
  }}
}}
"""


@pytest.mark.parametrize("op", ["arith.divsi", "arith.remsi"])
@pytest.mark.parametrize("t,dtype", [("i32", np.int32), ("i64", np.int64)])
def test_division_by_zero_is_a_located_error(op, t, dtype):
    compiled = compile_module(parse_module(_divide(op, t), "div.mlir"))
    a = np.array([7, 8, 9, 10], dtype)
    with pytest.raises(IntegerDivisionError) as err:
        compiled.call("f", [a, 0])
    assert str(err.value) == f"div.mlir:5:7: error: {op}: integer division by zero in %v, %d (dividend 7)"
    compiled.call("f", [a, 2])  # and a nonzero divisor divides
    assert a.tolist() == ([3, 4, 4, 5] if op == "arith.divsi" else [1, 0, 1, 0])


@pytest.mark.parametrize("op", ["arith.divsi", "arith.remsi"])
@pytest.mark.parametrize("t", ["i32", "i64"])
def test_min_over_minus_one_is_an_error_not_sigfpe(tmp_path, op, t):
    """x86 traps on MIN / -1 (and MIN % -1): the process used to die with SIGFPE."""
    path = tmp_path / "div.mlir"
    path.write_text(_divide(op, t))
    code = textwrap.dedent(f"""
        import numpy as np
        from compiler.backend import compile_module
        from compiler.text import parse_file
        try:
            from compiler.backend import IntegerDivisionError
        except ImportError:  # a tree without it (the test then shows what happens there)
            IntegerDivisionError = ArithmeticError
        compiled = compile_module(parse_file({str(path)!r}))
        a = np.array([np.iinfo(np.{t.replace('i', 'int')}).min] * 4, np.{t.replace('i', 'int')})
        try:
            compiled.call("f", [a, -1])
        except IntegerDivisionError as exc:
            print(exc)
    """)
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    bits = int(t[1:])
    assert run.stdout.strip() == (f"{path}:5:7: error: {op}: integer division overflow in %v, %d: "
                                  f"{-(1 << (bits - 1))} / -1 does not fit in {t}")


def test_constant_zero_divisor_stops_when_reached():
    b = Builder()
    with b.func("k", x=memref((4,), I32)) as (x,):
        zero = b.constant(0, I32)
        for i in b.range(4):
            x[i] = x[i] / zero
    with pytest.raises(IntegerDivisionError, match="division by zero"):
        compile_module(b.module).call("k", [np.ones(4, np.int32)])


@pytest.mark.parametrize("kind", ["floordiv", "ceildiv", "mod"])
def test_affine_division_by_a_zero_symbol_is_a_located_error(kind):
    """`d0 floordiv s0` with s0 = 0 used to divide by 1 (garbage)."""
    text = f"""\
module {{
  func.func @f(%A: memref<8xi64>, %n: index) {{
    affine.for %i = 0 to 8 {{
      %q = affine.apply affine_map<(d0)[s0] -> (d0 {kind} s0)>(%i)[%n]
      %c = arith.index_cast %q : index to i64
      affine.store %c, %A[%i] : memref<8xi64>
    }}
    return
  }}
}}
"""
    compiled = compile_module(parse_module(text, "a.mlir"))
    a = np.zeros(8, np.int64)
    compiled.call("f", [a, 3])
    py = {"floordiv": lambda i: i // 3, "ceildiv": lambda i: -(-i // 3), "mod": lambda i: i % 3}[kind]
    assert a.tolist() == [py(i) for i in range(8)]
    with pytest.raises(IntegerDivisionError) as err:
        compiled.call("f", [a, 0])
    assert str(err.value) == (f"a.mlir:4:7: error: affine.apply: integer division by zero in "
                              f"the affine expression d0 {kind} s0 (dividend 0)")


@pytest.mark.parametrize("text,where,message", [
    ("%c = arith.constant 18446744073709551617 : index", "3:25",
     "integer constant 18446744073709551617 does not fit in index"),
    ("affine.store %c, %A[%i + 18446744073709551617] : memref<4xi64>", "5:32",
     "integer literal 18446744073709551617 does not fit in 64 bits"),
    ("affine.store %c, %A[%i - 9223372036854775809] : memref<4xi64>", "5:32",
     "integer literal 9223372036854775809 does not fit in 64 bits"),
])
def test_integer_literals_that_would_wrap_are_refused(text, where, message):
    """They used to wrap silently on the host (2^64 + 1 became 1); the parser now refuses them
    at the literal (the backend's own refusal, for IR built in Python, is tested below)."""
    body = ["%c = arith.constant 3 : i64", "affine.store %c, %A[%i] : memref<4xi64>"]
    if text.startswith("%c"):
        body[0] = text
        body[1] = "affine.store %c, %A[%i] : memref<4xi64>"
    else:
        body[1] = text
    source = f"""\
module {{
  func.func @f(%A: memref<4xi64>) {{
    {body[0]}
    affine.for %i = 0 to 4 {{
      {body[1]}
    }}
    return
  }}
}}
"""
    with pytest.raises(ParseError) as err:
        parse_module(source, "lit.mlir")
    assert str(err.value).startswith(f"lit.mlir:{where}: error: {message}")


def test_a_literal_that_would_wrap_in_ir_built_in_python_is_refused_before_lowering():
    from compiler.ir import I64, Builder, memref

    b = Builder()
    with b.func("f", A=memref((4,), I64)) as (A,):
        for i in b.range(4):
            A[i + (1 << 64)] = A[i]
    with pytest.raises(LoweringError, match=r"integer literal 18446744073709551616 in the map of "
                                            r"'affine.store' does not fit in index"):
        compile_module(b.module)


def test_loop_bound_literal_outside_index_is_refused():
    source = """\
module {
  func.func @f(%A: memref<4xi64>) {
    %c = arith.constant 3 : i64
    affine.for %i = 18446744073709551616 to 18446744073709551620 {
      affine.store %c, %A[%i - 18446744073709551616] : memref<4xi64>
    }
    return
  }
}
"""
    with pytest.raises(ParseError, match=r"lit.mlir:4:21: error: integer literal 18446744073709551616 "
                                          r"does not fit in 64 bits"):
        parse_module(source, "lit.mlir")


RECURSIVE = """\
module {
  func.func @f(%A: memref<4xf32>) {
    call @g(%A) : (memref<4xf32>) -> ()
    return
  }
  func.func @g(%A: memref<4xf32>) {
    call @h(%A) : (memref<4xf32>) -> ()
    return
  }
  func.func @h(%A: memref<4xf32>) {
    call @f(%A) : (memref<4xf32>) -> ()
    return
  }
}
"""


def test_recursion_is_refused_naming_the_cycle():
    """A call cycle ran forever natively (the tail calls become a loop)."""
    with pytest.raises(LoweringError) as err:
        compile_module(parse_module(RECURSIVE, "rec.mlir"))
    assert str(err.value).startswith("rec.mlir:11:5: error: recursive call: @f -> @g -> @h -> @f;")


def test_self_recursion_is_refused():
    b = Builder()
    with b.func("k", x=memref((4,), F32), n=INDEX) as (x, n):
        b.call("k", [x, n])
    with pytest.raises(LoweringError, match=r"recursive call: @k -> @k"):
        compile_module(b.module)


def _nest(depth: int):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("k", x=memref((2,), I64)) as (x,):
        def nest(d: int) -> None:
            if d == depth:
                x[0] = x[0] + 1
                return
            for _ in b.range(2 if d < 3 else 1):
                nest(d + 1)
        nest(0)
    return b.module


def test_nesting_up_to_the_limit_compiles_and_runs():
    x = np.zeros(2, np.int64)
    compile_module(_nest(MAX_NESTING)).call("k", [x])
    assert x[0] == 8


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 200, 600])
def test_nesting_past_the_limit_is_a_located_error_not_recursion_error(depth):
    """200 nested loops raised RecursionError from the lowering; 600 from the hash too."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * depth + 200))  # only to build the IR in Python
    try:
        module = _nest(depth)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(LoweringError, match=f"nests regions {MAX_NESTING + 1} deep in @k; the host backend "
                                            f"lowers at most {MAX_NESTING} nested"):
        compile_module(module)


def test_code_without_checks_keeps_the_plain_calling_convention():
    """No status record unless a check can fire: the simulator's kernels cost what they did."""
    from compiler.backend import lower_module

    plain = _divide("arith.divsi", "i32").replace("%q = arith.divsi %v, %d : i32",
                                                  "%q = arith.addi %v, %d : i32")
    assert '"status"' not in str(lower_module(parse_module(plain)))
    assert '"status"' in str(lower_module(parse_module(_divide("arith.divsi", "i32"))))
    b = Builder()
    with b.func("k", x=memref((4,), I32)) as (x,):
        three = b.constant(3, I32)
        for i in b.range(4):
            x[i] = x[i] / three  # a nonzero constant divisor other than -1: nothing to check
    assert '"status"' not in str(lower_module(b.module))
