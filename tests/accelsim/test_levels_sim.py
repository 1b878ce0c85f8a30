"""Memory levels in the simulator: DMAs between adjacent levels move real data (3 and 4
levels, simulated == host backend == numpy), the analytic estimate walks the same hierarchy
to the same cycle, non-adjacent transfers are routed or refused as the config says, and
capacity, races and bounds are caught at every level with the op and the level named."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config, simulate
from accelsim.errors import CapacityError, HazardError
from accelsim.estimate.analytic import estimate
from compiler.backend import run_host
from compiler.text import parse_file, parse_module

DATA = Path(__file__).parent / "data" / "levels"
FOUR = """
name = "four"
[[memory]]
name = "dram"
space = 0
[[memory]]
name = "glb"
space = 1
parent = "dram"
capacity_kib = 64
ports = 2
[[memory]]
name = "spad"
space = 2
parent = "glb"
capacity_kib = 16
read_bytes_per_cycle = 128
write_bytes_per_cycle = 128
[[memory]]
name = "acc"
space = 3
parent = "spad"
capacity_kib = 4
read_bytes_per_cycle = 256
write_bytes_per_cycle = 256
latency_cycles = 0
[spaces]
tag = 9
"""


def four_levels(tmp_path, **over):
    p = tmp_path / "four.toml"
    p.write_text(FOUR)
    return load_config(str(p), over or None)


def chain_program(spaces, tag, n=256, tile=64):
    """A through every level down to the last (a whole copy per level, then tile by tile
    into the last two), y = 2x + 1 there, and back up the same way into B."""
    top, inner = spaces[:-1], spaces[-1]
    lines = [f"func.func private @k(%x: memref<{tile}xf32, {inner}>) {{",
             "  %two = arith.constant 2.0 : f32",
             "  %one = arith.constant 1.0 : f32",
             f"  affine.for %j = 0 to {tile} {{",
             f"    %v = affine.load %x[%j] : memref<{tile}xf32, {inner}>",
             "    %w = arith.mulf %v, %two : f32",
             "    %y = arith.addf %w, %one : f32",
             f"    affine.store %y, %x[%j] : memref<{tile}xf32, {inner}>",
             "  }", "  return", "}",
             f"func.func @chain(%A: memref<{n}xf32>, %B: memref<{n}xf32>) {{",
             f"  %n = arith.constant {n} : index", f"  %t = arith.constant {tile} : index",
             f"  %tag = memref.alloc() : memref<1xi32, {tag}>"]
    tt = f"memref<1xi32, {tag}>"
    bufs = ["%A"] + [f"%l{s}" for s in top[1:]]
    types = [f"memref<{n}xf32>"] + [f"memref<{n}xf32, {s}>" for s in top[1:]]
    for s in top[1:]:
        lines.append(f"  %l{s} = memref.alloc() : memref<{n}xf32, {s}>")
    lines.append(f"  %x = memref.alloc() : memref<{tile}xf32, {inner}>")
    xt = f"memref<{tile}xf32, {inner}>"
    for a in range(len(bufs) - 1):  # whole copies down the upper levels
        lines += [f"  affine.dma_start {bufs[a]}[0], {bufs[a + 1]}[0], %tag[0], %n : "
                  f"{types[a]}, {types[a + 1]}, {tt}",
                  f"  affine.dma_wait %tag[0], %n : {tt}"]
    last, lt = bufs[-1], types[-1]
    back = last if len(bufs) > 1 else "%B"  # straight from and to DRAM: into B
    lines += [f"  affine.for %i = 0 to {n // tile} {{",
              f"    affine.dma_start {last}[%i * {tile}], %x[0], %tag[0], %t : {lt}, {xt}, {tt}",
              f"    affine.dma_wait %tag[0], %t : {tt}",
              f"    func.call @k(%x) : ({xt}) -> ()",
              f"    affine.dma_start %x[0], {back}[%i * {tile}], %tag[0], %t : {xt}, {lt}, {tt}",
              f"    affine.dma_wait %tag[0], %t : {tt}", "  }"]
    ups = [*bufs[1:][::-1], "%B"] if len(bufs) > 1 else []
    uts = [*types[1:][::-1], f"memref<{n}xf32>"]
    for a in range(len(ups) - 1):
        lines += [f"  affine.dma_start {ups[a]}[0], {ups[a + 1]}[0], %tag[0], %n : "
                  f"{uts[a]}, {uts[a + 1]}, {tt}",
                  f"  affine.dma_wait %tag[0], %n : {tt}"]
    lines += ["  return", "}"]
    return parse_module("\n".join(lines), "<chain>")


def inputs(n=256):
    rng = np.random.default_rng(7)
    return {"A": rng.uniform(-1, 1, n).astype(np.float32), "B": np.zeros(n, np.float32)}


def check_equal_everywhere(module, cfg, func):
    ins = inputs()
    res = simulate(module, cfg, inputs=ins, func=func)
    host = run_host(module, ins, func)
    np.testing.assert_array_equal(res.outputs["B"], host["B"])
    np.testing.assert_array_equal(res.outputs["B"], ins["A"] * np.float32(2) + np.float32(1))
    assert not res.flags, res.flags
    assert estimate(module, cfg, func=func).cycles == res.cycles  # analytic == event
    return res


def test_hand_written_three_level_program_equals_host_and_numpy():
    module = parse_file(str(DATA / "scale3.mlir"))
    res = check_equal_everywhere(module, load_config("three_level"), "scale3")
    units = {r.unit for r in res.trace.records}
    # both links' engines carried transfers; DRAM and the glb's ports were held
    assert any(u.startswith("dma[dram->glb]") for u in units)
    assert any(u.startswith("dma[glb->spad]") for u in units)
    assert any(u.startswith("dram.ch") for u in units) and "port.glb.0" in units
    # the levels' high-water marks: the glb holds A (1 KiB), the spad two tiles
    assert res.level_peaks == {"dram": 2048, "glb": 1024, "spad": 512}


@pytest.mark.parametrize("levels", [3, 4])
def test_chain_through_every_level_equals_host(tmp_path, levels):
    cfg = load_config("three_level") if levels == 3 else four_levels(tmp_path)
    spaces = [lv.space for lv in cfg.memory_chain()]
    res = check_equal_everywhere(chain_program(spaces, cfg.spaces.tag), cfg, "chain")
    # every link carried data both ways: per level, bytes read and written by DMAs
    n = 256 * 4
    rw = res.stats.level_dma_bytes
    assert rw[0] == [n, n]                      # DRAM: A read once, B written once
    for k in range(1, levels - 1):
        assert rw[k] == [2 * n, 2 * n]          # each middle level: in and out, both ways
    assert rw[-1] == [n, n]                     # the last: every tile in and out once


def test_non_adjacent_dma_is_refused_naming_op_and_levels(tmp_path):
    cfg = four_levels(tmp_path)
    module = chain_program([0, 3], cfg.spaces.tag)  # DRAM <-> acc directly
    with pytest.raises(HazardError) as err:
        simulate(module, cfg, inputs=inputs(), func="chain")
    msg = str(err.value)
    assert "affine.dma_start from %A (level dram, space 0) to %x (level acc, space 3)" in msg
    assert "crosses 3 links (dram->glb, glb->spad, spad->acc)" in msg


def test_non_adjacent_dma_is_routed_hop_by_hop(tmp_path):
    cfg = four_levels(tmp_path, **{"hierarchy.non_adjacent": "route"})
    module = chain_program([0, 3], cfg.spaces.tag)
    res = check_equal_everywhere(module, cfg, "chain")
    first = sorted((r for r in res.trace.records if r.unit.startswith("dma[")
                    and r.label == "A->x"), key=lambda r: r.start)[:3]
    # the first tile: one hop per link, each starting when the one before completed
    assert [r.unit.split("]")[0] + "]" for r in first] == ["dma[dram->glb]", "dma[glb->spad]",
                                                           "dma[spad->acc]"]
    assert first[1].start == first[0].end and first[2].start == first[1].end


def test_contention_on_a_level_port_closed_form(tmp_path):
    """Two 512 B DMAs glb -> spad issued together on two engines: with one glb port the
    second waits for the first's port cycles, with two they run side by side. Per hop:
    setup s, then max(bytes / glb per-port bw, bytes / spad write bw) on the port, then the
    glb latency L."""
    n, s, L = 128, 5, 3
    g, x, tg = f"memref<{2 * n}xf32, 1>", f"memref<{2 * n}xf32, 2>", "memref<3xi32, 9>"
    text = f"""
