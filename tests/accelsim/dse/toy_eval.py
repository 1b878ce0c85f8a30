"""Closed-form evaluation functions for testing the sweep machinery without the simulator.

They are pure functions of the point, so two runners must store identical figures for them.
"""

from __future__ import annotations

import os
import time

from accelsim.dse import Point


def closed_form(point: Point) -> dict[str, float | int | str]:
    """cycles fall and energy rises with SRAM; stages trade cycles for SRAM."""
    hw, opts = point.hw, point.options
    sram = int(hw.get("sram.capacity_kib", 256))
    engines = int(hw.get("dma.engines", 1))
    stages = int(opts["stages"])
    cycles = 100_000 // sram + 5_000 // (engines * stages)
    return {"cycles": cycles, "energy_pj": 3.0 * sram + 7.5 * engines + 0.25 * stages,
            "sram_peak_bytes": sram * 1024 * stages // 4, "note": f"{sram}x{engines}x{stages}"}


def failing(point: Point) -> dict[str, float | int | str]:
    """Raises for 32 KiB of SRAM (a point-level error), else the closed form."""
    if point.hw.get("sram.capacity_kib") == 32:
        raise ValueError("SRAM of 32 KiB cannot hold the tile buffers")
    return closed_form(point)


def crashing(point: Point) -> dict[str, float | int | str]:
    """Kills its worker process for dma.engines == 3 (like a segfault in native code)."""
    if point.hw.get("dma.engines") == 3:
        os._exit(17)
    return closed_form(point)


def slow(point: Point) -> dict[str, float | int | str]:
    """`failing` after a short sleep, so each worker gets points and a sweep can be killed mid-way."""
    time.sleep(float(os.environ.get("TOY_SLEEP_S", "0.05")))
    return failing(point)


def grouped(point: Point) -> dict[str, float | int | str]:
    """`slow`, with a group per SRAM size (as if the SRAM size decided the compiled program)."""
    return slow(point)


grouped.group_key = lambda p: p.hw.get("sram.capacity_kib")  # type: ignore[attr-defined]


def grouped_crashing(point: Point) -> dict[str, float | int | str]:
    """`crashing`, grouped by `stages` (so a crashing point shares its task with others)."""
    return crashing(point)


grouped_crashing.group_key = lambda p: p.options["stages"]  # type: ignore[attr-defined]


def infeasible(point: Point) -> dict[str, float | int | str]:
    """32 KiB of SRAM is infeasible (decided before evaluating, as the simulator's check does)."""
    from accelsim.dse.feasibility import InfeasiblePoint

    if point.hw.get("sram.capacity_kib") == 32:
        raise InfeasiblePoint("tile buffers need 49,152 B of SRAM; the SRAM holds 32,768 B")
    return closed_form(point)


def _mark_started() -> None:
    """With TOY_MARK_DIR set: leave a file named after this process, so a test knows it runs."""
    where = os.environ.get("TOY_MARK_DIR")
    if where:
        with open(os.path.join(where, f"{os.getpid()}.started"), "w") as f:
            f.write(str(os.getppid()))


def spinning(point: Point) -> dict[str, float | int | str]:
    """A Python loop that never ends for dma.engines == 3 (a simulation that does not stop)."""
    if point.hw.get("dma.engines") == 3:
        _mark_started()
        n = 0
        while True:
            n += 1
    return closed_form(point)


def sleeping(point: Point) -> dict[str, float | int | str]:
    """Blocks in one long sleep for dma.engines == 3 (outside Python bytecode)."""
    if point.hw.get("dma.engines") == 3:
        _mark_started()
        time.sleep(3600)
    return closed_form(point)


def native_hang(point: Point) -> dict[str, float | int | str]:
    """Every point hangs in C code that holds the GIL (a catastrophic regular expression):
    no Python-level handler or thread of this process runs until it returns."""
    import re

    _mark_started()
    re.match(r"(a+)+$", "a" * 64 + "b")
    return closed_form(point)


def sleeping_all(point: Point) -> dict[str, float | int | str]:
    """Every point sleeps for an hour (Ctrl-C / SIGTERM tests)."""
    _mark_started()
    time.sleep(3600)
    return closed_form(point)


def native_hang_engines_3(point: Point) -> dict[str, float | int | str]:
    """`native_hang` for dma.engines == 3, else the closed form."""
    if point.hw.get("dma.engines") == 3:
        return native_hang(point)
    return closed_form(point)
