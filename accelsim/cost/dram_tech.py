"""DRAM technologies: public datasheet timing sets for the timing model (`dram.model = "timing"`).

Every timing is in clocks of the DRAM command clock (`clock_mhz`); one DRAM channel of the
config is one channel of the technology (a 64-bit DDR4 channel, a 16-bit LPDDR5 channel, one
64-bit HBM2e pseudo-channel). `beats_per_clock` data beats move per command clock, so a burst
of `burst_length` beats holds the data bus `burst_length / beats_per_clock` clocks (tBURST) and
moves `bus_bytes * burst_length` bytes.

Sources:
- DDR4-3200 (speed bin 3200AA, 22-22-22; 8 Gb x8 devices, 8 per rank, 1 KB page each):
  JEDEC JESD79-4B tables 105/112, as in DRAMsim3's `configs/DDR4_8Gb_x8_3200.ini`
  (tRTW = CL + tBURST + 2 - CWL, the read-to-write command gap of JESD79-4B 4.21; tWTR = tWTR_L).
- LPDDR5-6400 (16 Gb x16 die, 16 banks in bank-group mode, 2 KB page, CK = 800 MHz, WCK:CK
  4:1, BL16): JEDEC JESD209-5A core timings in ns (tRCD 18, tRPpb 18, tRAS 42, tRC 60,
  tRRD 5, tFAW 20, tWR 34, tWTR_L 12, tRTP 7.5, tREFI 3.906 us, tRFCab 280), RL 17 / WL 9
  (set 0 at 6400), rounded up to CK (tREFI down); tRTW = RL + tBURST + 2 - WL plus 2 clocks
  of read postamble (an approximation: JESD209-5A gives it per ODT setting).
- HBM2e (per pseudo-channel: 64 bits, BL4, 16 banks in 4 groups, 1 KB page; 3.2 Gb/s pins,
  CK = 1.6 GHz): JEDEC JESD235C core timings in ns as in DRAMsim3's `configs/HBM2_8Gb_x128.ini`
  (tRCD 14, tRP 14, tRAS 34, CL 14, tRRD_S 4, tRRD_L 6, tFAW 30, tWR 16, tWTR_L 8, tRTP_L 6,
  tRFC 260, tREFI 3.9 us), rounded up to 0.625 ns clocks; tCCD_S = tBURST = 2, tCCD_L = 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from accelsim.errors import ConfigError

# the timing keys a config may override (`dram.tCL = 24`), in the order the docs list them
TIMING_KEYS = ("tCL", "tCWL", "tRCD", "tRP", "tRAS", "tRC", "tCCD_S", "tCCD_L", "tRRD_S",
               "tRRD_L", "tFAW", "tWR", "tWTR", "tRTW", "tRTP", "tREFI", "tRFC")
# the organization keys a config may override
ORGANIZATION_KEYS = ("clock_mhz", "beats_per_clock", "burst_length", "bus_bytes", "ranks",
                     "bank_groups", "banks_per_group", "rows", "columns", "address_mapping")

# the timing model's keys that default to the technology's value (None): (type, low, high)
OPTIONAL_RULES: dict[str, tuple[type, float, float]] = {
    **{k: (int, 1, 1_000_000) for k in TIMING_KEYS},
    "tCWL": (int, 0, 1_000_000), "tRTW": (int, 0, 1_000_000), "tWTR": (int, 0, 1_000_000),
    "clock_mhz": (float, 1.0, 100_000.0),
    "beats_per_clock": (int, 1, 64),
    "burst_length": (int, 1, 256),
    "bus_bytes": (int, 1, 1024),
    "ranks": (int, 1, 16),
    "bank_groups": (int, 1, 64),
    "banks_per_group": (int, 1, 64),
    "rows": (int, 1, 1 << 24),
    "columns": (int, 1, 1 << 20),
}


@dataclass(frozen=True, slots=True)
class TechnologySet:
    """One technology's organization and timings (clocks of `clock_mhz`)."""

    clock_mhz: float
    beats_per_clock: int
    burst_length: int
    bus_bytes: int
    ranks: int
    bank_groups: int
    banks_per_group: int
    rows: int
    columns: int          # columns of `bus_bytes` per row (a row holds columns * bus_bytes B)
    address_mapping: str  # fields MSB -> LSB: ro ra ba co bg ch (see accelsim.cost.dram_timing)
    tCL: int
    tCWL: int
    tRCD: int
    tRP: int
    tRAS: int
    tRC: int
    tCCD_S: int
    tCCD_L: int
    tRRD_S: int
    tRRD_L: int
    tFAW: int
    tWR: int
    tWTR: int
    tRTW: int
    tRTP: int
    tREFI: int
    tRFC: int