func.func @two(%A: memref<{2 * n}xf32>) {{
  %n = arith.constant {n} : index
  %g = memref.alloc() : memref<{2 * n}xf32, 1>
  %x = memref.alloc() : memref<{2 * n}xf32, 2>
  %tag = memref.alloc() : memref<3xi32, 9>
  affine.dma_start %A[0], %g[0], %tag[2], %n : memref<{2 * n}xf32>, {g}, {tg}
  affine.dma_wait %tag[2], %n : {tg}
  affine.dma_start %g[0], %x[0], %tag[0], %n : {g}, {x}, {tg}
  affine.dma_start %g[{n}], %x[{n}], %tag[1], %n : {g}, {x}, {tg}
  affine.dma_wait %tag[0], %n : memref<3xi32, 9>
  affine.dma_wait %tag[1], %n : memref<3xi32, 9>
  return
}}"""
    module = parse_module(text, "<two>")
    for ports in (1, 2):
        cfg = four_levels(tmp_path, **{"memory.glb.ports": ports, "memory.glb.read_bytes_per_cycle": 16,
                                       "memory.glb.latency_cycles": L, "link.spad.setup_cycles": s,
                                       "link.spad.engines": 2})
        res = simulate(module, cfg, inputs={"A": np.zeros(2 * n, np.float32)}, func="two")
        t0 = max(r.end for r in res.trace.records if r.label == "A->g" and r.unit.startswith("dma"))
        hold = max(4 * n // 16, -(-4 * n // 128))  # 32 cycles on the glb port
        spans = sorted((r.start, r.end) for r in res.trace.records if r.unit.startswith("port.glb"))
        engines = sorted((r.start - t0, r.end - t0) for r in res.trace.records
                         if r.unit.startswith("dma[glb->spad]"))
        if ports == 1:
            assert [(a - t0, b - t0) for a, b in spans] == [(s, s + hold), (s + hold, s + 2 * hold)]
            assert engines == [(0, s + hold + L), (0, s + 2 * hold + L)]
        else:
            assert [(a - t0, b - t0) for a, b in spans] == [(s, s + hold)] * 2
            assert engines == [(0, s + hold + L)] * 2
        assert estimate(module, cfg, func="two").cycles == res.cycles


def test_capacity_is_checked_per_level(tmp_path):
    cfg = four_levels(tmp_path, **{"memory.acc.capacity_kib": 1})  # 1 KiB: the 256 B tile fits
    spaces = [lv.space for lv in cfg.memory_chain()]
    simulate(chain_program(spaces, cfg.spaces.tag), cfg, inputs=inputs(), func="chain")
    with pytest.raises(CapacityError, match=r"memref.alloc of x \(2048 B\) at cycle 0 does not fit "
                                            r"in memory level acc \(space 3\): capacity 1024 B"):
        simulate(chain_program(spaces, cfg.spaces.tag, n=512, tile=512), cfg,
                 inputs=inputs(512), func="chain")


def test_races_and_bounds_name_the_level(tmp_path):
    cfg = four_levels(tmp_path)
    text = """
