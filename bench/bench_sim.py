"""Simulator benchmarks (SIM helper): throughput, gemm 1024^3 on `server`, analytic error.

    .venv/bin/python bench/bench_sim.py [--quick] [--only N] [--baseline DIR [--rounds R]]
    .venv/bin/python bench/bench_sim.py --opcodes    # bytecodes per op (PYTHONPATH=DIR: another tree)

1. Simulated DMA + kernel operations per CPU second in timing-only mode, on double-buffered
   programs. Peer measured in the same run: bare SimPy (a process yielding timeouts), so the
   ratio says how many bare SimPy events one simulated operation costs. `--baseline DIR`
   also runs the cases on another checkout (e.g. a `git worktree` of an older commit),
   interleaved with this tree in child processes, and prints before/after.
2. gemm 1024^3 on the `server` preset, timing-only and functional, against the host backend
   running the same DMA program natively (DMAs as copies) in the same run.
3. The analytic estimate against the event run: relative cycle error and time per point, over
   the workloads compiled through the accelerator pipeline and the hand-built programs.
   `--speed-only` skips the event runs; `--speed-only --baseline DIR` compiles the points once
   here, writes them as MLIR text and estimates them in child processes of this tree and of
   DIR (e.g. a `git worktree` of today's main), alternating `--rounds` times: per-point
   cold/warm CPU of both, their ratios, and a check that both trees give equal cycles.
4. Size sweep (`--only 4`): the gemm workload at 128^3 ... 4096^3, compiled once by this tree's
   accelerator pipeline for `default` (the program `accelsim run gemm:M=N,N=N,K=N --target sim`
   runs), then simulated timing-only, each run in a fresh child process as the CLI does (its
   first run: per-op code generation included): DMA + kernel ops per CPU second, wall, the
   process's peak RSS and how much it grew during the simulation. This tree runs both ways:
   `summary` (the CLI without --trace/--timeline: only the trace summary is kept) and
   `records` (every trace record kept). `--baseline DIR` (repeatable) runs the same MLIR text
   on another tree (e.g. /work/base at d701a4c with the old module paths), which keeps records.
   `--sizes 128,256` picks sizes, `--rounds R` runs each point R times (best CPU kept).
5. DRAM model (`--only 5`): the gemm 512^3 program (`--dram-sizes 512,1024`: each size)
   compiled once for `default`, simulated timing-only in this process with
   `dram.model = "bandwidth"` and with the timing model (DDR4-3200, LPDDR5-6400, HBM2e),
   interleaved round by round, `--repeat` runs per model and round (best CPU of
   `--rounds` x `--repeat`): DMA + kernel ops per CPU second and the timing/bandwidth cost
   ratio, and which DRAM path ran (`dram_native`: "extension", "ctypes" or "python"); then
   the timing model's closed-form errors (docs/dram_timing.md) on one channel per technology.
"""

from __future__ import annotations

import argparse
import sys
import time

import simpy

from accelsim import load_config, simulate
from workloads.dma_programs import tile_sum, tiled_gemm

try:
    from accelsim.estimate.analytic import estimate
except ImportError:  # an older tree on PYTHONPATH (--baseline children): the flat layout
    from accelsim.analytic import estimate  # type: ignore[no-redef]


def cpu_best(fn, repeat: int = 3) -> tuple[float, float, object]:  # type: ignore[no-untyped-def]
    best_cpu, best_wall, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    return best_cpu, best_wall, out


def bare_simpy_events_per_second(n: int = 200_000) -> float:
    def run() -> None:
        env = simpy.Environment()

        def proc():  # type: ignore[no-untyped-def]
            for _ in range(n):
                yield env.timeout(1)

        env.process(proc())
        env.run()

    cpu, _, _ = cpu_best(run)
    return n / cpu


def _throughput_cases(quick: bool) -> list[tuple[str, object]]:
    return [("tile_sum 4000x64, double-buffered", tile_sum(1000 if quick else 4000, 64)),
            ("tile_sum 4000x64, sequential", tile_sum(1000 if quick else 4000, 64, pipelined=False)),
            ("tiled gemm 512^3 T=32, double-buffered", tiled_gemm(512, 512, 512, 32))]


