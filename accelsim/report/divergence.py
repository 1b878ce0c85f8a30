"""Cross-fidelity: how far the analytic estimate (a bandwidth/latency model) is from the event
run, per run and per DMA group (`accelsim run ... --fidelity both`, the DSE's `fidelity =
"both"`).

`divergence = analytic / event - 1`: positive when the analytic model is slower than the
event machine, negative when it misses delays the event machine models (with `dram.model =
"timing"`: row misses, bank conflicts, refresh, read/write turnaround).

Per DMA group (the transfers of one `dma_start`, the report's buffer rows): the event figure
is the engine time of its transfers (`BufferRow.dma_cycles`, queueing included); the
analytic figure is what the bandwidth/latency model charges them uncontended, per transfer
setup + latency, and its bytes at the peak of the channels a transfer spreads over
(`HardwareConfig.bandwidth_view`, the figures the estimate itself uses).
"""

from __future__ import annotations

from typing import Any

from accelsim.config import HardwareConfig
from accelsim.report.figures import BufferRow


def divergence(analytic: float, event: float) -> float:
    """analytic / event - 1 (0 when the event run took no cycles)."""
    return analytic / event - 1.0 if event else 0.0


def group_analytic_cycles(row: BufferRow, config: HardwareConfig) -> int:
    """The bandwidth/latency model's uncontended engine time for the group's transfers."""
    view = config.bandwidth_view()
    d = view.dram
    lanes = d.channels if d.interleave == "burst" else 1
    per = view.dma.setup_cycles + (d.latency_cycles if row.direction != "copy" else 0)
    from accelsim.cost.rate import cycles_for

    return row.transfers * per + cycles_for(row.bytes, d.bandwidth_bytes_per_cycle * lanes)


def group_rows(buffers: list[BufferRow], config: HardwareConfig) -> list[dict[str, Any]]:
    """One row per DMA group: its event and analytic cycles and their divergence."""
    out = []
    for b in buffers:
        a = group_analytic_cycles(b, config)
        out.append({"buffer": b.label, "loc": b.loc, "direction": b.direction,
                    "transfers": b.transfers, "event_dma_cycles": b.dma_cycles,
                    "analytic_dma_cycles": a, "divergence": divergence(a, b.dma_cycles)})
    return out


def format_divergence(event: int, analytic: int, groups: list[dict[str, Any]]) -> str:
    """The report's cross-fidelity section."""
    lines = [f"  fidelity   event {event:,} cycles, analytic {analytic:,} cycles: divergence "
             f"{divergence(analytic, event):+.2%} (analytic/event - 1)"]
    for g in groups:
        lines.append(f"    {g['buffer']:<28s} {g['direction']:<4s} event {g['event_dma_cycles']:>10,} "
                     f"analytic {g['analytic_dma_cycles']:>10,} DMA cycles  {g['divergence']:+.2%}")
    return "\n".join(lines)