func.func @race(%A: memref<64xf32>) {
  %n = arith.constant 64 : index
  %g = memref.alloc() : memref<64xf32, 1>
  %x = memref.alloc() : memref<64xf32, 2>
  %tag = memref.alloc() : memref<2xi32, 9>
  affine.dma_start %A[0], %g[0], %tag[0], %n : memref<64xf32>, memref<64xf32, 1>, memref<2xi32, 9>
  affine.dma_start %g[0], %x[0], %tag[1], %n : memref<64xf32, 1>, memref<64xf32, 2>, memref<2xi32, 9>
  affine.dma_wait %tag[0], %n : memref<2xi32, 9>
  affine.dma_wait %tag[1], %n : memref<2xi32, 9>
  return
}"""
    with pytest.raises(HazardError, match=r"affine.dma_start reads g \(in glb\) element \[0\] at "
                                          r"cycle 0 while a DMA into it is in flight \(A->g"):
        simulate(parse_module(text, "<race>"), cfg, inputs={"A": np.zeros(64, np.float32)}, func="race")
    oob = text.replace("%g[0], %x[0], %tag[1]", "%g[0], %x[8], %tag[1]").replace(
        "affine.dma_wait %tag[0], %n : memref<2xi32, 9>\n  affine.dma_wait %tag[1]",
        "affine.dma_wait %tag[1]").replace(
        "affine.dma_start %A[0], %g[0], %tag[0], %n : memref<64xf32>, memref<64xf32, 1>, "
        "memref<2xi32, 9>\n", "")
    with pytest.raises(HazardError, match=r"destination x\[8\] \(in spad\) runs outside "
                                          r"memref<64xf32, 2>"):
        simulate(parse_module(oob, "<oob>"), cfg, inputs={"A": np.zeros(64, np.float32)}, func="race")


LEVEL_MACHINE = st.fixed_dictionaries({
    "memory.glb.ports": st.integers(1, 3), "memory.glb.read_bytes_per_cycle": st.sampled_from([8, 64]),
    "memory.glb.write_bytes_per_cycle": st.sampled_from([8, 64]),
    "memory.glb.latency_cycles": st.integers(0, 20),
    "memory.spad.read_bytes_per_cycle": st.sampled_from([16, 128]),
    "link.glb.engines": st.integers(1, 3), "link.glb.queue_depth": st.integers(1, 3),
    "link.glb.setup_cycles": st.integers(0, 30), "link.glb.max_outstanding": st.integers(1, 4),
    "link.spad.engines": st.integers(1, 3), "link.spad.queue_depth": st.integers(1, 3),
    "link.spad.setup_cycles": st.integers(0, 30), "link.spad.max_outstanding": st.integers(1, 4),
    "dram.channels": st.integers(1, 3), "dram.interleave": st.sampled_from(["burst", "none"]),
    "control.issue_cycles": st.integers(0, 3)})


@settings(max_examples=25, deadline=None)
@given(over=LEVEL_MACHINE)
def test_analytic_equals_event_on_random_hierarchies(over):
    """The pipelined 3-level program (concurrent DMAs on both links, double buffering) on
    random link and level figures: the analytic estimate walks it to the event run's cycle."""
    cfg = load_config("three_level").with_overrides(over)
    module = parse_file(str(DATA / "scale3.mlir"))
    res = simulate(module, cfg, inputs=inputs(), func="scale3", functional=False)
    assert estimate(module, cfg, func="scale3").cycles == res.cycles
    routed = cfg.with_overrides({"hierarchy.non_adjacent": "route"})
    chain = chain_program([0, 2], cfg.spaces.tag)
    assert estimate(chain, routed, func="chain").cycles == simulate(
        chain, routed, func="chain", functional=False).cycles
