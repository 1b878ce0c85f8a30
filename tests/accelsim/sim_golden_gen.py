"""Regenerate the simulator's golden table (tests/accelsim/data/sim_golden/): programs frozen as
MLIR text and what the event simulator made of them (cycles, counters, trace fingerprints,
exact error messages).

Run it with the simulator version that is the reference, e.g. the commit before an executor
rewrite checked out in a worktree:

    git worktree add --detach /tmp/old <commit>
    cd /tmp/old && PYTHONPATH=/tmp/old /work/main/.venv/bin/python \\
        /work/main/tests/accelsim/sim_golden_gen.py /work/main/tests/accelsim/data/sim_golden

The programs are written once (compiled by that version's compiler, already outlined) so that
later compiler changes do not move the reference; `test_sim_golden.py` re-simulates them.

`--only NAME,...` regenerates only the named programs (their files and rows) and keeps every
other program and row of the table in OUT as it is, for a change that is meant to move just
those (a new pass on some workloads):

    PYTHONPATH=/tmp/old python sim_golden_gen.py OUT --only mvt_default,mvt_edge

`--resimulate NAME,...` keeps those programs' files and re-records their rows (a change of
the simulator or the cost model meant to move them).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

CONFIGS: list[tuple[str, str, dict[str, Any]]] = [
    ("edge", "edge", {}),
    ("default", "default", {}),
    ("server", "server", {}),
    ("issue3", "default", {"control.issue_cycles": 3}),
    ("serial", "default", {"dma.max_outstanding": 1, "dram.interleave": "none"}),
    ("q1", "default", {"dma.queue_depth": 1, "dma.engines": 1}),
    ("wide", "server", {"dma.engines": 3, "dram.channels": 3, "dma.queue_depth": 2}),
]

WORKLOADS = ["gemm:M=64,N=64,K=64", "conv2d", "jacobi-2d", "bicg", "softmax", "batched_gemm",
             "syrk:N=48,M=40", "vector_add:N=4096", "row_sum", "atax", "mvt", "2mm",
             "depthwise_conv2d", "saxpy"]


def fingerprint(result: Any) -> dict[str, Any]:
    recs = [tuple(r) for r in result.trace.records]
    ordered = hashlib.sha256(repr(recs).encode()).hexdigest()[:16]
    srt = hashlib.sha256(repr(sorted(recs)).encode()).hexdigest()[:16]
    s = result.stats
    return {
        "cycles": result.cycles, "sram_peak_bytes": result.sram_peak_bytes,
        "records": len(recs), "trace_ordered": ordered, "trace_sorted": srt,
        "stats": {k: getattr(s, k) for k in ("dma_ops", "kernel_calls", "macs", "alu_ops",
                                              "special_ops", "kernel_sram_bytes", "dma_sram_bytes",
                                              "ideal_compute_cycles", "flags", "unwaited")},
    }


def outputs_digest(result: Any) -> str:
    h = hashlib.sha256()
    for k in sorted(result.outputs):
        h.update(k.encode())
        h.update(result.outputs[k].tobytes())
    return h.hexdigest()[:16]


def programs(out: Path) -> dict[str, str]:
    """name -> file name of every program written."""
    import workloads
    from accelsim import load_config
    from accelsim.compile.accelerator import accelerator_pipeline
    from compiler.text import print_module
    from compiler.transforms.outline_kernels import ensure_outlined
    from compiler.transforms.registry import PassManager
    from workloads.dma_programs import tile_sum, tiled_gemm

    mods: dict[str, Any] = {
        "tile_sum_dbuf": tile_sum(300, 64),
        "tile_sum_seq": tile_sum(300, 64, pipelined=False),
        "tiled_gemm_dbuf": tiled_gemm(128, 128, 128, 32),
        "tiled_gemm_seq": tiled_gemm(128, 128, 128, 32, pipelined=False),
    }
    for preset in ("edge", "default"):
        cfg = load_config(preset)
        for w in WORKLOADS:
            mod = workloads.get(w).module()
            flags = accelerator_pipeline(cfg, mod).flags()
            try:
                PassManager.from_flags(flags).run(mod)
            except Exception as exc:  # a pass refusing a workload just skips it
                print(f"skip {w} on {preset}: {exc}", file=sys.stderr)
                continue
            mods[f"{w.split(':')[0]}_{preset}"] = mod
    mlir_opt = shutil.which("mlir-opt-19")
    if mlir_opt:
        from compiler.text import parse_module

        up = ["--affine-data-copy-generate=generate-dma=true fast-mem-space=1 fast-mem-capacity=128",
              "--affine-pipeline-data-transfer"]
        for name, tile in (("gemm", 32), ("softmax", 32), ("mvt", 20)):
            r = subprocess.run([mlir_opt, f"workloads/mlir/{name}.mlir",
                                f"--affine-loop-tile=tile-size={tile}", *up],
                               capture_output=True, text=True, check=True)
            mods[f"upstream_{name}"] = parse_module(r.stdout, "<mlir-opt>")
    files = {}
    for name, mod in mods.items():
        mod = ensure_outlined(mod)
        fname = f"{re.sub(r'[^A-Za-z0-9_]', '_', name)}.mlir"
        (out / fname).write_text(print_module(mod, debug_locs=True))
        files[name] = fname
    return files


def misuse_programs() -> dict[str, Any]:
    """Programs that provoke each hazard kind, built here (their messages are recorded)."""
    from compiler.ir import F32, I32, Builder, memref

    def build(body: Any, kernel: str | None = None) -> Any:
        b = Builder()
        if kernel == "rd":
            with b.func("rd", private=True, buf=memref((64,), F32, 1),
                        out=memref((1,), F32, 1)) as (buf, out):
                for j in b.range(64):
                    out[0] = out[0] + buf[j]
        if kernel == "wr":
            with b.func("wr", private=True, buf=memref((64,), F32, 1)) as (buf,):
                for j in b.range(64):
                    buf[j] = buf[j] * 2.0
        with b.func("main", A=memref((8, 64), F32), C=memref((8, 64), F32)) as (A, C):
            body(b, A, C)
        return b.module

    def sram(b: Any, n: int = 64, name: str = "buf") -> Any:
        return b.alloc(memref((n,), F32, 1), name)

    def tags(b: Any, n: int = 2) -> Any:
        return b.alloc(memref((n,), I32, 2), "tag")

    def kernel_read(b: Any, A: Any, C: Any) -> None:
        buf, out, t = sram(b), sram(b, 1, "out"), tags(b)
        b.dma_start(A, [1, 0], buf, [0], t, [0], 64)
        b.dma_start(A, [2, 0], out, [0], t, [1], 1)
        b.dma_wait(t, [1], 1)
        b.call("rd", [buf, out])

    def kernel_write(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_start(buf, [0], C, [0, 0], t, [0], 64)
        b.call("wr", [buf])

    def overwrite(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_start(buf, [8], C, [0, 0], t, [0], 32)
        b.dma_start(A, [1, 0], buf, [0], t, [1], 16)
        b.dma_start(A, [1, 0], buf, [20], t, [1], 16)

    def disjoint_ok_then_read(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b, 128), tags(b, 4)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_start(A, [1, 0], buf, [64], t, [1], 64)
        b.dma_wait(t, [0], 64)
        b.dma_start(buf, [0], C, [0, 0], t, [2], 64)
        b.dma_start(buf, [70], C, [1, 0], t, [3], 4)

    def deadlock(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_wait(t, [0], 64)

    def tag_reuse(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [1], 32)
        b.dma_start(A, [1, 0], buf, [32], t, [1], 32)

    def oob_source(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [7, 32], buf, [0], t, [0], 64)

    def oob_index(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [8, 0], buf, [0], t, [0], 64)

    def oob_strided(b: Any, A: Any, C: Any) -> None:
        buf = b.alloc(memref((4, 16), F32, 1), "tile")
        t = tags(b)
        b.dma_start(A, [0, 56], buf, [0, 0], t, [0], 64, 64, 16)

    def oob_tag(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [2], 64)

    def dealloc_inflight(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dealloc(buf)

    def use_after_free(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dealloc(buf)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)

    def capacity(b: Any, A: Any, C: Any) -> None:
        for k in range(40):
            b.alloc(memref((64, 64), F32, 1), f"big{k}")

    def cp_load(b: Any, A: Any, C: Any) -> None:
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_start(A, [1, 0], buf, [0], t, [0], 64)
        buf[5] = buf[3]

    def late_deadlock(b: Any, A: Any, C: Any) -> None:
        buf, out, t = sram(b), sram(b, 1, "out"), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.call("rd", [buf, out])
        b.dma_wait(t, [1], 64)

    return {
        "kernel_read": build(kernel_read, "rd"), "kernel_write": build(kernel_write, "wr"),
        "overwrite": build(overwrite), "disjoint_ok_then_read": build(disjoint_ok_then_read),
        "deadlock": build(deadlock), "tag_reuse": build(tag_reuse),
        "oob_source": build(oob_source), "oob_index": build(oob_index),
        "oob_strided": build(oob_strided), "oob_tag": build(oob_tag),
        "dealloc_inflight": build(dealloc_inflight), "use_after_free": build(use_after_free),
        "capacity": build(capacity), "cp_load": build(cp_load),
        "late_deadlock": build(late_deadlock, "rd"),
    }


def simulate_rows(out: Path, files: dict[str, str]) -> list[dict[str, Any]]:
    """Every row of the table for the programs `files` (name -> file in OUT)."""
    from accelsim import load_config, simulate
    from accelsim.errors import InputError
    from compiler.backend import random_inputs
    from compiler.diagnostics import AccelsimError
    from compiler.ir.entry import entry_function
    from compiler.text import parse_module

    runs: list[dict[str, Any]] = []
    for name, fname in files.items():
        for label, preset, over in CONFIGS:
            if name.startswith("misuse_") and label not in ("default", "q1", "issue3"):
                continue
            cfg = load_config(preset).with_overrides(over) if over else load_config(preset)
            modes = [False]
            if label in ("default", "server") and not name.startswith(("syrk", "jacobi")):
                modes.append(True)
            for functional in modes:
                mod = parse_module((out / fname).read_text(), fname)
                f = entry_function(mod, None, InputError)
                inputs = None
                if functional:
                    inputs = random_inputs(f, seed=1)
                row: dict[str, Any] = {"program": name, "config": label, "functional": functional}
                try:
                    r = simulate(mod, cfg, inputs=inputs, functional=functional)
                except AccelsimError as exc:
                    row["error"] = f"{type(exc).__name__}: {exc}"
                else:
                    row.update(fingerprint(r))
                    if functional:
                        row["outputs"] = outputs_digest(r)
                runs.append(row)
                print(name, label, functional, row.get("cycles", row.get("error", ""))[:90]
                      if isinstance(row.get("error"), str) else row.get("cycles"), file=sys.stderr)
    return runs


def _names(args: list[str], flag: str) -> set[str]:
    if flag not in args:
        return set()
    k = args.index(flag)
    names = set(args[k + 1].split(","))
    del args[k:k + 2]
    return names


def main() -> int:
    import numpy as np

    from compiler.text import print_module

    args = sys.argv[1:]
    only, again = _names(args, "--only"), _names(args, "--resimulate")
    if only or again:
        return regenerate_only(Path(args[0]), only, again)
    out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    files = programs(out)
    for name, mod in misuse_programs().items():
        fname = f"misuse_{name}.mlir"
        (out / fname).write_text(print_module(mod, debug_locs=True))
        files[f"misuse_{name}"] = fname
    table: dict[str, Any] = {"configs": CONFIGS, "programs": files,
                             "runs": simulate_rows(out, files)}
    (out / "golden.json").write_text(json.dumps(table, indent=1) + "\n")
    del np
    return 0


def regenerate_only(out: Path, only: set[str], again: set[str] | None = None) -> int:
    """`only`: the full table generated in a scratch directory, whose programs in `only`
    (files and rows) replace theirs in OUT's table. `again`: the frozen programs of OUT
    re-simulated (their files kept, rows re-recorded: a change of the simulator or cost
    model meant to move them). The rest of the table stays as it is."""
    import tempfile

    again = again or set()
    old = json.loads((out / "golden.json").read_text())
    unknown = (only | again) - set(old["programs"])
    if unknown:
        print(f"no such program in {out}: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    fresh: dict[str, list[dict[str, Any]]] = {}
    if only:
        with tempfile.TemporaryDirectory() as tmp:
            sys.argv = [sys.argv[0], tmp]
            main()
            new = json.loads((Path(tmp) / "golden.json").read_text())
            for name in sorted(only):
                shutil.copyfile(Path(tmp) / new["programs"][name], out / old["programs"][name])
        for row in new["runs"]:
            if row["program"] in only:
                fresh.setdefault(row["program"], []).append(row)
    for row in simulate_rows(out, {n: old["programs"][n] for n in sorted(again - only)}):
        fresh.setdefault(row["program"], []).append(row)
    runs: list[dict[str, Any]] = []
    replaced = set(fresh) | only
    for row in old["runs"]:
        if row["program"] not in replaced:
            runs.append(row)
        elif row["program"] in fresh:  # the new rows where the program's first row was
            runs.extend(fresh.pop(row["program"]))
    old["runs"] = runs
    (out / "golden.json").write_text(json.dumps(old, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
