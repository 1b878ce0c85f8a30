"""Precision on the machine: what a kernel's element types cost, defined once.

The event machine (`accelsim.cost.kernel`, through `accelsim.sim`), the analytic estimate
(the same `CostModel`), the tile search and the honest roofline (`accelsim.cost.peak`,
`accelsim.report.roofline`) all take these figures from here:

- **rates**: the matrix unit has a native precision (`compute.native_dtype`) and a MAC rate
  per precision it supports, relative to the native one (`compute.macs_rate`, e.g.
  `{i8 = 1.0, bf16 = 0.5}`: bf16 MACs at half the int8 rate; a precision absent from the table
  is not supported); the lanes likewise (`compute.lanes_rate`). A MAC's precision is its
  multiply's operands' before any widening cast (`arith.extsi` i8 -> i32 is the array taking
  an i8 operand), the wider of the two (i4 weights times i8 activations: i8). A kernel whose
  MACs the array does not support runs on the lanes when they support it
  (`compute.matmul_unit = "faster"`); otherwise `UnsupportedPrecision`, naming the unit and the
  precision.
- **energy**: per operation per precision from a named technology table
  (`energy.technology`, `TECHNOLOGIES`): a MAC is one multiply at its operands' precision and
  one add at its accumulator's; a lane op one add (or one multiply) at its result's precision.
  `energy.mac_pj` / `energy.alu_pj`, when set, override the table for every precision.
- **bytes**: `storage_bytes`: a buffer of n elements of b bits takes ceil(n * b / 8) bytes
  (packed i4: half a byte an element).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from accelsim.errors import ConfigError

if TYPE_CHECKING:
    from compiler.analysis.counting import OpCounts


class ComputeConfig(Protocol):
    """What this module reads of a compute unit (`accelsim.config.ComputeConfig`, which
    imports this module: hence a protocol, not an import)."""

    kind: str
    rows: int
    cols: int
    lanes: int
    special_op_cycles: int
    matmul_unit: str
    native_dtype: str
    acc_dtype: str | None
    macs_rate: tuple[tuple[str, float], ...]
    lanes_rate: tuple[tuple[str, float], ...]


class EnergyConfig(Protocol):
    """What this module reads of `accelsim.config.EnergyConfig`."""

    technology: str
    mac_pj: float | None
    alu_pj: float | None
    special_pj: float

# ---- element types -------------------------------------------------------------------------

# MLIR's names, narrowest first within each kind; bits of storage each
BITS: dict[str, int] = {
    "i1": 1, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
    "f8E4M3FN": 8, "f8E5M2": 8, "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
}
DTYPES: tuple[str, ...] = tuple(k for k in BITS if k != "i1")
ALIASES: dict[str, str] = {
    "int4": "i4", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "fp8": "f8E4M3FN", "fp8e4m3": "f8E4M3FN", "f8e4m3fn": "f8E4M3FN", "fp8e5m2": "f8E5M2",
    "f8e5m2": "f8E5M2", "fp16": "f16", "half": "f16", "float16": "f16", "bfloat16": "bf16",
    "fp32": "f32", "float32": "f32", "float": "f32", "fp64": "f64", "float64": "f64",
    "double": "f64",
}


def canonical(name: str, what: str = "dtype") -> str:
    """MLIR's name of a precision (`int8` -> `i8`, `fp8` -> `f8E4M3FN`, `bf16` stays); an
    unknown name is a ConfigError naming `what` and the known names."""
    if isinstance(name, str):
        if name in BITS and name != "i1":
            return name
        hit = ALIASES.get(name.lower())
        if hit is not None:
            return hit
    raise ConfigError(f"{what} = {name!r}: unknown precision; one of {', '.join(DTYPES)} "
                      f"(or {', '.join(sorted(ALIASES))})")


def bits(name: str) -> int:
    """Storage bits of one element (`index`: 64)."""
    return BITS.get(name, 64)


def storage_bytes(name: str, elements: int) -> int:
    """Bytes of `elements` elements packed: ceil(n * bits / 8) (i4: two an byte)."""
    return -(-elements * bits(name) // 8)


def dma_element_bytes(element: object) -> int | Fraction:
    """Bytes one element of `element` (an ElementType) takes on a DMA and in DRAM: packed,
    so a sub-byte type is a fraction (i4: 1/2); whole bytes otherwise (i1: 1, as stored)."""
    bw = getattr(element, "bitwidth", 32)
    if getattr(element, "is_int", False) and 1 < bw < 8:
        return Fraction(bw, 8)
    return int(getattr(element, "byte_width", 4))


def accumulator(dtype: str) -> str:
    """The accumulator a precision's MACs use by default: i32 for integers up to 32 bits (i64
    for i64), f32 for floats up to 32 bits (f64 for f64)."""
    if dtype.startswith("i"):
        return "i64" if dtype == "i64" else "i32"
    return "f64" if dtype == "f64" else "f32"


# ---- energy --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Technology:
    """Energy per operation by precision (pJ) and where each figure comes from."""

    name: str
    source: str
    add_pj: Mapping[str, float]
    mult_pj: Mapping[str, float]
    derivation: str

    def add(self, dtype: str) -> float:
        return self.add_pj[_row(dtype)]

    def mult(self, dtype: str) -> float:
        return self.mult_pj[_row(dtype)]


def _row(dtype: str) -> str:
    # i1 / index arithmetic (a predicate, an address) is charged as the 32-bit integer's
    return dtype if dtype in BITS and dtype != "i1" else "i32"


# Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014, Fig. 1.1.9
# (45 nm, 0.9 V): int8 add 0.03 pJ, int8 mult 0.2, int32 add 0.1, int32 mult 3.1, fp16 add 0.4,
# fp16 mult 1.1, fp32 add 0.9, fp32 mult 3.7. The others derived as stated in HOROWITZ_DERIVED.
_SIG = {"f8E5M2": 3, "f8E4M3FN": 4, "bf16": 8, "f16": 11, "f32": 24, "f64": 53}  # significand bits
HOROWITZ_DERIVED = (
    "measured: i8, i32, f16, f32. Integers: an adder's energy grows linearly with its width and "
    "a multiplier's with the square (array multiplier): i4 = i8 x (1/2 add, 1/4 mult), i16 = "
    "i8 x (2 add, 4 mult), i64 = i32 x (2 add, 4 mult). Floats narrower than f16 scale f16's by "
    "their significand bits s (the significand multiplier dominates; exponent logic ignored): "
    "mult x (s/11)^2, add x s/11 (bf16 s = 8, f8E4M3FN s = 4, f8E5M2 s = 3); f64 scales f32's "
    "by s = 53 vs 24 the same way.")


def _horowitz() -> Technology:
    add = {"i8": 0.03, "i32": 0.1, "f16": 0.4, "f32": 0.9}
    mult = {"i8": 0.2, "i32": 3.1, "f16": 1.1, "f32": 3.7}
    add |= {"i4": add["i8"] / 2, "i16": add["i8"] * 2, "i64": add["i32"] * 2}
    mult |= {"i4": mult["i8"] / 4, "i16": mult["i8"] * 4, "i64": mult["i32"] * 4}
    for f, base in (("bf16", "f16"), ("f8E4M3FN", "f16"), ("f8E5M2", "f16"), ("f64", "f32")):
        r = _SIG[f] / _SIG[base]
        add[f] = round(add[base] * r, 4)
        mult[f] = round(mult[base] * r * r, 4)
    return Technology("horowitz45", "M. Horowitz, \"Computing's energy problem (and what we can "
                      "do about it)\", ISSCC 2014, 45 nm", add, mult, HOROWITZ_DERIVED)


TECHNOLOGIES: dict[str, Technology] = {t.name: t for t in (_horowitz(),)}


def technology(energy: EnergyConfig) -> Technology:
    return TECHNOLOGIES[energy.technology]


def mac_pj(energy: EnergyConfig, dtype: str, acc: str) -> float:
    """One MAC: a multiply at `dtype` and an add at the accumulator's precision
    (`energy.mac_pj` when set)."""
    if energy.mac_pj is not None:
        return energy.mac_pj
    t = technology(energy)
    return t.mult(dtype) + t.add(acc or dtype)


def lane_pj(energy: EnergyConfig, cls: str, dtype: str) -> float:
    """One lane op of class `cls` ("mul": a multiply; "add" / "other": an add's energy;
    "special": `energy.special_pj`) at `dtype` (`energy.alu_pj` when set, for every class
    but special)."""
    if cls == "special":
        return energy.special_pj
    if energy.alu_pj is not None:
        return energy.alu_pj
    t = technology(energy)
    return t.mult(dtype) if cls == "mul" else t.add(dtype)


def compute_pj(energy: EnergyConfig, counts: OpCounts) -> float:
    """The compute energy of one kernel call from its counts by precision."""
    total = 0.0
    typed = 0
    for cls, dtype, acc, n in counts.typed:
        total += n * (mac_pj(energy, dtype, acc) if cls == "mac" else lane_pj(energy, cls, dtype))
        typed += n
    # ops without a type (none today; kept exact): at f32, the machine's default
    untyped = counts.mac + counts.mul + counts.add + counts.other + counts.special - typed
    if untyped > 0:
        total += untyped * lane_pj(energy, "add", "f32")
    return total


def ops_pj(energy: EnergyConfig, macs: int, alu_ops: int, special_ops: int,
           dtype: str = "f32") -> float:
    """Energy of counts without their precisions (every op at `dtype`)."""
    return (macs * mac_pj(energy, dtype, accumulator(dtype)) + alu_ops * lane_pj(energy, "add", dtype)
            + special_ops * energy.special_pj)


# ---- rates ---------------------------------------------------------------------------------


class UnsupportedPrecision(ConfigError):
    """A kernel's precision is not in the rate table of any unit that could run it."""


