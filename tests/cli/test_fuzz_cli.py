"""Fuzzing the whole front door: seeded mutants of `workloads/mlir/*.mlir` through
`accelsim opt` and `accelsim run --target sim`. Each run ends in success or a located, one-line
error with exit status 1: never a traceback (an exception escaping `main`), never a hang.

`make test` runs a few hundred cases; `pytest -m slow tests/cli/test_fuzz_cli.py` runs
thousands. A failure prints the seed and the mutant, so it replays exactly.
"""

from __future__ import annotations

import random
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from accelsim.cli import main

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "workloads" / "mlir").glob("*.mlir"))
CASE_SECONDS = 20  # a case running longer than this is a hang

SNIPPETS = [
    "%", "%arg0", "%0", "(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", "->", "-", "*",
    " floordiv ", " ceildiv ", " mod ", "0", "-1", "1.5", "0x7F", "f32", "f64", "i32", "index",
    "memref<4xf32>", "memref<0xf32>", "memref<?x4xf32>", "memref<4x4xf32, 1>", "affine.for",
    "affine.if", "affine.yield", "affine.apply", "affine.min", "symbol(", "#map", "loc(", "\"",
    "max ", "step 0", "step 3", "iter_args(", "affine_map<(d0) -> (d0)>",
    "affine_set<(d0) : (d0 >= 0)>", "\n", "^bb0:", "return", "func.func", "module {", "@f", "?",
    "x", "i1", "true", "99999999999", "18446744073709551616", "4000000000000", "arith.divsi",
    "arith.constant 0 : index", "memref.alloc()", "memref.dealloc", "affine.dma_start",
    "affine.dma_wait", "func.call @gemm", "(((((((((((((((((((((((((",
]

# extents (also inside `256x256`), bounds and constants; not SSA, map or symbol names, not f32
_NUMBER = re.compile(r"(?<![%#@^A-Za-wyz0-9_])(\d{2,})(?![\d.])")
_ANY_NUMBER = re.compile(r"(?<![%#@^\w.])-?\d+\b(?!\.)")
_ARG = re.compile(r"%arg\d+")
NUMBERS = ["0", "1", "-1", "2", "3", "7", "64", "-5", "1000000", "99999999999",
           "18446744073709551616", "4000000000000"]
OP_SWAPS = [("arith.addf", "arith.divf"), ("arith.mulf", "arith.subf"), ("arith.addf", "arith.maximumf"),
            ("affine.load", "affine.store"), ("mulf", "addi"), ("f32", "f64"), ("f32", "i32"),
            ("min", "max"), ("affine.for", "affine.parallel"), ("memref<", "memref<2x")]


def _small(text: str) -> str:
    """Shrink every extent and bound of 10 or more to a small number (the same one each time),
    so that a mutant that still makes sense simulates in milliseconds."""
    return _NUMBER.sub(lambda m: str(4 + int(m.group(1)) % 5), text)


def mutant(seed: int) -> str:
    rng = random.Random(seed)
    text = _small(rng.choice(SOURCES).read_text())
    for _ in range(rng.randint(1, 3)):
        pos = rng.randint(0, len(text))
        kind = rng.choice(["insert", "delete", "replace", "dup-line", "swap-lines",
                           "number", "number", "operand", "operand", "op"])
        if kind == "number":  # keeps the syntax: another bound, extent, offset or constant
            spots = list(_ANY_NUMBER.finditer(text))
            if spots:
                m = rng.choice(spots)
                text = text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
        elif kind == "operand":  # another induction variable in an index or a bound
            spots = list(_ARG.finditer(text))
            if spots:
                m, other = rng.choice(spots), rng.choice(spots)
                text = text[:m.start()] + other.group() + text[m.end():]
        elif kind == "op":
            a, b = rng.choice(OP_SWAPS)
            spots = [m.start() for m in re.finditer(re.escape(a), text)]
            if spots:
                at = rng.choice(spots)
                text = text[:at] + b + text[at + len(a):]
        elif kind == "delete":
            text = text[:pos] + text[pos + rng.randint(1, 16):]
        elif kind in ("insert", "replace"):
            cut = rng.randint(0, 8) if kind == "replace" else 0
            text = text[:pos] + rng.choice(SNIPPETS) + text[pos + cut:]
        else:
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == "dup-line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


@contextmanager
def time_limit(seconds: int, what: str) -> Iterator[None]:
    def hang(signum: int, frame: object) -> None:
        raise TimeoutError(f"hang: {what} ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _outcome(capsys: pytest.CaptureFixture[str], argv: list[str], seed: int, text: str) -> int:
    with time_limit(CASE_SECONDS, f"seed {seed}: accelsim {' '.join(argv)}"):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse
            status = int(exc.code or 0)
        except Exception as exc:  # a traceback the user would see
            raise AssertionError(f"seed {seed}: accelsim {' '.join(argv)} raised "
                                 f"{type(exc).__name__}: {exc}\n--- mutant ---\n{text}") from exc
    _, err = capsys.readouterr()
    assert status in (0, 1), f"seed {seed}: exit {status}\n{err}\n--- mutant ---\n{text}"
    if status == 1:
        message = err.strip().splitlines()
        assert message, f"seed {seed}: exit 1 with no message\n--- mutant ---\n{text}"
        assert "error" in message[0], f"seed {seed}: {message[0]!r}\n--- mutant ---\n{text}"
    return status


def _fuzz(capsys: pytest.CaptureFixture[str], tmp_path: Path, seeds: range) -> dict[str, int]:
    counts = {"parse error": 0, "opt ok": 0, "run error": 0, "run ok": 0}
    path = tmp_path / "m.mlir"
    for seed in seeds:
        text = mutant(seed)
        path.write_text(text)
        if _outcome(capsys, ["opt", str(path)], seed, text):
            counts["parse error"] += 1
            continue
        counts["opt ok"] += 1
        argv = ["run", str(path), "--target", "sim", "--as-is", "--timing-only", "--json"]
        counts["run ok" if _outcome(capsys, argv, seed, text) == 0 else "run error"] += 1
    return counts


def test_mutants_end_in_success_or_a_located_error(capsys, tmp_path: Path) -> None:
    counts = _fuzz(capsys, tmp_path, range(300))
    # the mutator must exercise both sides: plenty of parse errors and plenty of runs
    assert counts["parse error"] >= 60 and counts["opt ok"] >= 60, counts
    assert counts["run ok"] >= 20, counts


@pytest.mark.slow
def test_many_mutants(capsys, tmp_path: Path) -> None:
    counts = _fuzz(capsys, tmp_path, range(300, 5300))
    assert counts["run ok"] >= 300, counts


def test_the_mutator_is_deterministic_and_shrinks() -> None:
    assert mutant(7) == mutant(7) and mutant(7) != mutant(8)
    assert "256" not in _small("memref<256x256xf32>") and _small("x 3 y") == "x 3 y"
