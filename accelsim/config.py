"""Hardware description: a TOML file loaded into frozen, validated dataclasses.

Every section is a frozen dataclass that checks itself in `__post_init__`, so a config object
that exists is a valid one. Errors are `ConfigError`s naming the dotted key, the value found
and the allowed range: `dram.channels = 0: must be an integer in [1, 64]`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar

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
    """Slow memory: `channels` independent channels shared by every DMA engine."""

    SECTION: ClassVar[str] = "dram"
    RULES: ClassVar[dict[str, Rule]] = {
        "channels": (int, 1, 64),
        "bandwidth_bytes_per_cycle": (int, 1, 4096),
        "latency_cycles": (int, 0, 100_000),
        "burst_bytes": (int, 1, 65536),
        "interleave": (str, ("burst", "none")),
    }
    channels: int = 2
    bandwidth_bytes_per_cycle: int = 16  # per channel
    latency_cycles: int = 120
    burst_bytes: int = 64
    # "burst": a transfer's bursts are spread round-robin over the channels (address
    # interleaving, as memory controllers do); "none": a transfer uses one channel.
    interleave: str = "burst"

    def __post_init__(self) -> None:
        _check(self.SECTION, self)


@dataclass(frozen=True, slots=True)
class SramConfig:
    """Fast scratchpad: capacity checked on every allocation; `banks` x bytes/cycle of bandwidth.

    `bank_model`: "bandwidth" (the default) charges a kernel's SRAM bytes at the banks' total
    bandwidth; "conflicts" charges the busiest bank, words interleaved over the banks
    (`bank_bytes_per_cycle` bytes a word) and the kernels' and DMAs' access strides deciding
    which bank each access hits (`accelsim.cost.sram_banks`).
    """

    SECTION: ClassVar[str] = "sram"
    RULES: ClassVar[dict[str, Rule]] = {
        "capacity_kib": (int, 1, 1 << 22),
        "banks": (int, 1, 1024),
        "bank_bytes_per_cycle": (int, 1, 4096),
        "bank_model": (str, ("bandwidth", "conflicts")),
    }
    capacity_kib: int = 256
    banks: int = 8
    bank_bytes_per_cycle: int = 16
    bank_model: str = "bandwidth"

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

    `dataflow` is how a matmul-like kernel maps onto the array (`accelsim.cost.systolic`):
    "ws", "os", "is" (weight, output, input stationary): SCALE-Sim 3.0's folds, each with its
    fill, stream and drain (`fill_cycles` / `drain_cycles` are then unused); "fixed" (the
    default): MACs / (rows x cols) plus `fill_cycles` + `drain_cycles` per call.
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
        "dataflow": (str, ("fixed", "ws", "os", "is")),
    }
    kind: str = "matrix"
    rows: int = 16
    cols: int = 16
    lanes: int = 16
    fill_cycles: int = 16
    drain_cycles: int = 16
    special_op_cycles: int = 4
    dataflow: str = "fixed"

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        if self.kind == "vector" and self.dataflow != "fixed":
            raise ConfigError(f"compute.dataflow = {self.dataflow!r}: a vector unit (compute.kind = "
                              "'vector') has no systolic array; must be 'fixed' (or compute.kind = "
                              "'matrix')")

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
            out[sec] = dataclasses.asdict(getattr(self, sec))
        return out

    def hash(self) -> str:
        """Stable content hash (16 hex digits) of the hardware, for DSE result keys."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def with_overrides(self, overrides: Mapping[str, Any]) -> HardwareConfig:
        """A new config, validated exactly as a file is: `with_overrides({"sram.capacity_kib": 128})`.

        Keys are dotted as in the TOML (`dram.channels`, `clock_ghz`); the overrides are written
        into the TOML shape of this config, which is then loaded again."""
        data = self.to_dict()
        data["name"] = self.name
        for key, value in overrides.items():
            _apply_override(data, key, value)
        name = data.pop("name")  # a name that is not a string: HardwareConfig says so
        return config_from_dict(data, name=name)


def _apply_override(data: dict[str, Any], key: str, value: Any) -> None:
    """Write `key = value` (dotted as in the TOML) into `data`, the TOML shape of a config."""
    sec, dot, fld = key.partition(".")
    if not dot:
        if key not in ("clock_ghz", "name"):
            raise ConfigError(f"{key} = {value!r}: unknown key (known top-level keys: "
                              f"clock_ghz, name, {', '.join(_SECTIONS)})")
        data[key] = value
        return
    cls = _SECTIONS.get(sec)
    if cls is None:
        raise ConfigError(f"{key} = {value!r}: unknown section '{sec}' "
                          f"(known: {', '.join(_SECTIONS)})")
    _known_field(cls, fld, key, value)
    table = data.setdefault(sec, {})
    table[fld] = value


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


def load_config(name_or_path: str = "default",
                overrides: Mapping[str, Any] | None = None) -> HardwareConfig:
    """A preset name (`default`, `edge`, `server`, ...) or a path to a TOML file, with
    `overrides` (dotted keys, as `--set`) applied and validated as the file's own keys."""
    cfg = _load(name_or_path)
    return cfg.with_overrides(overrides) if overrides else cfg


def parse_set(text: str) -> tuple[str, Any]:
    """One `--set KEY=VALUE`: a dotted key as in the TOML and a TOML value (`128`, `2.5`,
    `true`, `"vector"`; a bare word such as `vector` is taken as that string)."""
    key, eq, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not eq or not key or not raw:
        raise ConfigError(f"--set {text!r}: expected KEY=VALUE, e.g. --set sram.capacity_kib=128")
    if not _KEY_RE.fullmatch(key):
        raise ConfigError(f"--set {text!r}: {key!r} is not a dotted config key (e.g. dram.channels)")
    try:
        return key, tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        if _BARE_RE.fullmatch(raw):
            return key, raw
        raise ConfigError(f"--set {text!r}: {raw!r} is not a TOML value (an integer, a float, "
                          "true/false or a quoted string)") from None


def parse_sets(texts: Sequence[str] | None) -> dict[str, Any]:
    """Every `--set` of a command line; a key given twice is an error."""
    out: dict[str, Any] = {}
    for text in texts or ():
        key, value = parse_set(text)
        if key in out:
            raise ConfigError(f"--set {key}: given twice ({out[key]!r}, then {value!r})")
        out[key] = value
    return out


_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*")
_BARE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _load(name_or_path: str) -> HardwareConfig:
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