def parse_rates(key: str, value: object) -> tuple[tuple[str, float], ...]:
    """A rate table from the TOML shape (`{i8 = 1.0, bf16 = 0.5}`) or pairs, checked:
    precisions by MLIR's name (aliases accepted), rates in (0, 64]."""
    if isinstance(value, Mapping):
        items: Iterable = value.items()
    elif isinstance(value, list | tuple):
        items = value
    else:
        raise ConfigError(f"{key} = {value!r}: must be a table of precision = rate, e.g. "
                          "{i8 = 1.0, bf16 = 0.5}")
    out: dict[str, float] = {}
    for item in items:
        if not (isinstance(item, list | tuple) and len(item) == 2):
            raise ConfigError(f"{key} = {value!r}: must be a table of precision = rate")
        name, rate = item
        dt = canonical(name, f"{key}.{name}")
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not (0 < rate <= 64):
            raise ConfigError(f"{key}.{name} = {rate!r}: must be a number in (0, 64] (MACs a "
                              "cycle per PE relative to the native precision)")
        out[dt] = float(rate)
    if not out:
        raise ConfigError(f"{key} = {{}}: the unit supports no precision; give at least one")
    return tuple(sorted(out.items(), key=lambda kv: DTYPES.index(kv[0])))


def rate(table: tuple[tuple[str, float], ...], dtype: str) -> float | None:
    """The rate of `dtype` in a unit's table (None: not supported). i1 and index values (a
    predicate, an address) run at the widest integer rate the unit has, or 1.0."""
    for k, r in table:
        if k == dtype:
            return r
    if dtype not in BITS or dtype == "i1":
        ints = [r for k, r in table if k.startswith("i")]
        return max(ints) if ints else 1.0
    return None


