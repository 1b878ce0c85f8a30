"""Per-layer and network figures from the figures of each kernel run.

A layer's kernels run one after another, each from an idle machine with its tensors in DRAM,
so a layer's cycles, energy and DRAM bytes are the sums over its kernels, and the network's
the sums over its layers (layer i starts when layer i-1 ends: `start_cycle`). The honest
roofline of a layer is the sum of its kernels' roofline cycles (compulsory traffic of each
kernel as written); `bound` is the bound of the kernel with the largest roofline time.

Other schedules (`accelsim.network.schedule`) build the rows themselves: a row may name the
cluster(s) that ran it (`cluster`, e.g. "0-15") and its own `start_cycle` / `end_cycle`, so
layers may overlap; the network's cycles are then the last end. The network-level figures a
schedule knows (`NetworkResult.network_figures`): `baseline_dram_bytes` (the layer-by-layer
DRAM bytes, hence `dram_bytes_saved`), `honest_bound_bytes` / `honest_bound_cycles` (every
weight read once, the input read once, the output written once, plus the spills the on-chip
capacity forces) and their ratio.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accelsim.network.model import Layer, Network

Figures = Mapping[str, Any]

# summed over kernels, then over layers; the network JSON carries each of them
SUMMED = ("cycles", "energy_pj", "dram_bytes_read", "dram_bytes_written", "dram_bytes",
          "roofline_cycles", "compute_busy_cycles", "dma_busy_cycles", "macs", "ops",
          "compulsory_bytes")
# a row's figures a schedule adds (`accelsim.network.fused`): bytes saved against
# layer-by-layer, the layers of a fused group, its on-chip peak
SCHEDULE_FIGURES = ("dram_bytes_saved", "dram_bytes_layer_by_layer", "fused_group",
                    "onchip_peak_bytes", "onchip_links", "dram_links", "band_rows", "chunk",
                    "weights_onchip")
COLUMNS = ("name", "op", "lowering", "start_cycle", "end_cycle", "cluster", "cycles",
           "compute_utilization",
           "array_busy_fraction", "mac_utilization",
           "dram_bytes_read", "dram_bytes_written", "roofline_ratio", "bound", "energy_pj",
           "mapping_efficiency", "kernels")


@dataclass(frozen=True)
class LayerResult:
    layer: Layer
    start_cycle: int
    figures: dict[str, Any]   # the summed keys above, plus roofline_ratio, bound, utilization
    cluster: str | None = None     # the cluster(s) that ran it ("0-15"); None: one machine
    end: int | None = None         # its end cycle when not start + cycles (overlapping schedules)

    @property
    def cycles(self) -> int:
        return int(self.figures["cycles"])

    @property
    def end_cycle(self) -> int:
        return self.start_cycle + self.cycles if self.end is None else self.end

    def row(self) -> dict[str, Any]:
        f = self.figures
        return {"name": self.layer.name, "op": self.layer.op, "lowering": self.layer.lowering,
                "start_cycle": self.start_cycle, "end_cycle": self.end_cycle, "cluster": self.cluster,
                **{k: f[k] for k in SUMMED},
                "compute_utilization": f["compute_utilization"],
                "array_busy_fraction": f["compute_utilization"],
                "mac_utilization": f.get("mac_utilization"), "roofline_ratio": f["roofline_ratio"],
                "bound": f["bound"], "mapping_efficiency": f.get("mapping_efficiency"),
                "precision": f.get("precision"),
                "kernels": " + ".join(k.workload for k in self.layer.kernels), "where": self.layer.where,
                **{k: f[k] for k in SCHEDULE_FIGURES if k in f}}


def layer_figures(layer: Layer, per_kernel: Sequence[Figures]) -> dict[str, Any]:
    """Sum the kernel figures of one layer (an empty list: a view, no kernel, zero cycles). A
    figure some kernel's run does not give (a many-cluster run on a machine of memory levels
    has no energy; no many-cluster run has DMA busy time) is None for the layer, never a
    flattering 0. On a many-cluster machine a kernel's DRAM bytes are all clusters' together,
    its energy the whole machine's, and its `compute_busy_cycles` the clusters' mean, so the
    layer's `compute_utilization` is the clusters' mean utilization
    (`accelsim.report.clusters.cluster_figures`)."""
    out: dict[str, Any] = {k: 0 for k in SUMMED}
    for f in per_kernel:
        for k in SUMMED:
            v = f.get(k)
            if v is None or out[k] is None:
                out[k] = None if k != "macs" else out[k]
                continue
            out[k] += int(v) if isinstance(v, int) else float(v)
    out["macs"] = max(int(out["macs"] or 0), layer.macs)
    cycles = out["cycles"]
    out["roofline_ratio"] = cycles / out["roofline_cycles"] if out["roofline_cycles"] else None
    busy = out["compute_busy_cycles"]
    out["compute_utilization"] = None if busy is None else busy / cycles if cycles else 0.0
    peaks = [f.get("peak_macs_per_cycle") for f in per_kernel]
    out["peak_macs_per_cycle"] = (max(peaks) if peaks and all(isinstance(p, int) for p in peaks)
                                  else None)
    out["mac_utilization"] = mac_utilization(out["macs"], cycles, out["peak_macs_per_cycle"])
    dominant = max(per_kernel, key=lambda f: f.get("roofline_cycles") or 0, default=None)
    out["bound"] = str(dominant.get("roofline_bound") or "-") if dominant else "-"
    # the MAC precisions of the layer's kernels (`i8->i32`), as their reports name them
    found = [str(f["precision"]) for f in per_kernel if f.get("precision")]
    out["precision"] = ",".join(dict.fromkeys(found)) or None
    effs = [(f.get("mapping_efficiency"), f.get("cycles") or 0) for f in per_kernel]
    known = [(e, c) for e, c in effs if isinstance(e, int | float)]
    if known and len(known) == len(effs):
        total = sum(c for _, c in known)
        out["mapping_efficiency"] = sum(e * c for e, c in known) / total if total else known[0][0]
    return out


@dataclass(frozen=True)
class NetworkResult:
    network: Network
    layers: tuple[LayerResult, ...]
    config: str
    fidelity: str
    clock_ghz: float
    meta: dict[str, Any]      # wall time, distinct kernels, workers, ...
    schedule: str = "layer-by-layer"
    # network-level figures a schedule knows: baseline_dram_bytes, honest_bound_bytes,
    # honest_bound_cycles, ... (module docstring); absent: None in the totals
    network_figures: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def build(network: Network, kernel_figures: Mapping[str, Figures], config: str, fidelity: str,
              clock_ghz: float, meta: dict[str, Any]) -> NetworkResult:
        """`kernel_figures`: workload spec -> its figures (each distinct kernel ran once)."""
        rows: list[LayerResult] = []
        start = 0
        for layer in network.layers:
            figs = layer_figures(layer, [kernel_figures[k.workload] for k in layer.kernels])
            rows.append(LayerResult(layer, start, figs))
            start += int(figs["cycles"])
        return NetworkResult(network, tuple(rows), config, fidelity, clock_ghz, meta)

    def totals(self) -> dict[str, Any]:
        t: dict[str, Any] = {k: _sum(r.figures[k] for r in self.layers) for k in SUMMED}
        # a schedule whose layers ran on parts of the machine knows the whole machine's roofline
        if self.network_figures.get("roofline_cycles") is not None:
            t["roofline_cycles"] = self.network_figures["roofline_cycles"]
        # overlapping layers: the network ends with its last layer (sequential: the sum)
        t["cycles"] = max((r.end_cycle for r in self.layers), default=0) \
            - min((r.start_cycle for r in self.layers), default=0)
        if t["dram_bytes_read"] is not None and t["dram_bytes_written"] is not None:
            t["dram_bytes"] = t["dram_bytes_read"] + t["dram_bytes_written"]
        t["seconds"] = t["cycles"] / (self.clock_ghz * 1e9)
        t["roofline_ratio"] = t["cycles"] / t["roofline_cycles"] if t["roofline_cycles"] else None
        busy = t["compute_busy_cycles"]
        t["compute_utilization"] = None if busy is None else busy / t["cycles"] if t["cycles"] else 0.0
        t["array_busy_fraction"] = t["compute_utilization"]
        peaks = [r.figures.get("peak_macs_per_cycle") for r in self.layers if r.figures["macs"]]
        peak = max(peaks) if peaks and all(isinstance(p, int) for p in peaks) else None
        peak = self.network_figures.get("peak_macs_per_cycle", peak)  # (the whole machine's)
        t["peak_macs_per_cycle"] = peak
        t["mac_utilization"] = mac_utilization(t["macs"], t["cycles"], peak)
        # no schedule beats every MAC on every array of the machine every cycle
        t["mac_bound_cycles"] = mac_bound_cycles(t["macs"], peak)
        t["mac_bound_ratio"] = (t["cycles"] / t["mac_bound_cycles"] if t["mac_bound_cycles"]
                                else None)
        t.update(self.bound_figures(t))
        return t

    def bound_figures(self, t: Mapping[str, Any]) -> dict[str, Any]:
        """`schedule`, `dram_bytes_saved` (against layer-by-layer; 0 for layer-by-layer itself),
        the honest network bound and the ratios to it (None where unknown)."""
        nf = self.network_figures
        base = nf.get("baseline_dram_bytes")
        if base is None and self.schedule == "layer-by-layer":
            base = t.get("dram_bytes")
        dram = t.get("dram_bytes")
        hb, hc = nf.get("honest_bound_bytes"), nf.get("honest_bound_cycles")
        return {"schedule": self.schedule,
                "dram_bytes_saved": None if base is None or dram is None else int(base) - int(dram),
                "dram_bytes_layer_by_layer": base,
                "honest_bound_bytes": hb, "honest_bound_cycles": hc,
                "honest_forced_spill_bytes": nf.get("honest_forced_spill_bytes"),
                # a schedule's on-chip peak per level ({"sram": bytes}); None: not measured
                "onchip_peak_bytes": nf.get("onchip_peak_bytes"),
                "honest_bytes_ratio": dram / hb if hb and dram is not None else None,
                "honest_cycles_ratio": t["cycles"] / hc if hc else None}

    def to_dict(self) -> dict[str, Any]:
        return {"network": self.network.name, "source": self.network.source, "config": self.config,
                "fidelity": self.fidelity, "clock_ghz": self.clock_ghz, **self.totals(),
                "layer_count": len(self.network.layers), "row_count": len(self.layers), **self.meta,
                "layers": [r.row() for r in self.layers]}

    def rows(self) -> list[dict[str, Any]]:
        return [r.row() for r in self.layers]

    def to_csv(self) -> str:
        buf = io.StringIO()
        fields = [*COLUMNS[:6], *(k for k in SUMMED if k not in COLUMNS), *COLUMNS[6:], "where",
                  *(k for k in ("dram_bytes_saved", "onchip_peak_bytes")
                    if any(k in r.figures for r in self.layers))]
        fields = list(dict.fromkeys(fields))
        w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for row in self.rows():
            w.writerow(row)
        return buf.getvalue()

    def dataframe(self) -> Any:
        """One row per layer (pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def table(self, limit: int | None = None) -> str:
        """The per-layer table and the totals, as text."""
        show_eff = any(r.figures.get("mapping_efficiency") is not None for r in self.layers)
        # an ONNX model's layers are its nodes: their op types get a column
        show_op = self.network.source.lower().endswith(".onnx")
        op_head = f"{'op':<18} " if show_op else ""
        head = (f"{'layer':<22} {op_head}{'lowering':<12} {'cycles':>12} {'busy':>6} {'MAC':>6} "
                f"{'DRAM read':>12} "
                f"{'DRAM write':>11} {'roofline':>8} {'bound':<9} {'energy uJ':>10}"
                + (f" {'map eff':>7}" if show_eff else ""))
        groups = sum(1 for r in self.layers if r.layer.lowering == "fused")
        lines = [f"network {self.network.name} ({len(self.network.layers)} layers"
                 + (f" in {len(self.layers)} rows, {groups} fused" if groups else "") + ", "
                 f"{self.meta.get('distinct_kernels', '?')} distinct kernels) on {self.config} "
                 f"[{self.fidelity}], schedule {self.schedule}"
                 + (" (auto)" if self.meta.get("schedule_requested") == "auto" else ""),
                 head, "-" * len(head)]
        shown = self.layers if limit is None or len(self.layers) <= limit else self.layers[:limit]
        for r in shown:
            f = r.figures
            ratio = f"{f['roofline_ratio']:.2f}" if f["roofline_ratio"] else "-"
            eff = f.get("mapping_efficiency")
            op = f"{_clip(r.layer.op, 18):<18} " if show_op else ""
            lines.append(f"{_clip(r.layer.name, 22):<22} {op}{r.layer.lowering:<12} {f['cycles']:>12,} "
                         f"{_pct(f['compute_utilization']):>6} {_pct(f.get('mac_utilization')):>6} "
                         f"{_int(f['dram_bytes_read']):>12} "
                         f"{_int(f['dram_bytes_written']):>11} {ratio:>8} {f['bound']:<9} "
                         f"{_uj(f['energy_pj']):>10}"
                         + ((f" {eff:>7.1%}" if eff is not None else f" {'-':>7}") if show_eff else ""))
        if len(shown) < len(self.layers):
            lines.append(f"... {len(self.layers) - len(shown)} more layers (--csv for all)")
        t = self.totals()
        ratio = f"{t['roofline_ratio']:.2f}" if t["roofline_ratio"] else "-"
        lines.append("-" * len(head))
        lines.append(f"{'total':<22} {op_head and ' ' * len(op_head)}{'':<12} {t['cycles']:>12,} "
                     f"{_pct(t['compute_utilization']):>6} "
                     f"{_pct(t['mac_utilization']):>6} "
                     f"{_int(t['dram_bytes_read']):>12} {_int(t['dram_bytes_written']):>11} {ratio:>8} "
                     f"{'':<9} {_uj(t['energy_pj']):>10}")
        lines.append(f"{t['cycles']:,} cycles = {t['seconds'] * 1e3:.3f} ms at {self.clock_ghz:g} GHz; "
                     f"{int(t['macs']):,} MACs; simulated in {self.meta.get('wall_seconds', 0):.2f} s")
        lines.append("busy = array busy (cycles a kernel ran / cycles); MAC = MAC utilization (MACs / "
                     "(cycles x peak MACs a cycle))"
                     + (f"; DRAM {t['dram_bytes']:,} B moved" if t.get("dram_bytes") is not None
                        and t["dram_bytes_read"] is None else ""))
        lines.extend(self.bound_lines(t))
        lines.extend(self.cluster_lines(t))
        return "\n".join(lines)

    def cluster_lines(self, t: Mapping[str, Any]) -> list[str]:
        """Per cluster, when the rows name clusters (a many-cluster schedule): the layers it ran
        and its busy cycles (the layers' own cycles on it) against the run's."""
        per: dict[int, list[LayerResult]] = {}
        for r in self.layers:
            if r.cluster:
                first, _, last = r.cluster.partition("-")
                for c in range(int(first), int(last or first) + 1):
                    per.setdefault(c, []).append(r)
        out = []
        for c in sorted(per):
            busy = sum(r.cycles for r in per[c])
            share = f" ({busy / t['cycles']:.0%} of the run)" if t["cycles"] else ""
            out.append(f"cluster {c}: {len(per[c])} layer{'s' if len(per[c]) != 1 else ''}, "
                       f"busy {busy:,} cycles{share}")
        return out

    def bound_lines(self, t: Mapping[str, Any]) -> list[str]:
        """The DRAM bytes saved against layer-by-layer and the honest network bound, when known."""
        out = []
        if t.get("dram_bytes_saved") is not None and self.schedule != "layer-by-layer":
            base = t["dram_bytes_layer_by_layer"]
            out.append(f"DRAM {t['dram_bytes']:,} B vs {base:,} B layer by layer: "
                       f"{t['dram_bytes_saved']:,} B saved ({t['dram_bytes_saved'] / base:.1%})"
                       if base else f"DRAM bytes saved vs layer by layer: {t['dram_bytes_saved']:,}")
        if self.schedule == "fused" and not any(g.figures.get("fused_group") for g in self.layers):
            out.append("fused: no group formed: " + str(self.meta.get(
                "fused_note", "no intermediate the on-chip level holds made a group faster and "
                "lighter on DRAM by the estimate; every layer ran as layer by layer runs it")))
        for g in self.layers:
            f = g.figures
            if f.get("fused_group"):
                held = ", weights held on chip" if f.get("weights_onchip") else ""
                bands = (f" in bands of {f['band_rows']} row(s){held}" if f.get("band_rows") else
                         f" in chunks of {f['chunk']}" if f.get("chunk") else "")
                out.append(f"fused {g.layer.name}: {len(f['fused_group'])} layers one program, "
                           f"{f['onchip_links']} intermediate(s) on chip{bands}, {f['dram_links']} through "
                           f"DRAM; DRAM {_int(f['dram_bytes'])} B ({_int(f['dram_bytes_saved'])} B "
                           f"saved), on-chip peak {_int(f['onchip_peak_bytes'])} B")
        if t.get("mac_bound_cycles"):
            out.append(f"MAC bound: {t['mac_bound_cycles']:,} cycles ({int(t['macs']):,} MACs / "
                       f"{t['peak_macs_per_cycle']:,} MACs a cycle, every array of the machine "
                       f"busy every cycle); this schedule {t['mac_bound_ratio']:.2f}x of it")
        if t.get("honest_bound_bytes") is not None:
            ratio = t.get("honest_bytes_ratio")
            cyc = t.get("honest_bound_cycles")
            out.append(f"honest network bound: {t['honest_bound_bytes']:,} B DRAM"
                       + (f" ({ratio:.2f}x of it moved)" if ratio is not None else "")
                       + (f", {cyc:,} cycles ({t['honest_cycles_ratio']:.2f}x)" if cyc else "")
                       + " (every weight read once, the input once, the output written once, "
                         "plus forced spills)")
        return out


def mac_bound_cycles(macs: Any, peak: Any) -> int | None:
    """The cycles no schedule beats: ceil(MACs / the machine's peak MACs a cycle) (on a
    machine of C clusters: C x one array's MACs a cycle); None where one is unknown or no MAC."""
    if not macs or not peak:
        return None
    return -(-int(macs) // int(peak))


def mac_utilization(macs: Any, cycles: Any, peak: Any) -> float | None:
    """Useful MACs / (cycles x the machine's peak MACs a cycle); None where one is unknown."""
    if macs is None or not cycles or not peak:
        return None
    return float(macs) / (float(cycles) * float(peak))


def _sum(values: Any) -> Any:
    """A total, or None when some layer does not give the figure."""
    vals = list(values)
    return None if any(v is None for v in vals) else sum(vals)


def _int(v: Any) -> str:
    return "n/a" if v is None else f"{int(v):,}"


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{v:.1%}"


def _uj(v: Any) -> str:
    return "n/a" if v is None else f"{v / 1e6:.3f}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