def _measure_cases(quick: bool, repeat: int) -> dict[str, tuple[int, float, float]]:
    """name -> (DMA + kernel ops, best CPU s, best wall s) of timing-only runs."""
    cfg = load_config("default")
    out = {}
    for name, mod in _throughput_cases(quick):
        simulate(mod, cfg, functional=False)  # warm caches (maps, cost model statics)
        cpu, wall, r = cpu_best(lambda mod=mod: simulate(mod, cfg, functional=False), repeat=repeat)
        out[name] = (r.stats.dma_ops + r.stats.kernel_calls, cpu, wall)  # type: ignore[attr-defined]
    return out


def throughput(quick: bool, baseline: str | None = None, rounds: int = 4) -> None:
    print("== 1. timing-only throughput (CPU time, best of 7) ==")
    peer = bare_simpy_events_per_second(50_000 if quick else 200_000)
    print(f"peer: bare SimPy timeouts        : {peer:12,.0f} events/s")
    for name, (ops, cpu, wall) in _measure_cases(quick, 7).items():
        rate = ops / cpu
        print(f"{name:40s}: {ops:7d} ops, {cpu:6.3f} s CPU ({wall:6.3f} s wall) -> "
              f"{rate:9,.0f} ops/s; {peer / rate:5.1f} bare SimPy events per op")
    if baseline:
        compare_with(baseline, quick, rounds)


def opcodes_per_op() -> None:
    """Python bytecodes executed per simulated DMA + kernel op (sys.settrace with opcode
    events), a load-independent figure; smaller instances of section 1's cases."""
    cfg = load_config("default")
    cases = [("tile_sum 500x64, double-buffered", tile_sum(500, 64)),
             ("tile_sum 500x64, sequential", tile_sum(500, 64, pipelined=False)),
             ("tiled gemm 256^3 T=32, double-buffered", tiled_gemm(256, 256, 256, 32))]
    print("== 1b. Python bytecodes per simulated op (timing-only, sys.settrace) ==")
    count = [0]

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        frame.f_trace_opcodes = True
        if event == "opcode":
            count[0] += 1
        return tracer

    for name, mod in cases:
        simulate(mod, cfg, functional=False)
        count[0] = 0
        sys.settrace(tracer)
        try:
            r = simulate(mod, cfg, functional=False)
        finally:
            sys.settrace(None)
        ops = r.stats.dma_ops + r.stats.kernel_calls  # type: ignore[attr-defined]
        print(f"{name:40s}: {ops:6d} ops, {count[0] / ops:7.1f} bytecodes per op")


def compare_with(baseline: str, quick: bool, rounds: int) -> None:
    """The same cases on another checkout of the repository (e.g. `git worktree add
    /tmp/old <commit>`), interleaved with this one: `rounds` x (this, baseline) child runs of
    best-of-3 each, best rate per side, so both see the same machine load."""
    import json
    import os
    import subprocess
    from pathlib import Path

    here = str(Path(__file__).resolve().parents[1])
    best: dict[str, dict[str, float]] = {"after": {}, "before": {}}
    for _ in range(rounds):
        for side, root in (("after", here), ("before", baseline)):
            env = dict(os.environ, PYTHONPATH=root)
            cmd = [sys.executable, __file__, "--cases-json"] + (["--quick"] if quick else [])
            res = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, check=True)
            for name, (ops, cpu, _) in json.loads(res.stdout.splitlines()[-1]).items():
                best[side][name] = max(best[side].get(name, 0.0), ops / cpu)
    print(f"\nbefore ({baseline}) vs after (this tree), {rounds} interleaved rounds, best ops/s:")
    print(f"{'':40s}  {'before':>12s}  {'after':>12s}  {'speed-up':>8s}")
    for name, after in best["after"].items():
        before = best["before"][name]
        print(f"{name:40s}  {before:12,.0f}  {after:12,.0f}  {after / before:7.2f}x")