def mac_rate(cc: ComputeConfig, dtype: str) -> float | None:
    return rate(cc.macs_rate, dtype)


def lane_rate(cc: ComputeConfig, dtype: str) -> float | None:
    return rate(cc.lanes_rate, dtype)


def _names(table: tuple[tuple[str, float], ...]) -> str:
    return ", ".join(f"{k} at {_fmt(r)}" for k, r in table)


def _fmt(r: float) -> str:
    return f"{r:g}x"


def array_supports(cc: ComputeConfig, counts: OpCounts) -> bool:
    """Whether the matrix array supports every MAC precision of the kernel and holds its
    accumulators (`compute.acc_dtype`)."""
    return _array_refusal(cc, counts) is None


def _array_refusal(cc: ComputeConfig, counts: OpCounts) -> str | None:
    for c, t, a, _ in counts.typed:
        if c != "mac":
            continue
        if mac_rate(cc, t) is None:
            return (f"does not support {t} MACs (compute.macs_rate: {_names(cc.macs_rate)}); "
                    f"add {t} to compute.macs_rate or run the kernel at a supported precision")
        if cc.acc_dtype is not None and a and bits(a) > bits(cc.acc_dtype):
            return (f"holds {cc.acc_dtype} accumulators (compute.acc_dtype), not the kernel's "
                    f"{a} ones ({t} MACs)")
    return None


