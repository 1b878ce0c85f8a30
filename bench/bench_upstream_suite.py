"""Upstream MLIR's own lit tests for the passes we claim, run as a new user would.

    $PY bench/bench_upstream_suite.py --dir /work/upstream-affine [--cases N] [--no-exec]

DIR holds upstream `.mlir` test files (mlir/test/Dialect/Affine/: dma-generate,
affine-data-copy, pipeline-data-transfer, loop-tiling, ...; not part of this repository).
Each file is split at `// -----` (as `-split-input-file` does; a file without a RUN line's
`-split-input-file` is one case). Counted, per case and per RUN line:

- funcs: each `func.func` of a case, with the case's aliases and globals, parses and verifies
  as written (upstream's 73 cases for these passes are its 73 functions);
- parse: the whole case (what `-split-input-file` hands the tool) parses and verifies;
- runs: for every RUN line, its pass flag(s) with mlir-opt's spelling, on ours and on
  `mlir-opt-19` (with `-allow-unregistered-dialect` where the RUN line has it); a run
  succeeds when it exits cleanly with a module;
- accepted: every module we print is re-read by `mlir-opt-19` (our output is MLIR);
- exact: our result, run on the host target with seeded random inputs, gives bit-identical
  memref arguments and results to the original case; where the result has DMAs, also on
  `--target sim --as-is` (functional), against the host run of the original. A case the host
  cannot run (an unregistered op, a vector element type, a dynamic shape without sizes) is
  counted as `not run` with its reason, never as a pass.

Output: one line per file, then the totals (the figures recorded in bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MLIR_OPT = "mlir-opt-19"
SEPARATOR = re.compile(r"^// -----\s*$", re.M)
RUN = re.compile(r"^// RUN:(.*)$", re.M)


@dataclass
class RunLine:
    flags: list[str]       # pass flags as written (quotes removed), e.g. --affine-loop-tile=tile-size=32
    unregistered: bool     # -allow-unregistered-dialect
    split: bool


@dataclass
class Tally:
    cases: int = 0
    parsed: int = 0
    funcs: int = 0
    funcs_parsed: int = 0
    runs: int = 0
    ours_ok: int = 0
    upstream_ok: int = 0
    test_runs: int = 0       # of `runs`: RUN lines of upstream's test-only passes (-test-affine-*)
    test_ours_ok: int = 0
    test_upstream_ok: int = 0
    accepted: int = 0
    printed: int = 0
    exact: int = 0
    exact_sim: int = 0
    mismatch: int = 0
    not_run: Counter = field(default_factory=Counter)
    parse_errors: Counter = field(default_factory=Counter)
    run_errors: Counter = field(default_factory=Counter)

    def add(self, o: Tally) -> None:
        for k in ("cases", "parsed", "funcs", "funcs_parsed", "runs", "ours_ok", "upstream_ok",
                  "test_runs", "test_ours_ok", "test_upstream_ok", "accepted", "printed",
                  "exact", "exact_sim", "mismatch"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.not_run.update(o.not_run)
        self.parse_errors.update(o.parse_errors)
        self.run_errors.update(o.run_errors)


def run_lines(text: str) -> list[RunLine]:
    out = []
    for m in RUN.finditer(text):
        words = shlex.split(m.group(1).split("|")[0])
        flags = [w if w.startswith("--") else "-" + w for w in words
                 if w.startswith("-") and ("affine" in w) and w not in ("-allow-unregistered-dialect",)]
        out.append(RunLine(flags, "-allow-unregistered-dialect" in words,
                           "-split-input-file" in words))
    return out


def cases(text: str, split: bool) -> list[tuple[int, str]]:
    """(first line number, text) of each non-empty case; line numbers kept by padding."""
    if not split:
        return [(1, text)]
    out = []
    pos = 0
    for chunk in SEPARATOR.split(text):
        line = text.count("\n", 0, pos)
        pos += len(chunk) + len("// -----")
        body = "\n".join(ln for ln in chunk.splitlines() if not ln.strip().startswith("//"))
        if body.strip():
            out.append((line, "\n" * line + chunk))
    return out


FUNC = re.compile(r"^[ \t]*func\.func\b", re.M)
HEADER = re.compile(r"^(#[\w$.\-]+\s*=.*|memref\.global\b.*)$", re.M)


def functions(case: str) -> list[str]:
    """Each `func.func` of a case as a module of its own (with the case's aliases and
    globals): upstream's 73 cases for these passes are its 73 functions."""
    header = "\n".join(m.group(0) for m in HEADER.finditer(case))
    out = []
    for m in FUNC.finditer(case):
        depth, k, opened = 0, m.start(), False
        while k < len(case):
            c = case[k]
            if c == "{":
                depth, opened = depth + 1, True
            elif c == "}":
                depth -= 1
                if opened and depth == 0:
                    break
            k += 1
        out.append(header + "\n" + case[m.start():k + 1] + "\n")
    return out