def gemm_1024(quick: bool) -> None:
    import numpy as np

    from compiler.backend import random_inputs, run_host

    n = 256 if quick else 1024
    print(f"\n== 2. gemm {n}^3 on server ==")
    cfg = load_config("server")
    mod, how = _gemm_program(n, cfg)
    print(f"program: {how}")
    inputs = random_inputs(mod.lookup("gemm"), seed=0)
    cpu, wall, rt = cpu_best(lambda: simulate(mod, cfg, functional=False), repeat=1)
    print(f"timing-only : {wall:7.2f} s wall ({cpu:6.2f} s CPU), {rt.cycles:,} cycles "  # type: ignore[attr-defined]
          f"= {rt.seconds * 1e3:.3f} ms simulated, {rt.stats.dma_ops} DMAs, "  # type: ignore[attr-defined]
          f"{rt.stats.kernel_calls} kernel calls")  # type: ignore[attr-defined]
    w0 = time.perf_counter()
    simulate(mod, cfg, inputs=inputs)
    first = time.perf_counter() - w0
    cpu, wall, rf = cpu_best(lambda: simulate(mod, cfg, inputs=inputs), repeat=2)
    print(f"functional  : {wall:7.2f} s wall ({cpu:6.2f} s CPU); first run incl. JIT of the "
          f"kernels: {first:.2f} s")
    run_host(mod, inputs, func="gemm")  # compile once
    _, hwall, host = cpu_best(lambda: run_host(mod, inputs, func="gemm"), repeat=1)
    print(f"peer: host backend, same program: {hwall:7.2f} s wall; functional sim / host = "
          f"{wall / hwall:6.1f}x")
    same = all(np.array_equal(rf.outputs[k], host[k]) for k in host)  # type: ignore[attr-defined]
    print(f"simulator outputs == host outputs: {same}")
    acpu, _, est = cpu_best(lambda: estimate(mod, cfg))
    print(f"analytic    : {acpu * 1e3:7.2f} ms CPU, {est.cycles:,} cycles "  # type: ignore[attr-defined]
          f"({(est.cycles - rt.cycles) / rt.cycles:+.3%} vs event)")  # type: ignore[attr-defined]


def _gemm_program(n: int, cfg):  # type: ignore[no-untyped-def]
    from compiler.transforms import registry

    getattr(registry, "_load_builtin_passes", lambda: None)()  # an older tree fills PASSES lazily
    if "affine-loop-tile" in registry.PASSES:
        import workloads
        from compiler.transforms.registry import PassManager

        accelerator_pipeline, _ = _pipeline_functions()
        mod = workloads.get(f"gemm:M={n},N={n},K={n}").module()
        flags, _ = accelerator_pipeline(cfg)
        PassManager.from_flags(flags).run(mod)
        return mod, "workload gemm through " + " ".join(f.split("=")[0] for f in flags)
    return tiled_gemm(n, n, n, 64), "hand-built 64x64-tiled double-buffered DMA program " \
                                    "(affine-loop-tile not registered yet)"


