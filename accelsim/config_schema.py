"""The hardware description's schema: every key with its type, range, default, unit and
meaning, read from the config classes (their fields, defaults and validation `RULES`) and
the units and meanings below. `accelsim config show` prints a config with them as comments;
`docs/reference/hardware.md` is generated from them (`python -m accelsim.cli.reference`),
and a test fails when a key has no entry here or the page is out of date.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from accelsim.config_rules import Rate, fmt_number

_DRAM_CLOCKS = "DRAM command clocks"
# dotted key -> (unit, meaning). Keys of [[memory]] / [[link]] tables as memory.<key>, link.<key>.
DOCS: dict[str, tuple[str, str]] = {
    # top level
    "name": ("", "the machine's name, shown in reports (not part of the content hash)"),
    "clock_ghz": ("GHz", "the accelerator clock; every cycle figure is in its cycles, and a rate "
                         "per second (dram.bandwidth = \"25.6 GB/s\") is converted with it"),
    "clusters": ("", "compute clusters; each has its own last memory level, DMA engines, compute "
                     "unit and control processor, the other levels are shared over [interconnect]"),
    # [dram]
    "dram.channels": ("", "DRAM channels, shared by every DMA engine"),
    "dram.bandwidth_bytes_per_cycle": ("B/cycle", "per channel; a non-integer rate is allowed "
                                       "(12.8). Or give dram.bandwidth with a unit instead. Read "
                                       "only by dram.model = \"bandwidth\""),
    "dram.bandwidth": ("B/cycle or per second", "dram.bandwidth_bytes_per_cycle with a unit: "
                       "\"25.6 GB/s\" (per channel, converted with clock_ghz, which the file "
                       "must then give), \"12.8 B/cycle\"; units B/s kB/s MB/s GB/s TB/s KiB/s "
                       "MiB/s GiB/s TiB/s B/cycle"),
    "dram.latency_cycles": ("cycles", "access latency of a transfer before its bytes flow "
                            "(with the timing model: added to the technology's tRCD + tCL)"),
    "dram.burst_bytes": ("B", "a transfer moves whole bursts (bandwidth model)"),
    "dram.interleave": ("", "\"burst\": a transfer's bursts spread round-robin over the channels; "
                            "\"none\": a transfer uses one channel"),
    "dram.data_paths": ("", "\"shared\": reads and writes share the channels; \"split\": each "
                            "direction has dram.channels channels of its own (separate read and "
                            "write data wires, as TileLink's D and A or AXI's R and W channels)"),
    "dram.model": ("", "\"bandwidth\": latency + bytes at the bandwidth key; \"timing\": banks, "
                       "rows and timings of dram.technology (accelsim.cost.dram_timing), whose "
                       "effective peak then replaces the bandwidth key everywhere"),
    "dram.technology": ("", "the timing model's DRAM standard (its organization and timings; "
                            "each dram.t* / organization key overrides one)"),
    "dram.page_policy": ("", "timing model: \"open\" keeps a row open after an access, "
                             "\"closed\" precharges it"),
    "dram.read_queue": ("requests", "timing model: requests the FR-FCFS scheduler looks ahead over"),
    "dram.write_queue": ("bursts", "timing model: bursts the write queue holds"),
    "dram.write_high_watermark": ("bursts", "timing model: drain writes when this many wait ..."),
    "dram.write_low_watermark": ("bursts", "... down to this many"),
    "dram.address_mapping": ("", "timing model: the address fields, most significant first, "
                                 "colon separated from ro ra ba co bg ch (unset: the technology's)"),
    "dram.clock_mhz": ("MHz", "timing model: the DRAM command clock (unset: the technology's)"),
    "dram.beats_per_clock": ("", "timing model: data beats per DRAM clock (2: DDR)"),
    "dram.burst_length": ("beats", "timing model: beats of one burst"),
    "dram.bus_bytes": ("B", "timing model: the channel's data bus width"),
    "dram.ranks": ("", "timing model: ranks per channel"),
    "dram.bank_groups": ("", "timing model: bank groups per rank"),
    "dram.banks_per_group": ("", "timing model: banks per bank group"),
    "dram.rows": ("", "timing model: rows per bank"),
    "dram.columns": ("", "timing model: columns (of bus_bytes) per row"),
    "dram.tCL": (_DRAM_CLOCKS, "CAS latency: read command to first data"),
    "dram.tCWL": (_DRAM_CLOCKS, "CAS write latency: write command to first data"),
    "dram.tRCD": (_DRAM_CLOCKS, "activate to read/write"),
    "dram.tRP": (_DRAM_CLOCKS, "precharge to activate"),
    "dram.tRAS": (_DRAM_CLOCKS, "activate to precharge (a row open at least this long)"),
    "dram.tRC": (_DRAM_CLOCKS, "activate to activate, same bank"),
    "dram.tCCD_S": (_DRAM_CLOCKS, "column command to column command, different bank group"),
    "dram.tCCD_L": (_DRAM_CLOCKS, "column command to column command, same bank group"),
    "dram.tRRD_S": (_DRAM_CLOCKS, "activate to activate, different bank group"),
    "dram.tRRD_L": (_DRAM_CLOCKS, "activate to activate, same bank group"),
    "dram.tFAW": (_DRAM_CLOCKS, "window in which at most four activates issue"),
    "dram.tWR": (_DRAM_CLOCKS, "write recovery: end of write data to precharge"),
    "dram.tWTR": (_DRAM_CLOCKS, "end of write data to read command"),
    "dram.tRTW": (_DRAM_CLOCKS, "read command to write command"),
    "dram.tRTP": (_DRAM_CLOCKS, "read command to precharge"),
    "dram.tREFI": (_DRAM_CLOCKS, "refresh interval"),
    "dram.tRFC": (_DRAM_CLOCKS, "refresh cycle time (the rank is busy)"),
    # [sram]
    "sram.capacity_kib": ("KiB", "scratchpad capacity, checked on every allocation"),
    "sram.banks": ("", "banks; the port's bandwidth is banks x bank_bytes_per_cycle"),
    "sram.bank_bytes_per_cycle": ("B/cycle", "per bank (and the word the banks interleave)"),
    "sram.bank_model": ("", "\"bandwidth\": bytes at the banks' total bandwidth; \"conflicts\": "
                            "the busiest bank's cycles (accelsim.cost.sram_banks)"),
    # [dma]
    "dma.engines": ("", "DMA engines of the link DRAM -> SRAM (a [[link]] without a table: "
                        "its engines)"),
    "dma.queue_depth": ("descriptors", "each engine's descriptor queue; the control processor "
                                       "stalls when it is full"),
    "dma.setup_cycles": ("cycles", "paid per descriptor"),
    "dma.max_outstanding": ("descriptors", "in flight per engine while earlier ones wait for "
                                           "DRAM latency (1: one at a time)"),
    "dma.max_rows": ("rows", "rows (chunks of a strided transfer) one descriptor moves at most: "
                     "the compiler cuts a longer copy into descriptors of that many rows "
                     "(0: no limit; the two-level machine's copies)"),
    # [compute]
    "compute.kind": ("", "\"matrix\": a rows x cols MAC array plus lanes vector lanes; "
                         "\"vector\": lanes SIMD lanes only"),
    "compute.rows": ("PEs", "rows of the MAC array"),
    "compute.cols": ("PEs", "columns of the MAC array"),
    "compute.lanes": ("lanes", "vector lanes (the nests that are not matmul-like)"),
    "compute.fill_cycles": ("cycles", "dataflow \"fixed\": array fill per kernel call"),
    "compute.drain_cycles": ("cycles", "dataflow \"fixed\": array drain per kernel call"),
    "compute.special_op_cycles": ("cycles", "issue cost of exp/div/sqrt per lane"),
    "compute.dataflow": ("", "how a matmul maps onto the array: \"fixed\" (outputs on the PEs, "
                             "closed form), \"ws\", \"os\", \"is\" (weight/output/input "
                             "stationary folds, docs/dataflows.md)"),
    "compute.vector_registers": ("registers", "the lanes' register file (registers of lanes "
                                              "elements); 0: none, one SRAM access per load/store"),
    "compute.matmul_unit": ("", "\"faster\": a matmul on the array or the lanes, whichever is "
                                "faster; \"array\": always the array"),
    "compute.array_convention": ("", "how ws/os/is folds are counted: \"accelsim\" or "
                                     "\"scalesim-v3\" (SCALE-Sim 3.0's code)"),
    "compute.min_block_cycles": ("cycles", "ws/is: the least cycles of one streamed block"),
    "compute.array_mapping": ("", "\"im2col\": the array's rows/columns hold any consecutive "
                                  "elements of their role; \"innermost\": one run of its "
                                  "innermost loop (Gemmini's)"),
    "compute.native_dtype": ("", "the array's native precision (MLIR's name: i8, bf16, f32, ...); "
                                 "compute.macs_rate is relative to it (docs/precision.md)"),
    "compute.acc_dtype": ("", "the widest accumulator the PEs hold (unset: any); a MAC "
                              "accumulating wider runs on the lanes"),
    "compute.macs_rate": ("x native", "the array's MAC rate per supported precision, relative "
                                      "to native_dtype, e.g. { i8 = 1.0, bf16 = 0.5 }; a "
                                      "precision absent is not supported (default: every one at 1)"),
    "compute.lanes_rate": ("x", "the lanes' op rate per supported precision, as macs_rate"),
    # [energy]
    "energy.dram_pj_per_byte": ("pJ/B", "a DRAM byte moved (Horowitz 2014, 45 nm: 162.5)"),
    "energy.sram_pj_per_byte": ("pJ/B", "an SRAM byte through a port (45 nm, 32 KB array: 2.5)"),
    "energy.technology": ("", "the table of pJ per operation per precision (horowitz45: "
                              "Horowitz ISSCC 2014, 45 nm; docs/precision.md)"),
    "energy.mac_pj": ("pJ", "one multiply-accumulate at every precision, replacing the "
                            "technology's (unset: its multiply at the operands' precision + add "
                            "at the accumulator's, fp32 3.7 + 0.9 = 4.6, int8 0.2 + 0.1)"),
    "energy.alu_pj": ("pJ", "one lane op at every precision, replacing the technology's (unset: "
                            "an add at its precision, fp32 0.9; a multiply, its multiply)"),
    "energy.special_pj": ("pJ", "one exp/div/sqrt (assumed ~5 fp32 multiplies: 18.5)"),
    "energy.static_mw": ("mW", "static (leakage) power, charged over the run's seconds"),
    # [spaces]
    "spaces.dram": ("", "the memref memory space that is DRAM"),
    "spaces.sram": ("", "the memref memory space that is SRAM (the level beside compute)"),
    "spaces.tag": ("", "the memory space of DMA tags"),
    # [control]
    "control.issue_cycles": ("cycles", "the control processor's cost to issue one DMA "
                                       "descriptor or kernel call"),
    # [hierarchy]
    "hierarchy.non_adjacent": ("", "a DMA between levels that are not parent and child: "
                                   "\"refuse\" (an error) or \"route\" (hop by hop)"),
    # [interconnect]
    "interconnect.kind": ("", "between the clusters and the shared levels: \"bus\" or \"mesh\""),
    "interconnect.bandwidth_bytes_per_cycle": ("B/cycle", "bus: the one shared bus"),
    "interconnect.latency_cycles": ("cycles", "bus: per transfer"),
    "interconnect.arbitration": ("", "bus: grants in issue order (\"fifo\")"),
    "interconnect.link_bytes_per_cycle": ("B/cycle", "mesh: each directed link"),
    "interconnect.hop_latency_cycles": ("cycles", "mesh: per router hop"),
    "interconnect.routing": ("", "mesh: \"xy\" routing"),
    "interconnect.mesh_rows": ("", "mesh rows (0: the most square grid that holds the clusters)"),
    "interconnect.mesh_cols": ("", "mesh columns (0: from mesh_rows or the most square grid)"),
    "interconnect.memory_row": ("", "mesh: the row of the router the shared memory is on"),
    "interconnect.memory_col": ("", "mesh: the column of the router the shared memory is on"),
    # [[memory]]
    "memory.name": ("", "the level's name (memory.<name>.<key> in --set)"),
    "memory.space": ("", "the memref memory space of the level"),
    "memory.parent": ("", "the level it is filled from (none: the root, DRAM, timed by [dram])"),
    "memory.capacity_kib": ("KiB", "capacity (the root's defaults to 4 GiB)"),
    "memory.read_bytes_per_cycle": ("B/cycle", "per port (a non-integer rate is allowed)"),
    "memory.write_bytes_per_cycle": ("B/cycle", "per port (a non-integer rate is allowed)"),
    "memory.ports": ("", "transfers served at once"),
    "memory.latency_cycles": ("cycles", "access latency"),
    "memory.banks": ("", "reported with the level (not yet part of its timing)"),
    "memory.read_pj_per_byte": ("pJ/B", "energy of a byte read (default: [energy]'s)"),
    "memory.write_pj_per_byte": ("pJ/B", "energy of a byte written (default: [energy]'s)"),
    # [[link]]
    "link.src": ("", "the parent level"),
    "link.dst": ("", "the child level (link.<dst>.<key> in --set)"),
    "link.engines": ("", "DMA engines of the link"),
    "link.queue_depth": ("descriptors", "each engine's descriptor queue"),
    "link.setup_cycles": ("cycles", "paid per descriptor"),
    "link.max_outstanding": ("descriptors", "in flight per engine"),
}

# keys accepted in a file that are no field: each becomes the field it names
ALIASES = {"dram.bandwidth": "dram.bandwidth_bytes_per_cycle"}


@dataclass(frozen=True, slots=True)
class FieldDoc:
    key: str           # dotted, as in --set (memory.<key> / link.<key> for the arrays)
    type: str
    range: str
    default: Any       # None: no default (required, or the DRAM technology's value)
    unit: str
    meaning: str


def sections() -> dict[str, type]:
    """Section name -> its class, in the order of the reference ("" : the top level)."""
    from accelsim import config as c

    return {"": c.HardwareConfig, **c._SECTIONS, "hierarchy": c.HierarchyConfig,
            "interconnect": c.InterconnectConfig, **c._ARRAYS}


def _type_and_range(rule: Any) -> tuple[str, str]:
    if rule is None:
        return "string", ""
    kind = rule[0]
    if kind is str:
        return "string", "one of " + ", ".join(f'"{v}"' for v in rule[1])
    name = {int: "integer", float: "number", Rate: "number"}[kind]
    return name, f"[{fmt_number(rule[1])}, {fmt_number(rule[2])}]"


def fields() -> list[FieldDoc]:
    """Every key of the hardware description, section by section."""
    out: list[FieldDoc] = []
    for sec, cls in sections().items():
        rules = {**getattr(cls, "RULES", {}), **getattr(cls, "OPTIONAL", {})}
        for f in dataclasses.fields(cls):
            if not f.init or f.name.startswith("_") or (not sec and f.name in sections()):
                continue
            if not sec and f.name in ("memory", "link"):
                continue
            key = f"{sec}.{f.name}" if sec else f.name
            kind, rng = _type_and_range(rules.get(f.name))
            if f.default is not dataclasses.MISSING:
                default = f.default
            else:
                default = None
            unit, meaning = DOCS.get(key, ("", ""))
            out.append(FieldDoc(key, kind, rng, default, unit, meaning))
            for alias, target in ALIASES.items():
                if target == key:
                    unit, meaning = DOCS[alias]
                    out.append(FieldDoc(alias, "string or number", "", None, unit, meaning))
    return out


def undocumented() -> list[str]:
    """Keys without a unit-and-meaning entry in `DOCS` (a test keeps this empty)."""
    return [f.key for f in fields() if f.key not in DOCS]


def doc_of(key: str) -> FieldDoc | None:
    """The schema entry of a dotted key (memory.<level>.<k> / link.<dst>.<k> as memory.<k>)."""
    parts = key.split(".")
    if parts[0] in ("memory", "link") and len(parts) == 3:
        key = f"{parts[0]}.{parts[2]}"
    return next((f for f in fields() if f.key == key), None)


def default_text(f: FieldDoc) -> str:
    if f.default is None:
        if f.key.startswith("dram.") and f.key != "dram.bandwidth":
            return "the technology's"
        return "-"
    if isinstance(f.default, str):
        return f'"{f.default}"'
    if isinstance(f.default, bool):
        return str(f.default).lower()
    if f.key == "clusters" or not dataclasses.is_dataclass(f.default):
        return fmt_number(f.default) if isinstance(f.default, int | float) else str(f.default)
    return "-"


def hardware_reference() -> str:
    """docs/reference/hardware.md: a table per section of every key."""
    from accelsim.config import preset_names

    lines = ["# Hardware description reference", "",
             "<!-- Generated from the config schema (accelsim/config_schema.py) by",
             "     `python -m accelsim.cli.reference`; do not edit. -->", "",
             "A hardware description is a TOML file (or a preset: "
             + ", ".join(f"`{p}`" for p in preset_names()) + "). Every key below may be given "
             "in the file or on the command line as `--set KEY=VALUE` (dotted as here; a "
             "`[[memory]]` level's key as `memory.<level>.<key>`, a `[[link]]`'s as "
             "`link.<child level>.<key>`). `accelsim config show NAME|FILE [--set ...]` prints "
             "a config resolved, every default and unit as comments. A key outside its range, "
             "an unknown key or a timing key under `dram.model = \"bandwidth\"` is an error "
             "naming the key.", ""]
    by_sec: dict[str, list[FieldDoc]] = {}
    for f in fields():
        sec = f.key.partition(".")[0] if "." in f.key else ""
        by_sec.setdefault(sec, []).append(f)
    for sec, rows in by_sec.items():
        title = ("Top level" if not sec else f"[[{sec}]]" if sec in ("memory", "link")
                 else f"[{sec}]")
        lines += [f"## {title}", ""]
        cls = sections()[sec]
        doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        if doc and sec:
            lines += [" ".join(doc.split()), ""]
        lines += ["| key | type | range | default | unit | meaning |",
                  "|---|---|---|---|---|---|"]
        for f in rows:
            lines.append(f"| `{f.key}` | {f.type} | {f.range} | {default_text(f)} | {f.unit} "
                         f"| {f.meaning.replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