def mlir_opt(text: str, flags: list[str], unregistered: bool) -> tuple[bool, str]:
    cmd = [MLIR_OPT, *(["-allow-unregistered-dialect"] if unregistered else []), *flags]
    try:
        p = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    return p.returncode == 0, p.stdout if p.returncode == 0 else p.stderr.strip().splitlines()[0]


def first_line(exc: BaseException) -> str:
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return re.sub(r"^\S+:\d+:\d+: ", "", msg)


def short(msg: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", msg)[:90]


def host_outputs(module, fname: str, seed: int):  # type: ignore[no-untyped-def]
    from compiler.backend import run_host
    from compiler.ir.types import MemRefType

    func = next(f for f in module.funcs if f.sym_name == fname)
    for t in func.function_type.inputs:
        if isinstance(t, MemRefType) and t.has_static_shape and t.num_elements > MAX_ELEMENTS:
            raise ValueError(f"an argument of over {MAX_ELEMENTS} elements (bench size limit)")
    inputs = bench_inputs(func, seed)
    return inputs, run_host(module, inputs, fname, bounds_check=True)


DYN_EXTENT = 24   # each `?` of a memref argument
INDEX_RANGE = 8   # index scalars: [0, 8)


def bench_inputs(func, seed: int) -> dict:  # type: ignore[no-untyped-def]
    """random_inputs, except that a dynamic extent is DYN_EXTENT and an index scalar is in
    [0, INDEX_RANGE) (upstream's cases take sizes and offsets as index arguments)."""
    from compiler.backend.host import random_array, random_inputs
    from compiler.ir.types import MemRefType

    rng = np.random.default_rng(seed)
    types = func.function_type.inputs
    if all(not isinstance(t, MemRefType) or t.has_static_shape for t in types) and \
            not any(getattr(t, "is_index", False) for t in types):
        return random_inputs(func, seed)
    out = {}
    for name, t in zip(func.arg_names(), types, strict=True):
        if isinstance(t, MemRefType):
            shape = tuple(DYN_EXTENT if d is None else d for d in t.shape)
            out[name] = random_array(rng, shape, t.element)
        elif getattr(t, "is_index", False):
            out[name] = np.array(rng.integers(0, INDEX_RANGE), dtype=np.int64)
        else:
            out[name] = random_array(rng, (), t)
    return out


def has_dma(module) -> bool:  # type: ignore[no-untyped-def]
    return any(op.NAME == "affine.dma_start" for op in module.walk())


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(np.asarray(a[k]).view(np.uint8), np.asarray(b[k]).view(np.uint8)) for k in a)


def check_exact(case_text: str, ours_text: str, t: Tally, sim: bool) -> None:
    from compiler.text import parse_module

    original = parse_module(case_text, "<case>")
    result = parse_module(ours_text, "<ours>")
    funcs = [f.sym_name for f in original.funcs if not f.is_declaration]
    for fname in funcs:
        try:
            inputs, want = host_outputs(original, fname, seed=7)
        except Exception as exc:
            t.not_run[short(first_line(exc))] += 1
            continue
        try:
            got = host_outputs(result, fname, seed=7)[1]
        except Exception as exc:
            t.mismatch += 1
            t.run_errors["host(ours): " + short(first_line(exc))] += 1
            continue
        if not same(want, got):
            t.mismatch += 1
            t.run_errors[f"host differs: @{fname}"] += 1
            continue
        t.exact += 1
        if sim and has_dma(result):
            try:
                from accelsim.sim.simulate import simulate

                out = simulate(result, "default", inputs=inputs, func=fname, functional=True).outputs
                if out is not None and same(want, {k: out[k] for k in want}):
                    t.exact_sim += 1
                else:
                    t.mismatch += 1
                    t.run_errors[f"sim differs: @{fname}"] += 1
            except Exception as exc:
                t.run_errors["sim: " + short(first_line(exc))] += 1


EXEC_SECONDS = 20
MAX_ELEMENTS = 1 << 22   # per memref argument: larger ones (upstream's 1024^3 cases) are not run


def _child(case_text: str, ours_text: str, q) -> None:  # type: ignore[no-untyped-def]
    t = Tally()
    check_exact(case_text, ours_text, t, sim=True)
    q.put(t)