def analytic_error(quick: bool) -> None:
    import workloads
    from compiler.transforms.registry import PassManager

    accelerator_pipeline, ensure_outlined = _pipeline_functions()
    print("\n== 3. analytic vs event (timing-only), relative cycle error ==")
    print("   analytic CPU per point, best of 3: cold = a fresh clone of the compiled program with "
          "all analytic caches cleared, warm = another fresh clone on the next preset's config (a "
          "sweep point); 'outlining' = what outline-kernels alone costs on that clone (the estimate "
          "costs nests in place and no longer pays it; older versions did)")
    rows = []
    presets = ("edge", "default", "server")
    for pi, preset in enumerate(presets):
        cfg = load_config(preset)
        other = load_config(presets[(pi + 1) % len(presets)])
        flags, _ = accelerator_pipeline(cfg)
        progs = [("tile_sum dbuf", tile_sum(200, 256)), ("tiled_gemm dbuf", tiled_gemm(128, 128, 128, 32)),
                 ("tiled_gemm seq", tiled_gemm(128, 128, 128, 32, pipelined=False))]
        for name in workloads.names():
            w = workloads.get(_small(name))
            mod = w.module()
            try:
                PassManager.from_flags(flags).run(mod)
            except Exception as exc:  # a pass refusing a workload is reported, not fatal
                print(f"  {preset:8s} {name:18s}: pipeline failed: {exc}")
                continue
            progs.append((name, mod))
        for name, mod in progs:
            an, cold, warm, outline = _analytic_times(mod, cfg, other, ensure_outlined)
            try:
                c0 = time.process_time()
                ev = simulate(mod, cfg, functional=False)
                ev_cpu = time.process_time() - c0
            except Exception as exc:
                print(f"  {preset:8s} {name:18s}: event run failed: {type(exc).__name__}: {exc}")
                continue
            err = (an.cycles - ev.cycles) / ev.cycles if ev.cycles else 0.0
            rows.append((preset, name, ev.cycles, an.cycles, err, ev_cpu, cold, warm, outline))
            print(f"  {preset:8s} {name:16s}: event {ev.cycles:>9,} analytic {an.cycles:>9,} "
                  f"error {err:+7.3%}  event {ev_cpu * 1e3:7.1f} ms CPU; analytic cold "
                  f"{cold * 1e3:5.2f} ms (outlining {outline * 1e3:5.2f}), "
                  f"warm {warm * 1e3:5.2f} ms ({ev_cpu / max(warm, 1e-9):5.0f}x faster)")
    if rows:
        errs = sorted(abs(r[4]) for r in rows)
        mean = sum(errs) / len(errs)

        def med(k: int) -> float:
            return sorted(r[k] for r in rows)[len(rows) // 2] * 1e3

        print(f"over {len(rows)} points: mean |error| {mean:.3%}, median {errs[len(errs) // 2]:.3%}, "
              f"max {errs[-1]:.3%}; analytic CPU per point: median cold {med(6):.2f} ms "
              f"(outlining alone would be {med(8):.2f} ms), "
              f"median warm {med(7):.2f} ms; "
              f"max cold {max(r[6] for r in rows) * 1e3:.2f} ms, "
              f"max warm {max(r[7] for r in rows) * 1e3:.2f} ms; "
              f"points with warm <= 1 ms: {sum(r[7] <= 1e-3 for r in rows)}/{len(rows)}, "
              f"cold <= 1 ms: {sum(r[6] <= 1e-3 for r in rows)}/{len(rows)}")
    big = tiled_gemm(512, 512, 512, 32)
    for preset in presets:
        _, cold, warm, _ = _analytic_times(big, load_config(preset), load_config("default"), ensure_outlined)
        print(f"  tiled_gemm 512^3 T=32 dbuf (8704 DMAs, 4096 kernel calls; no event run), {preset:8s}: "
              f"analytic cold {cold * 1e3:.2f} ms, warm {warm * 1e3:.2f} ms")


def analytic_speed(rounds: int) -> None:
    """Section 3's points and cold/warm definitions without the event runs: cheap enough to
    run a few times, alternating with another tree (PYTHONPATH), and keep the best."""
    import workloads
    from compiler.transforms.registry import PassManager

    accelerator_pipeline, ensure_outlined = _pipeline_functions()
    presets = ("edge", "default", "server")
    rows = []
    for pi, preset in enumerate(presets):
        cfg, other = load_config(preset), load_config(presets[(pi + 1) % len(presets)])
        flags, _ = accelerator_pipeline(cfg)
        progs = [("tile_sum dbuf", tile_sum(200, 256)), ("tiled_gemm dbuf", tiled_gemm(128, 128, 128, 32)),
                 ("tiled_gemm seq", tiled_gemm(128, 128, 128, 32, pipelined=False))]
        for name in workloads.names():
            mod = workloads.get(_small(name)).module()
            PassManager.from_flags(flags).run(mod)
            progs.append((name, mod))
        for name, mod in progs:
            cold = warm = float("inf")
            for _ in range(max(1, rounds)):
                an, c, w, _ = _analytic_times(mod, cfg, other, ensure_outlined)
                cold, warm = min(cold, c), min(warm, w)
            rows.append((cold, warm))
            print(f"  {preset:8s} {name:16s}: cycles {an.cycles:>9,} cold {cold * 1e3:5.2f} ms "
                  f"warm {warm * 1e3:5.2f} ms")
    cs, ws = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
    n = len(rows)
    print(f"over {n} points: median cold {cs[n // 2] * 1e3:.2f} ms, warm {ws[n // 2] * 1e3:.2f} ms; "
          f"max cold {cs[-1] * 1e3:.2f}, warm {ws[-1] * 1e3:.2f}; <= 1 ms: cold "
          f"{sum(c <= 1e-3 for c in cs)}/{n}, warm {sum(w <= 1e-3 for w in ws)}/{n}")


def analytic_speed_vs(baseline: str, rounds: int) -> None:
    """Section 3's points, compiled once by this tree and written as MLIR text, estimated by
    this tree and by the tree in `baseline` (e.g. a `git worktree` of today's main) in child
    processes, alternating round by round (each child: best of 3 per point and round); best
    per point over the rounds. Both trees estimate the same programs (each parses the text),
    so their cycles must agree: a difference is reported."""
    import json
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    import workloads
    from compiler.text import print_module
    from compiler.transforms.registry import PassManager

    accelerator_pipeline, _ = _pipeline_functions()
    presets = ("edge", "default", "server")
    points = []
    for pi, preset in enumerate(presets):
        flags, _ = accelerator_pipeline(load_config(preset))
        progs = [("tile_sum dbuf", tile_sum(200, 256)), ("tiled_gemm dbuf", tiled_gemm(128, 128, 128, 32)),
                 ("tiled_gemm seq", tiled_gemm(128, 128, 128, 32, pipelined=False))]
        for name in workloads.names():
            mod = workloads.get(_small(name)).module()
            PassManager.from_flags(flags).run(mod)
            progs.append((name, mod))
        other = presets[(pi + 1) % len(presets)]
        points += [(preset, other, name, print_module(mod)) for name, mod in progs]
    here = str(Path(__file__).resolve().parents[1])
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(points, fh)
        path = fh.name
    best: dict[str, list[list[float]]] = {}
    cycles: dict[str, list[int]] = {}
    try:
        for _ in range(max(1, rounds)):
            for side, root in (("this tree", here), ("baseline", baseline)):
                env = dict(os.environ, PYTHONPATH=root)
                res = subprocess.run([sys.executable, __file__, "--estimate-child", path], env=env,
                                     cwd=root, capture_output=True, text=True, check=True)
                rows = json.loads(res.stdout.splitlines()[-1])
                cycles[side] = [r[0] for r in rows]
                old = best.get(side)
                best[side] = [[r[1], r[2]] if old is None else [min(o[0], r[1]), min(o[1], r[2])]
                              for r, o in zip(rows, old or [None] * len(rows), strict=True)]
    finally:
        os.unlink(path)
    print(f"== 3. analytic estimate CPU per point, this tree vs {baseline}, {rounds} alternating "
          "rounds of child processes (best of 3 each), the same MLIR ==")
    print(f"{'preset':8s} {'program':17s} {'cycles':>11s} {'cold base':>9s} {'cold':>7s} "
          f"{'ratio':>6s} {'warm base':>9s} {'warm':>7s} {'ratio':>6s}")
    mine, base = best["this tree"], best["baseline"]
    for k, (preset, _, name, _) in enumerate(points):
        same = "" if cycles["this tree"][k] == cycles["baseline"][k] else \
            f"  CYCLES DIFFER: baseline {cycles['baseline'][k]:,}"
        print(f"{preset:8s} {name:17s} {cycles['this tree'][k]:>11,} {base[k][0] * 1e3:9.2f} "
              f"{mine[k][0] * 1e3:7.2f} {base[k][0] / mine[k][0]:5.2f}x {base[k][1] * 1e3:9.2f} "
              f"{mine[k][1] * 1e3:7.2f} {base[k][1] / mine[k][1]:5.2f}x{same}")
    n = len(points)
    for side, rows in (("baseline ", base), ("this tree", mine)):
        cs, ws = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
        print(f"{side}: median cold {cs[n // 2] * 1e3:.2f} ms, warm {ws[n // 2] * 1e3:.2f} ms; max "
              f"cold {cs[-1] * 1e3:.2f}, warm {ws[-1] * 1e3:.2f}; <= 1 ms: cold "
              f"{sum(c <= 1e-3 for c in cs)}/{n}, warm {sum(w <= 1e-3 for w in ws)}/{n}")
    geo = 1.0
    for b, m in zip(base, mine, strict=True):
        geo *= b[0] / m[0]
    print(f"geomean cold speed-up {geo ** (1 / n):.2f}x; cycles equal on "
          f"{sum(a == b for a, b in zip(cycles['this tree'], cycles['baseline'], strict=True))}/{n}")


def _estimate_child(path: str) -> None:
    """Child of `analytic_speed_vs`: cold/warm CPU of each point's MLIR text on whatever
    accelsim is imported (best of 3), as JSON: [[cycles, cold, warm], ...]."""
    import json

    from compiler.text import parse_module

    _, ensure_outlined = _pipeline_functions()
    rows = []
    configs: dict[str, object] = {}
    with open(path) as fh:
        points = json.load(fh)
    for preset, other, _, text in points:
        for p in (preset, other):
            if p not in configs:
                configs[p] = load_config(p)
        mod = parse_module(text)
        an, cold, warm, _ = _analytic_times(mod, configs[preset], configs[other], ensure_outlined)
        rows.append([an.cycles, cold, warm])
    print(json.dumps(rows))


def _pipeline_functions():  # type: ignore[no-untyped-def]
    """(accelerator_pipeline, ensure_outlined) of the tree on the path: the stage packages,
    or the flat layout of a tree before them (PYTHONPATH=DIR of an older checkout)."""
    try:
        from accelsim.compile.accelerator import accelerator_pipeline as pipeline_value
        from compiler.transforms.outline_kernels import ensure_outlined

        def accelerator_pipeline(cfg, module=None, func=None):  # type: ignore[no-untyped-def]
            return pipeline_value(cfg, module, func).flags(), []  # (flags, notes) as older trees
    except ImportError:
        from accelsim.kernels import ensure_outlined  # type: ignore[no-redef]

        from accelsim.cli.sim_target import accelerator_pipeline  # type: ignore[no-redef]
    return accelerator_pipeline, ensure_outlined


def _analytic_times(mod, cfg, other, ensure_outlined):  # type: ignore[no-untyped-def]
    """(estimate, cold CPU, warm CPU, outlining CPU), each the best of 3.
    cold: a fresh clone with every analytic cache cleared (a program never seen: outlining,
    compiling, kernel costs, walk); warm: another fresh clone on another config (a sweep
    point: the compiled program and kernel figures are reused, the walk is not)."""
    try:
        from accelsim.estimate.analytic import clear_caches
    except ImportError:
        try:  # the flat layout (before the stage packages)
            from accelsim.analytic import clear_caches  # type: ignore[no-redef]
        except ImportError:  # before 2026-11-29 session 2 the only caches were keyed by object
            def clear_caches() -> None:
                pass

    cold, warm, outline = float("inf"), float("inf"), float("inf")
    an = None
    for _ in range(3):
        fresh = mod.clone()
        c0 = time.process_time()
        ensure_outlined(fresh)
        outline = min(outline, time.process_time() - c0)
        clear_caches()
        fresh = mod.clone()
        c0 = time.process_time()
        an = estimate(fresh, cfg)
        cold = min(cold, time.process_time() - c0)
        fresh = mod.clone()
        c0 = time.process_time()
        estimate(fresh, other)
        warm = min(warm, time.process_time() - c0)
    return an, cold, warm, outline


def _small(name: str) -> str:
    # default sizes, except syrk, whose default (N=240) compiles to ~49k DMAs per event run
    sizes = {"syrk": "N=96,M=80"}
    s = sizes.get(name, "")
    return f"{name}:{s}" if s else name


SWEEP_SIZES = (128, 256, 512, 1024, 2048, 4096)


def size_sweep(sizes: list[int], baselines: list[str], rounds: int) -> None:
    """Section 4 (module docstring): one row per (size, tree, mode)."""
    import json
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    import workloads
    from accelsim.compile.accelerator import compile_for_accelerator
    from compiler.text import print_module

    here = str(Path(__file__).resolve().parents[1])
    cfg = load_config("default")
    print("\n== 4. gemm size sweep on default, timing-only (fresh process per run, best of "
          f"{rounds}; CPU = process time of simulate(), RSS = the child's ru_maxrss) ==")
    print(f"{'program':22s} {'tree':24s} {'mode':8s} {'ops':>8s} {'CPU s':>8s} {'wall s':>8s} "
          f"{'ops/s (CPU)':>12s} {'peak RSS MB':>11s} {'growth MB':>9s}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            mod = workloads.get(f"gemm:M={n},N={n},K={n}").module()
            compile_for_accelerator(cfg, mod, None)
            path = os.path.join(tmp, f"gemm{n}.mlir")
            Path(path).write_text(print_module(mod))
            sides = [(here, "this tree", "summary"), (here, "this tree", "records")]
            sides += [(b, b, "records") for b in baselines]
            best: dict[int, dict[str, float]] = {}
            for _ in range(rounds):  # the sides interleaved: each sees the same machine load
                for k, (root, _, mode) in enumerate(sides):
                    env = dict(os.environ, PYTHONPATH=root)
                    res = subprocess.run([sys.executable, __file__, "--sweep-child", path, mode],
                                         env=env, cwd=root, capture_output=True, text=True,
                                         check=True)
                    got = json.loads(res.stdout.splitlines()[-1])
                    if k not in best or got["cpu"] < best[k]["cpu"]:
                        best[k] = got
            for k, (_, name, mode) in enumerate(sides):
                b = best[k]
                print(f"{f'gemm {n}^3':22s} {name[-24:]:24s} {mode:8s} {int(b['ops']):8d} "
                      f"{b['cpu']:8.3f} {b['wall']:8.3f} {b['ops'] / b['cpu']:12,.0f} "
                      f"{b['rss_peak'] / 1024:11.1f} {b['growth'] / 1024:9.1f}", flush=True)


def _sweep_child(path: str, mode: str) -> None:
    """One timing-only run of the MLIR program at `path` on `default`, on whatever tree is
    imported; prints {ops, cpu, wall, rss_peak, growth} (KiB) as JSON."""
    import json
    import resource
    from pathlib import Path

    from compiler.text import parse_module

    mod = parse_module(Path(path).read_text(encoding="utf-8"), path)
    cfg = load_config("default")
    kw = {}
    if mode == "summary":
        from accelsim.sim.options import SimOptions

        kw["options"] = SimOptions(keep_records=False)
    with open("/proc/self/statm") as fh:
        rss_before = int(fh.read().split()[1]) * (resource.getpagesize() // 1024)
    w0, c0 = time.perf_counter(), time.process_time()
    r = simulate(mod, cfg, functional=False, **kw)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"ops": r.stats.dma_ops + r.stats.kernel_calls, "cpu": cpu, "wall": wall,
                      "rss_peak": peak, "growth": max(0, peak - rss_before)}))


