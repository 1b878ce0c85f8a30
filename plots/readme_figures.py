"""Makes the figures of the README and docs/concepts/reports.md (in docs/img/): the timeline
`make demo` draws (the README's picture), and the overlap timeline of a tiled gemm before
pipelining (tile + DMA copies) and after (+ affine-pipeline-data-transfer), drawn on the same
cycle axis, their roofline, and the A/B table that goes with them.

    .venv/bin/python -m plots.readme_figures            # writes docs/img/*.png and gemm_ab.txt
    .venv/bin/python -m plots.readme_figures --only demo

Everything comes from the compiler passes and the simulator, run here; the script prints the
table and the file sizes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
from pathlib import Path

from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import HardwareConfig

SPEC = "gemm:M=128,N=128,K=128"
CONFIG = "default"
TILES = (32, 32, 32)
CAPACITY_KIB = 16
# `make demo`'s run (the Makefile's command without its output files)
DEMO = ["run", "gemm:M=256,N=256,K=256", "--target", "sim", "--config", "default", "--check"]


def pipeline(pipelined: bool, config: HardwareConfig) -> AcceleratorPipeline:
    """Tiles of 32, copies in 16 KiB, then 2-stage pipelining (no capacity limit) or none."""
    pipe = (AcceleratorPipeline.for_config(config).with_tiles(TILES, CAPACITY_KIB)
            .replace(pipeline_capacity_kib=None))
    return pipe if pipelined else pipe.replace(stages=1)


def pass_flags(pipelined: bool, config: HardwareConfig) -> list[str]:
    return pipeline(pipelined, config).flags()


def run(pipelined: bool):  # type: ignore[no-untyped-def]
    import workloads
    from accelsim import load_config, simulate
    from compiler.transforms.registry import PassManager

    cfg = load_config(CONFIG)
    w = workloads.get(SPEC)
    module = w.module()
    PassManager(pipeline(pipelined, cfg).passes()).run(module)
    inputs = w.random_inputs(0)
    result = simulate(module, cfg, inputs=inputs)
    expected = w.reference(inputs)
    import numpy as np

    for name in w.outputs:  # the figure shows a run that computed the right answer
        np.testing.assert_allclose(result.outputs[name], expected[name], rtol=w.rtol, atol=w.atol)
    return result


def demo_timeline(path: Path) -> None:
    """The README's picture: the timeline of `make demo`'s run, drawn by the CLI itself."""
    from accelsim.cli import main as cli

    with contextlib.redirect_stdout(io.StringIO()):
        status = cli([*DEMO, "--timeline", str(path)])
    if status:
        raise SystemExit(f"the demo run failed (exit {status})")


def main(argv: list[str] | None = None) -> int:
    from accelsim.report import Report, compare
    from plots.roofline import plot_roofline
    from plots.timeline import plot_timeline

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "img"))
    ap.add_argument("--only", choices=("demo", "gemm"), help="make only the demo's timeline or only "
                    "the gemm before/after figures")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.only != "gemm":
        demo_timeline(out / "demo_timeline.png")
        print(f"{out / 'demo_timeline.png'}: {os.path.getsize(out / 'demo_timeline.png') / 1024:.0f} KiB")
    if args.only == "demo":
        return 0
    before, after = run(False), run(True)
    import workloads
    from accelsim.report import input_traffic

    w = workloads.get(SPEC)  # the honest roofline: the traffic of the program before the passes
    traffic = input_traffic(w.module(), w.func_name, before.config)
    rb, ra = Report.from_result(before, traffic), Report.from_result(after, traffic)
    window = (0, max(before.cycles, after.cycles))
    common = {"config": before.config, "window": window, "width_px": 1200, "lane_px": 30, "dpi": 100}
    files = [out / "gemm_timeline_before.png", out / "gemm_timeline_after.png",
             out / "gemm_roofline.png"]
    tiles = ",".join(map(str, TILES))
    plot_timeline(before.trace, files[0], title=f"{SPEC}, tiles {tiles}, DMA copies, no pipelining: "
                  f"{before.cycles:,} cycles", **common)
    plot_timeline(after.trace, files[1], title=f"{SPEC}, tiles {tiles}, DMA copies + "
                  f"affine-pipeline-data-transfer: {after.cycles:,} cycles", **common)
    # steady state of the pipelined run: kernels 16..24 (the second row of output tiles)
    kernels = after.trace.of("compute", "kernel")
    zoom = (kernels[16].start - 400, kernels[min(24, len(kernels) - 1)].start)
    files.append(out / "gemm_timeline_after_zoom.png")
    plot_timeline(after.trace, files[3], config=after.config, window=zoom, width_px=1200,
                  lane_px=30, title=f"copy + pipeline, steady state (cycles {zoom[0]:,} to {zoom[1]:,})")
    plot_roofline([("copy only", rb), ("copy + pipeline", ra)], files[2], config=before.config,
                  title=f"roofline: {SPEC} on '{CONFIG}'")
    table = compare(rb, ra, ("copy only", "copy + pipeline"))
    sides = [" ".join(f[2:] for f in pass_flags(p, before.config)) for p in (False, True)]
    text = f'accelsim run {SPEC} --target sim --compare "{sides[0]}" "{sides[1]}"\n\n{table}\n'

    (out / "gemm_ab.txt").write_text(text)
    print(text)
    for f in files:
        print(f"{f}: {os.path.getsize(f) / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
