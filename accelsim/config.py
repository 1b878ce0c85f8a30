"""Hardware description: a TOML file loaded into frozen, validated dataclasses.

Every section is a frozen dataclass that checks itself in `__post_init__`, so a config object
that exists is a valid one. Errors are `ConfigError`s naming the dotted key, the value found
and the allowed range: `dram.channels = 0: must be an integer in [1, 64]`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar

from accelsim.cost.dram_tech import ORGANIZATION_KEYS, TECHNOLOGIES, TIMING_KEYS
from accelsim.errors import ConfigError

# A field's rule: (python type, low, high); strings list their allowed values instead.
Rule = tuple[type, float, float] | tuple[type, tuple[str, ...]]


def _check(section: str, obj: Any) -> None:
    for f in dataclasses.fields(obj):
        rule = obj.RULES.get(f.name)
        if rule is None:
            continue
        key = f"{section}.{f.name}" if section else f.name
        value = getattr(obj, f.name)
        _check_value(key, value, rule)
        if rule[0] is float and isinstance(value, int):
            object.__setattr__(obj, f.name, float(value))


def _check_value(key: str, value: Any, rule: Rule) -> None:
    kind = rule[0]
    if kind is str:
        allowed = rule[1]
        if not isinstance(value, str) or value not in allowed:  # type: ignore[operator]
            raise ConfigError(f"{key} = {value!r}: must be one of {', '.join(map(repr, allowed))}")
        return
    lo, hi = rule[1], rule[2]  # type: ignore[misc]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        what = "an integer"
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        what = "a number"
    if not ok or not (lo <= value <= hi):
        raise ConfigError(f"{key} = {value!r}: must be {what} in [{_fmt(lo)}, {_fmt(hi)}]")


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True, slots=True)
class DramConfig:
    """Slow memory: `channels` independent channels shared by every DMA engine.

    `model = "bandwidth"` (the default): each channel moves `bandwidth_bytes_per_cycle` after
    `latency_cycles`. `model = "timing"`: each channel is a channel of `technology` with banks,
    row buffers and the datasheet timings (`accelsim.cost.dram_tech`), each overridable by its
    key (`tCL = 24`); a key left out (None) takes the technology's value. The timing keys are
    an error with the bandwidth model (they would be silently ignored)."""

    SECTION: ClassVar[str] = "dram"
    RULES: ClassVar[dict[str, Rule]] = {
        "channels": (int, 1, 64),
        "bandwidth_bytes_per_cycle": (int, 1, 4096),
        "latency_cycles": (int, 0, 100_000),
        "burst_bytes": (int, 1, 65536),
        "interleave": (str, ("burst", "none")),
        "model": (str, ("bandwidth", "timing")),
        "technology": (str, tuple(TECHNOLOGIES)),
        "page_policy": (str, ("open", "closed")),
        "read_queue": (int, 1, 4096),
        "write_queue": (int, 1, 4096),
        "write_high_watermark": (int, 1, 4096),
        "write_low_watermark": (int, 0, 4096),
    }
    # the timing model's keys that default to the technology's value (None)
    OPTIONAL_RULES: ClassVar[dict[str, Rule]] = {
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
    channels: int = 2
    bandwidth_bytes_per_cycle: int = 16  # per channel
    latency_cycles: int = 120
    burst_bytes: int = 64
    # "burst": a transfer's bursts are spread round-robin over the channels (address
    # interleaving, as memory controllers do); "none": a transfer uses one channel.
    interleave: str = "burst"
    model: str = "bandwidth"
    technology: str = "DDR4-3200"
    page_policy: str = "open"
    read_queue: int = 64             # requests the FR-FCFS scheduler looks ahead over
    write_queue: int = 64            # bursts the write queue holds
    write_high_watermark: int = 48   # drain writes when this many bursts wait ...
    write_low_watermark: int = 16    # ... down to this many
    address_mapping: str | None = None
    clock_mhz: float | None = None
    beats_per_clock: int | None = None
    burst_length: int | None = None
    bus_bytes: int | None = None
    ranks: int | None = None
    bank_groups: int | None = None
    banks_per_group: int | None = None
    rows: int | None = None
    columns: int | None = None
    tCL: int | None = None
    tCWL: int | None = None
    tRCD: int | None = None
    tRP: int | None = None
    tRAS: int | None = None
    tRC: int | None = None
    tCCD_S: int | None = None
    tCCD_L: int | None = None
    tRRD_S: int | None = None
    tRRD_L: int | None = None
    tFAW: int | None = None
    tWR: int | None = None
    tWTR: int | None = None
    tRTW: int | None = None
    tRTP: int | None = None
    tREFI: int | None = None
    tRFC: int | None = None

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        for name, rule in self.OPTIONAL_RULES.items():
            value = getattr(self, name)
            if value is not None:
                _check_value(f"dram.{name}", value, rule)
                if rule[0] is float and isinstance(value, int):
                    object.__setattr__(self, name, float(value))
        if self.model == "bandwidth":
            timing = [k for k in (*TIMING_EXTRA_KEYS, *ORGANIZATION_KEYS, *TIMING_KEYS)
                      if getattr(self, k) != _DRAM_DEFAULTS[k]]
            if timing:
                k = timing[0]
                raise ConfigError(f"dram.{k} = {getattr(self, k)!r}: a timing-model key, but "
                                  "dram.model = 'bandwidth'; set dram.model = 'timing' to use it")
            return
        check_timing(self)

    def timing_value(self, key: str) -> Any:
        """A timing or organization key: the config's value, else the technology's."""
        value = getattr(self, key)
        return getattr(TECHNOLOGIES[self.technology], key) if value is None else value

    def shown(self) -> dict[str, Any]:
        """The keys in the TOML shape: the timing model's only where they differ from their
        default (so a bandwidth-model config keeps its content hash)."""
        out = dataclasses.asdict(self)
        for k in (*TIMING_EXTRA_KEYS, *ORGANIZATION_KEYS, *TIMING_KEYS):
            if out[k] == _DRAM_DEFAULTS[k]:
                del out[k]
        return out


# the timing model's own keys besides the technology's organization and timings
TIMING_EXTRA_KEYS = ("model", "technology", "page_policy", "read_queue", "write_queue",
                     "write_high_watermark", "write_low_watermark")
_DRAM_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(DramConfig)}


def check_timing(d: DramConfig) -> None:
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


MAPPING_FIELDS = ("ro", "ra", "ba", "co", "bg", "ch")


@dataclass(frozen=True, slots=True)
class SramConfig:
    """Fast scratchpad: capacity checked on every allocation; `banks` x bytes/cycle of bandwidth."""

    SECTION: ClassVar[str] = "sram"
    RULES: ClassVar[dict[str, Rule]] = {
        "capacity_kib": (int, 1, 1 << 22),
        "banks": (int, 1, 1024),
        "bank_bytes_per_cycle": (int, 1, 4096),
    }
    capacity_kib: int = 256
    banks: int = 8
    bank_bytes_per_cycle: int = 16

    def __post_init__(self) -> None:
        _check(self.SECTION, self)

    @property
    def capacity_bytes(self) -> int:
        return self.capacity_kib * 1024

    @property
    def bytes_per_cycle(self) -> int:
        return self.banks * self.bank_bytes_per_cycle


@dataclass(frozen=True, slots=True)
class DmaConfig:
    """DMA engines, each with a descriptor queue; `setup_cycles` is paid per descriptor."""

    SECTION: ClassVar[str] = "dma"
    RULES: ClassVar[dict[str, Rule]] = {
        "engines": (int, 1, 64),
        "queue_depth": (int, 1, 1024),
        "setup_cycles": (int, 0, 100_000),
        "max_outstanding": (int, 1, 1024),
    }
    engines: int = 2
    queue_depth: int = 4
    setup_cycles: int = 16
    # descriptors an engine keeps in flight: it sets up and transfers the next one while the
    # DRAM access latency of earlier ones runs (1 = wait for each completion)
    max_outstanding: int = 8

    def __post_init__(self) -> None:
        _check(self.SECTION, self)


@dataclass(frozen=True, slots=True)
class ComputeConfig:
    """One compute unit: a `rows` x `cols` MAC array (matrix) or `lanes` SIMD lanes (vector).

    A matrix unit also has `lanes` vector lanes for the nests that are not matmul-like.
    `special_op_cycles` is the issue cost of exp/div/sqrt per lane.
    """

    SECTION: ClassVar[str] = "compute"
    RULES: ClassVar[dict[str, Rule]] = {
        "kind": (str, ("matrix", "vector")),
        "rows": (int, 1, 4096),
        "cols": (int, 1, 4096),
        "lanes": (int, 1, 4096),
        "fill_cycles": (int, 0, 100_000),
        "drain_cycles": (int, 0, 100_000),
        "special_op_cycles": (int, 1, 1000),
    }
    kind: str = "matrix"
    rows: int = 16
    cols: int = 16
    lanes: int = 16
    fill_cycles: int = 16
    drain_cycles: int = 16
    special_op_cycles: int = 4

    def __post_init__(self) -> None:
        _check(self.SECTION, self)

    @property
    def macs_per_cycle(self) -> int:
        return self.rows * self.cols if self.kind == "matrix" else self.lanes


@dataclass(frozen=True, slots=True)
class EnergyConfig:
    """Energy per event in pJ. Defaults: Horowitz, "Computing's energy problem", ISSCC 2014, 45 nm.

    - DRAM: 1.3-2.6 nJ per 64-bit access -> 1300 pJ / 8 B = 162.5 pJ/byte (low end).
    - SRAM: 32 KB array, 20 pJ per 64-bit read -> 2.5 pJ/byte.
    - fp32 multiply 3.7 pJ + fp32 add 0.9 pJ -> 4.6 pJ per MAC; an fp32 add/ALU op 0.9 pJ.
    - exp/div/sqrt: not in the paper; assumed ~5 fp32 multiplies (18.5 pJ).
    - static (leakage) power, mW: not in the paper; assumed 100 mW, ~10% of the default MAC
      array's peak dynamic power (256 MACs x 4.6 pJ x 1 GHz = 1.18 W). Charged per second run.
    """

    SECTION: ClassVar[str] = "energy"
    RULES: ClassVar[dict[str, Rule]] = {
        "dram_pj_per_byte": (float, 0, 1e6),
        "sram_pj_per_byte": (float, 0, 1e6),
        "mac_pj": (float, 0, 1e6),
        "alu_pj": (float, 0, 1e6),
        "special_pj": (float, 0, 1e6),
        "static_mw": (float, 0, 1e9),
    }
    dram_pj_per_byte: float = 162.5
    sram_pj_per_byte: float = 2.5
    mac_pj: float = 4.6
    alu_pj: float = 0.9
    special_pj: float = 18.5
    static_mw: float = 100.0

    def __post_init__(self) -> None:
        _check(self.SECTION, self)


@dataclass(frozen=True, slots=True)
class SpacesConfig:
    """What each integer memref memory space is (MLIR leaves it to the target)."""

    SECTION: ClassVar[str] = "spaces"
    RULES: ClassVar[dict[str, Rule]] = {
        "dram": (int, 0, 255),
        "sram": (int, 0, 255),
        "tag": (int, 0, 255),
    }
    dram: int = 0
    sram: int = 1
    tag: int = 2

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        if len({self.dram, self.sram, self.tag}) != 3:
            raise ConfigError(f"spaces = dram {self.dram}, sram {self.sram}, tag {self.tag}: "
                              "the three memory spaces must be distinct integers")


@dataclass(frozen=True, slots=True)
class ControlConfig:
    """The in-order control processor: cycles to issue one DMA descriptor or kernel call."""

    SECTION: ClassVar[str] = "control"
    RULES: ClassVar[dict[str, Rule]] = {"issue_cycles": (int, 0, 100_000)}
    issue_cycles: int = 0

    def __post_init__(self) -> None:
        _check(self.SECTION, self)


_SECTIONS: dict[str, type] = {
    "dram": DramConfig, "sram": SramConfig, "dma": DmaConfig, "compute": ComputeConfig,
    "energy": EnergyConfig, "spaces": SpacesConfig, "control": ControlConfig,
}


@dataclass(frozen=True, slots=True)
class HardwareConfig:
    """The whole machine. `name` is informational and not part of `hash()`."""

    RULES: ClassVar[dict[str, Rule]] = {"clock_ghz": (float, 0.001, 100.0)}
    name: str = "default"
    clock_ghz: float = 1.0
    dram: DramConfig = field(default_factory=DramConfig)
    sram: SramConfig = field(default_factory=SramConfig)
    dma: DmaConfig = field(default_factory=DmaConfig)
    compute: ComputeConfig = field(default_factory=ComputeConfig)
    energy: EnergyConfig = field(default_factory=EnergyConfig)
    spaces: SpacesConfig = field(default_factory=SpacesConfig)
    control: ControlConfig = field(default_factory=ControlConfig)

    def __post_init__(self) -> None:
        _check("", self)
        if not isinstance(self.name, str):
            raise ConfigError(f"name = {self.name!r}: must be a string")

    # ---- derived --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain nested dict in the TOML shape (without `name`)."""
        out: dict[str, Any] = {"clock_ghz": self.clock_ghz}
        for sec in _SECTIONS:
            out[sec] = self.dram.shown() if sec == "dram" else dataclasses.asdict(getattr(self, sec))
        return out

    def hash(self) -> str:
        """Stable content hash (16 hex digits) of the hardware, for DSE result keys."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def dram_clock_ratio(self) -> float:
        """DRAM command clocks per accelerator cycle (the timing model's clock ratio):
        `dram.clock_mhz` (the technology's unless overridden) / (1000 * `clock_ghz`)."""
        return float(self.dram.timing_value("clock_mhz")) / (1000.0 * self.clock_ghz)

    def bandwidth_view(self) -> HardwareConfig:
        """The config as a bandwidth/latency model sees it: itself with `dram.model =
        "bandwidth"`; with the timing model, the technology's figures in bandwidth terms (what
        the analytic estimate and the tile search use): its burst, floor(its peak per channel
        in bytes per accelerator cycle: burst bytes per max(tBURST, tCCD_S)), and
        `latency_cycles` plus the read latency tRCD + tCL + tBURST in accelerator cycles."""
        d = self.dram
        if d.model == "bandwidth":
            return self
        v = d.timing_value
        burst = v("bus_bytes") * v("burst_length")
        tburst = max(v("burst_length") // v("beats_per_clock"), v("tCCD_S"))
        ratio = self.dram_clock_ratio
        bw = max(1, int(burst * ratio / tburst + 1e-9))
        lat = d.latency_cycles + math.ceil((v("tRCD") + v("tCL") + tburst) / ratio - 1e-9)
        dram = DramConfig(channels=d.channels, bandwidth_bytes_per_cycle=min(bw, 4096),
                          latency_cycles=min(lat, 100_000), burst_bytes=burst,
                          interleave=d.interleave)
        return dataclasses.replace(self, dram=dram)

    def with_overrides(self, overrides: Mapping[str, Any]) -> HardwareConfig:
        """A new validated config: `with_overrides({"sram.capacity_kib": 128})`."""
        sections: dict[str, dict[str, Any]] = {}
        top: dict[str, Any] = {}
        for key, value in overrides.items():
            sec, dot, fld = key.partition(".")
            if not dot:
                if key not in ("clock_ghz", "name"):
                    raise ConfigError(f"{key} = {value!r}: unknown key (known top-level keys: "
                                      f"clock_ghz, name, {', '.join(_SECTIONS)})")
                top[key] = value
                continue
            cls = _SECTIONS.get(sec)
            if cls is None:
                raise ConfigError(f"{key} = {value!r}: unknown section '{sec}' "
                                  f"(known: {', '.join(_SECTIONS)})")
            _known_field(cls, fld, key, value)
            sections.setdefault(sec, {})[fld] = value
        kwargs: dict[str, Any] = dict(top)
        for sec, vals in sections.items():
            kwargs[sec] = dataclasses.replace(getattr(self, sec), **vals)
        return dataclasses.replace(self, **kwargs)


def _known_field(cls: type, fld: str, key: str, value: Any) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    if fld not in names:
        raise ConfigError(f"{key} = {value!r}: unknown key (known in [{cls.SECTION}]: "  # type: ignore[attr-defined]
                          f"{', '.join(names)})")


def config_from_dict(data: Mapping[str, Any], name: str = "custom") -> HardwareConfig:
    """Build from the TOML shape; unknown keys and sections are errors."""
    kwargs: dict[str, Any] = {"name": name}
    for key, value in data.items():
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                raise ConfigError(f"{key} = {value!r}: must be a table [{key}]")
            cls = _SECTIONS[key]
            for fld, v in value.items():
                _known_field(cls, fld, f"{key}.{fld}", v)
            kwargs[key] = cls(**value)
        elif key == "clock_ghz" or key == "name":
            kwargs[key] = value
        else:
            raise ConfigError(f"{key} = {value!r}: unknown key (known: clock_ghz, name, "
                              f"{', '.join(_SECTIONS)})")
    return HardwareConfig(**kwargs)


def preset_names() -> list[str]:
    files = resources.files("accelsim") / "presets"
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".toml"))


def load_config(name_or_path: str = "default") -> HardwareConfig:
    """A preset name (`default`, `edge`, `server`) or a path to a TOML file."""
    if name_or_path.endswith(".toml") or os.sep in name_or_path or os.path.isfile(name_or_path):
        try:
            with open(name_or_path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise ConfigError(f"cannot read hardware config '{name_or_path}': {exc.strerror}")
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{name_or_path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                              f"offset {exc.start}); TOML files are UTF-8") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{name_or_path}: invalid TOML: {exc}")
        stem = os.path.splitext(os.path.basename(name_or_path))[0]
        return config_from_dict(data, name=str(data.get("name", stem)))
    res = resources.files("accelsim") / "presets" / f"{name_or_path}.toml"
    if not res.is_file():
        raise ConfigError(f"unknown hardware preset '{name_or_path}' (presets: "
                          f"{', '.join(preset_names())}; or give a path to a .toml file)")
    data = tomllib.loads(res.read_text(encoding="utf-8"))
    return config_from_dict(data, name=str(data.get("name", name_or_path)))