def _dram_path() -> str:
    """Which DRAM timing-model path this tree runs."""
    try:
        from accelsim.hw import dram_native
    except ImportError:
        return "python"
    if getattr(dram_native, "extension", lambda: None)() is not None:
        return "extension"
    return "ctypes" if dram_native.library() is not None else "python"


def dram_models(rounds: int, repeat: int = 5, sizes: tuple[int, ...] = (512,),
                closed_forms: bool = True) -> None:
    """Section 5 (module docstring)."""
    import random

    import workloads
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.cost.dram_bounds import bank_conflict_cycles, random_read_cycles, sequential_cycles
    from accelsim.cost.dram_timing import DramTiming, Pattern
    from accelsim.hw.dram_controller import ChannelController
    from accelsim.sim.options import SimOptions

    cfg = load_config("default")
    sides = [("bandwidth", cfg)] + [
        (f"timing {tech}", cfg.with_overrides({"dram.model": "timing", "dram.technology": tech}))
        for tech in ("DDR4-3200", "LPDDR5-6400", "HBM2e")]
    for n in sizes:
        mod = workloads.get(f"gemm:M={n},N={n},K={n}").module()
        compile_for_accelerator(cfg, mod, None)
        print(f"\n== 5. DRAM model: gemm {n}^3 on default, timing-only, trace summary (best CPU of "
              f"{rounds} interleaved rounds x {repeat} runs, in this process; DRAM path: "
              f"{_dram_path()}) ==")
        best: dict[str, tuple[float, object]] = {}
        for _ in range(rounds):
            for name, c in sides:
                cpu, _, r = cpu_best(lambda c=c, mod=mod: simulate(mod, c, functional=False,  # type: ignore[misc]
                                                                   options=SimOptions(keep_records=False)),
                                     repeat=repeat)
                if name not in best or cpu < best[name][0]:
                    best[name] = (cpu, r)
        base = best["bandwidth"][0]
        print(f"{'DRAM model':24s} {'cycles':>10s} {'ops':>6s} {'CPU ms':>8s} {'ops/s (CPU)':>12s} "
              f"{'CPU vs bandwidth':>16s}")
        for name, _ in sides:
            cpu, r = best[name]
            ops = r.stats.dma_ops + r.stats.kernel_calls  # type: ignore[attr-defined]
            print(f"{name:24s} {r.cycles:10,d} {ops:6d} {cpu * 1e3:8.2f} {ops / cpu:12,.0f} "  # type: ignore[attr-defined]
                  f"{cpu / base:15.2f}x")
    if not closed_forms:
        return
    print("\nclosed forms (one channel, DRAM clocks): model / closed form - 1")
    print(f"{'technology':12s} {'sequential':>11s} {'(% of peak)':>11s} {'random 64 B':>12s} "
          f"{'one bank':>9s}")
    for tech in ("DDR4-3200", "LPDDR5-6400", "HBM2e"):
        t = DramTiming.for_config(cfg.with_overrides(
            {"dram.model": "timing", "dram.technology": tech, "dram.channels": 1}))
        n = 40 * t.tREFI // t.tBURST
        seq = ChannelController(t).read(t.requests(Pattern(0, n * t.burst_bytes, n * t.burst_bytes, 1,
                                                           n * t.burst_bytes))[0], 0.0)
        rng = random.Random(7)
        nr = 12_000
        bursts = t.bursts_per_row * t.banks * t.rows
        reqs = tuple(r for _ in range(nr) for r in t.requests(Pattern(
            rng.randrange(bursts) * t.burst_bytes, t.burst_bytes, t.burst_bytes, 1, t.burst_bytes))[0])
        rnd = ChannelController(t).read(reqs, 0.0)
        nb = 4000
        sweep = t.channels * t.bank_groups * t.bursts_per_row * t.banks_per_group * t.burst_bytes
        one = ChannelController(t).read(t.requests(Pattern(0, t.burst_bytes, sweep, nb,
                                                           t.burst_bytes))[0], 0.0)
        print(f"{tech:12s} {seq / sequential_cycles(t, n) - 1:+11.3%} {n * t.tBURST / seq:11.1%} "
              f"{rnd / random_read_cycles(t, nr) - 1:+12.3%} {one / bank_conflict_cycles(t, nb) - 1:+9.3%}")


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=("1", "2", "3", "4", "5"), default=None)
    ap.add_argument("--baseline", metavar="DIR", action="append", default=None,
                    help="sections 1 and 4: also run the cases on the checkout in DIR "
                         "(section 1: the first one, interleaved; section 4: each)")
    ap.add_argument("--sizes", default=None, help="section 4: gemm sizes, e.g. 128,256,512")
    ap.add_argument("--sweep-child", nargs=2, metavar=("MLIR", "MODE"), help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=4, help="interleaved rounds for --baseline")
    ap.add_argument("--repeat", type=int, default=5,
                    help="section 5: runs per DRAM model and round (best CPU kept)")
    ap.add_argument("--dram-sizes", default="512", help="section 5: gemm sizes, e.g. 512,1024")
    ap.add_argument("--cases-json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--estimate-child", metavar="JSON", help=argparse.SUPPRESS)
    ap.add_argument("--speed-only", action="store_true",
                    help="section 3 without event runs: analytic cold/warm CPU per point, best of "
                         "--rounds (PYTHONPATH=DIR: another tree, for before/after); section 5 "
                         "without the closed forms")
    ap.add_argument("--opcodes", action="store_true",
                    help="only: Python bytecodes per simulated op (load-independent)")
    a = ap.parse_args()
    if a.sweep_child:
        _sweep_child(*a.sweep_child)
        return 0
    if a.opcodes:
        opcodes_per_op()
        return 0
    if a.estimate_child:
        _estimate_child(a.estimate_child)
        return 0
    if a.cases_json:  # child of --baseline: section 1's cases on whatever accelsim is imported
        import json

        print(json.dumps(_measure_cases(a.quick, 3)))
        return 0
    print(f"python {sys.version.split()[0]}, simpy {simpy.__version__}")
    if a.only in (None, "1"):
        throughput(a.quick, a.baseline[0] if a.baseline else None, a.rounds)
    if a.only in (None, "2"):
        gemm_1024(a.quick)
    if a.only in (None, "3"):
        if a.speed_only and a.baseline:
            analytic_speed_vs(a.baseline[0], a.rounds)
        elif a.speed_only:
            analytic_speed(a.rounds)
        else:
            analytic_error(a.quick)
    if a.only in (None, "4"):
        sizes = ([int(x) for x in a.sizes.split(",")] if a.sizes
                 else [k for k in SWEEP_SIZES if not a.quick or k <= 1024])
        size_sweep(sizes, a.baseline or [], 1 if a.only is None else a.rounds)
    if a.only in (None, "5"):
        dram_models(a.rounds, a.repeat, tuple(int(x) for x in a.dram_sizes.split(",")),
                    closed_forms=not a.speed_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