def lanes_unsupported(cc: ComputeConfig, counts: OpCounts, with_macs: bool) -> str | None:
    """The first precision of the kernel's lane ops (its MACs too when `with_macs`) the lanes
    do not support, or None."""
    for c, t, _, _ in counts.typed:
        if (c != "mac" or with_macs) and lane_rate(cc, t) is None:
            return t
    return None


def refuse(cc: ComputeConfig, counts: OpCounts, kernel: str, on_array: bool) -> None:
    """Raise `UnsupportedPrecision` when no unit can run the kernel: on the array (`on_array`)
    its MACs need the array's support and its other ops the lanes'; on the lanes all of it."""
    if on_array:
        why = _array_refusal(cc, counts)
        if why is not None:
            alt = ("" if cc.matmul_unit == "array" else
                   f"; the lanes do not run it either (compute.lanes_rate: {_names(cc.lanes_rate)})")
            raise UnsupportedPrecision(f"kernel @{kernel}: the matrix unit ({cc.rows}x{cc.cols}, "
                                       f"native {cc.native_dtype}) {why}{alt}")
    bad = lanes_unsupported(cc, counts, with_macs=not on_array)
    if bad is not None:
        unit = f"the vector lanes ({cc.lanes})"
        why = _array_refusal(cc, counts) if cc.kind == "matrix" and counts.mac else None
        if why is not None:
            unit = f"the matrix unit ({cc.rows}x{cc.cols}, native {cc.native_dtype}) {why}, and {unit}"
        raise UnsupportedPrecision(
            f"kernel @{kernel}: {unit} do not support {bad} (compute.lanes_rate: "
            f"{_names(cc.lanes_rate)}); add {bad} to compute.lanes_rate or run the kernel at "
            "a supported precision")


def mac_scale(cc: ComputeConfig, counts: OpCounts) -> Fraction:
    """The array's time for the kernel's MACs relative to the native rate: each precision's
    share of the MACs over its rate (1 for native MACs; 2 for bf16 at 0.5)."""
    if not counts.mac:
        return Fraction(1)
    scale = Fraction(0)
    typed = 0
    for c, t, _, n in counts.typed:
        if c == "mac":
            r = mac_rate(cc, t)
            scale += Fraction(n, counts.mac) / Fraction(r if r is not None else 1.0)
            typed += n
    return scale + Fraction(counts.mac - typed, counts.mac)


def mac_cycles(cc: ComputeConfig, counts: OpCounts, full_rate_cycles: int) -> int:
    """The array's cycles for the kernel's MACs: `full_rate_cycles` (what they take at the
    native rate) times `mac_scale`."""
    return math.ceil(full_rate_cycles * mac_scale(cc, counts))


def lane_slots(cc: ComputeConfig, counts: OpCounts, with_macs: bool) -> Fraction:
    """Lane-slots of the kernel's ops (special ops at `special_op_cycles` each, MACs too when
    `with_macs`), each divided by its precision's lane rate."""
    total = Fraction(0)
    typed = 0
    for c, t, _, n in counts.typed:
        if c == "mac" and not with_macs:
            continue
        r = lane_rate(cc, t)
        w = cc.special_op_cycles if c == "special" else 1
        total += Fraction(n * w) / Fraction(r if r is not None else 1.0)
        typed += n
    every = ((counts.mac if with_macs else 0) + counts.mul + counts.add + counts.other
             + counts.special)
    if every > typed:  # untyped ops: at the native rate (none today)
        total += every - typed
    return total


def precisions(counts: OpCounts) -> str:
    """The kernel's precision for a report: its MACs' (with the accumulator: `i8->i32`), else
    its widest lane op's; "" without ops."""
    macs = sorted({(t, a) for c, t, a, _ in counts.typed if c == "mac"},
                  key=lambda ta: (bits(ta[0]), ta[0]))
    if macs:
        return ",".join(f"{t}->{a}" if a and a != t else t for t, a in macs)
    lanes = [t for c, t, _, _ in counts.typed if t in BITS]
    return max(lanes, key=bits) if lanes else ""


__all__ = [
    "ALIASES", "BITS", "DTYPES", "TECHNOLOGIES", "Technology", "UnsupportedPrecision",
    "accumulator", "array_supports", "bits", "canonical", "compute_pj", "dma_element_bytes",
    "lane_pj", "lane_rate",
    "lane_slots", "mac_cycles", "mac_scale", "mac_pj", "mac_rate", "ops_pj", "parse_rates", "precisions",
    "rate", "refuse", "storage_bytes",
]