TECHNOLOGIES: dict[str, TechnologySet] = {
    "DDR4-3200": TechnologySet(
        clock_mhz=1600.0, beats_per_clock=2, burst_length=8, bus_bytes=8, ranks=1,
        bank_groups=4, banks_per_group=4, rows=65536, columns=1024,
        address_mapping="ro:ra:ba:co:bg:ch",
        tCL=22, tCWL=16, tRCD=22, tRP=22, tRAS=52, tRC=74, tCCD_S=4, tCCD_L=8, tRRD_S=4,
        tRRD_L=8, tFAW=34, tWR=24, tWTR=12, tRTW=12, tRTP=12, tREFI=12480, tRFC=560),
    "LPDDR5-6400": TechnologySet(
        clock_mhz=800.0, beats_per_clock=8, burst_length=16, bus_bytes=2, ranks=1,
        bank_groups=4, banks_per_group=4, rows=65536, columns=1024,
        address_mapping="ro:ra:ba:co:bg:ch",
        tCL=17, tCWL=9, tRCD=15, tRP=15, tRAS=34, tRC=48, tCCD_S=2, tCCD_L=4, tRRD_S=4,
        tRRD_L=4, tFAW=16, tWR=28, tWTR=10, tRTW=14, tRTP=6, tREFI=3124, tRFC=224),
    "HBM2e": TechnologySet(
        clock_mhz=1600.0, beats_per_clock=2, burst_length=4, bus_bytes=8, ranks=1,
        bank_groups=4, banks_per_group=4, rows=32768, columns=128,
        address_mapping="ro:ra:ba:co:bg:ch",
        tCL=23, tCWL=7, tRCD=23, tRP=23, tRAS=55, tRC=78, tCCD_S=2, tCCD_L=4, tRRD_S=7,
        tRRD_L=10, tFAW=48, tWR=26, tWTR=13, tRTW=20, tRTP=10, tREFI=6240, tRFC=416),
}

# the timing model's own keys besides the technology's organization and timings
TIMING_EXTRA_KEYS = ("model", "technology", "page_policy", "read_queue", "write_queue",
                     "write_high_watermark", "write_low_watermark")
MAPPING_FIELDS = ("ro", "ra", "ba", "co", "bg", "ch")


class TimingKeys(Protocol):
    """What the checks read of a `DramConfig` (`accelsim.config`, which imports this module)."""

    write_queue: int
    write_high_watermark: int
    write_low_watermark: int
    latency_cycles: int

    def timing_value(self, key: str) -> Any: ...


def check_timing(d: TimingKeys) -> None:
    """The timing model's cross-key rules (each names the key, its value and the range)."""
    mapping = d.timing_value("address_mapping")
    fields = mapping.split(":") if isinstance(mapping, str) else []
    if sorted(fields) != sorted(MAPPING_FIELDS):
        raise ConfigError(f"dram.address_mapping = {mapping!r}: must name each of "
                          f"{', '.join(MAPPING_FIELDS)} once, most significant first, "
                          "separated by ':' (e.g. 'ro:ra:ba:co:bg:ch')")
    bl, cols = d.timing_value("burst_length"), d.timing_value("columns")
    if cols % bl:
        raise ConfigError(f"dram.columns = {cols}: must be a multiple of dram.burst_length = {bl}")
    if bl % d.timing_value("beats_per_clock"):
        raise ConfigError(f"dram.burst_length = {bl}: must be a multiple of dram.beats_per_clock "
                          f"= {d.timing_value('beats_per_clock')}")
    refi, rfc = d.timing_value("tREFI"), d.timing_value("tRFC")
    if rfc >= refi:
        raise ConfigError(f"dram.tRFC = {rfc}: must be less than dram.tREFI = {refi}")
    if not d.write_low_watermark < d.write_high_watermark <= d.write_queue:
        raise ConfigError(f"dram.write_high_watermark = {d.write_high_watermark}: must be in "
                          f"[dram.write_low_watermark + 1 = {d.write_low_watermark + 1}, "
                          f"dram.write_queue = {d.write_queue}]")


def bandwidth_figures(d: TimingKeys, clock_ghz: float) -> tuple[int, int, int]:
    """The technology in bandwidth-model terms (`HardwareConfig.bandwidth_view`): its burst
    bytes, floor(its peak per channel in bytes per accelerator cycle: a burst per
    max(tBURST, tCCD_S)), and `latency_cycles` plus tRCD + tCL + tBURST in accelerator cycles."""
    v = d.timing_value
    burst = v("bus_bytes") * v("burst_length")
    tburst = max(v("burst_length") // v("beats_per_clock"), v("tCCD_S"))
    ratio = float(v("clock_mhz")) / (1000.0 * clock_ghz)
    bw = max(1, int(burst * ratio / tburst + 1e-9))
    lat = d.latency_cycles + math.ceil((v("tRCD") + v("tCL") + tburst) / ratio - 1e-9)
    return burst, bw, lat