def exact_in_child(case_text: str, ours_text: str, t: Tally) -> None:
    """check_exact in a forked child with a time limit (the upstream cases include
    1024^3-element memrefs and 4096^3 loop nests: those count as not run, over the limit)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_child, args=(case_text, ours_text, q))
    proc.start()
    try:
        t.add(q.get(timeout=EXEC_SECONDS))
    except Exception:
        t.not_run[f"over the bench's {EXEC_SECONDS} s limit per case"] += 1
    finally:
        proc.kill()
        proc.join()


def run_file(path: Path, limit: int | None, execute: bool, verbose: bool) -> Tally:
    from compiler.ir.verifier import verify
    from compiler.text import parse_module, print_module
    from compiler.transforms.registry import PassManager

    text = path.read_text()
    rls = run_lines(text)
    split = any(r.split for r in rls)
    t = Tally()
    for line, case in cases(text, split)[:limit]:
        t.cases += 1
        for ftext in functions(case):
            t.funcs += 1
            try:
                verify(parse_module(ftext, path.name))
                t.funcs_parsed += 1
            except Exception as exc:
                if verbose:
                    name = re.search(r"@([\w$.]+)", ftext[ftext.index("func.func"):])
                    print(f"  {path.name}: @{name.group(1) if name else '?'}: {first_line(exc)}")
        try:
            verify(parse_module(case, path.name))
            t.parsed += 1
        except Exception as exc:
            t.parse_errors[short(first_line(exc))] += 1
            if verbose:
                print(f"  {path.name}:{line + 1}: parse: {first_line(exc)}")
        for rl in rls:
            t.runs += 1
            test_only = any(f.startswith("--test-") for f in rl.flags)
            t.test_runs += test_only
            up_ok, _ = mlir_opt(case, rl.flags, rl.unregistered)
            t.upstream_ok += up_ok
            t.test_upstream_ok += up_ok and test_only
            try:
                module = parse_module(case, path.name)
                pm = PassManager.from_flags(rl.flags)
                pm.run(module)
                ours = print_module(module)
            except Exception as exc:
                msg = first_line(exc)
                t.run_errors[short(msg)] += 1
                if verbose:
                    print(f"  {path.name}:{line + 1}: {' '.join(rl.flags)}: {msg}")
                continue
            t.ours_ok += 1
            t.test_ours_ok += test_only
            t.printed += 1
            ok, err = mlir_opt(ours, [], True)
            t.accepted += ok
            if not ok and verbose:
                print(f"  {path.name}:{line + 1}: mlir-opt rejects ours: {err}")
            if execute:
                exact_in_child(case, ours, t)
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, type=Path)
    ap.add_argument("--cases", type=int, default=None, help="first N cases of each file")
    ap.add_argument("--no-exec", action="store_true", help="skip the host/sim runs")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    files = sorted(args.dir.glob("*.mlir"))
    if not files:
        print(f"error: no .mlir files in {args.dir}", file=sys.stderr)
        return 2
    total = Tally()
    print(f"{'file':34} {'funcs':>7} {'parse':>7} {'ours':>8} {'mlir-opt':>8} {'accepted':>8} {'exact':>6} "
          f"{'sim':>4} {'differs':>7}")
    for f in files:
        t = run_file(f, args.cases, not args.no_exec, args.verbose)
        total.add(t)
        print(f"{f.name:34} {t.funcs_parsed:3}/{t.funcs:<3} {t.parsed:3}/{t.cases:<3} "
              f"{t.ours_ok:3}/{t.runs:<4} {t.upstream_ok:4}    "
              f"{t.accepted:3}/{t.printed:<4} {t.exact:6} {t.exact_sim:4} {t.mismatch:7}")
    print(f"{'TOTAL':34} {total.funcs_parsed:3}/{total.funcs:<3} {total.parsed:3}/{total.cases:<3} "
          f"{total.ours_ok:3}/{total.runs:<4} "
          f"{total.upstream_ok:4}    {total.accepted:3}/{total.printed:<4} {total.exact:6} "
          f"{total.exact_sim:4} {total.mismatch:7}")
    n = total.runs - total.test_runs
    print(f"\nRUN lines of the passes accelsim has ({n} runs): ours {total.ours_ok - total.test_ours_ok}, "
          f"mlir-opt-19 {total.upstream_ok - total.test_upstream_ok}; upstream's test-only passes "
          f"(-test-affine-*, {total.test_runs} runs): ours {total.test_ours_ok}, mlir-opt-19 "
          f"{total.test_upstream_ok}")
    for title, c in (("parse errors", total.parse_errors), ("run errors", total.run_errors),
                     ("not run on host", total.not_run)):
        if c:
            print(f"\n{title}:")
            for msg, n in c.most_common():
                print(f"  {n:3}  {msg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
