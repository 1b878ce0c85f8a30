"""Sweep specifications: workloads x hardware keys x compiler options x fidelity, with constraints.

The same `Sweep` value comes from TOML (`load_spec(path)`) or from Python
(`Sweep(workloads=[...], hardware={"sram.capacity_kib": [64, 128]})`). Everything is checked
when the sweep is built, before any point runs: unknown keys, empty ranges, values of the
wrong type, hardware keys the config schema rejects, constraints that do not parse or that
fail on some point. Each error is a ConfigError naming the key.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelsim.dse.constraints import Constraint
from accelsim.dse.time_limit import DEFAULT_TIME_LIMIT_S, check_time_limit
from accelsim.errors import ConfigError
from compiler.diagnostics import AccelsimError

Scalar = int | float | str | bool
FIDELITIES = ("analytic", "event", "both")  # both: analytic, the front confirmed by event
MAX_POINTS = 2_000_000  # points are listed (and constraints checked) up front
TOP_LEVEL_KEYS = ("name", "config", "workloads", "hardware", "compiler", "fidelity", "functional",
                  "constraints", "time_limit_s", "objectives", "dtype", "schedule")
# accelsim.network.schedule.SCHEDULES (the DSE must not import accelsim.network; a test keeps
# the two equal)
NETWORK_SCHEDULES = ("layer-by-layer", "fused", "pipelined", "auto")
DEFAULT_OBJECTIVES = ("cycles", "energy_pj")  # the front `fidelity = "both"` confirms
SEARCH = "search"


# ---------------------------------------------------------------------------------------------
# compiler options: name -> (default, canonicalizer raising ValueError with "expected ...")

# The config's top-level keys a sweep may vary (each value is checked against the config's
# schema like any other key, `_check_against_schema`).
UNDOTTED_HARDWARE_KEYS = ("clusters", "clock_ghz")


def _tile_sizes(v: Any) -> str:
    """"auto" (the cache model for the SRAM capacity), "search" (the machine-aware tile search of
    `--target sim`: tiles, copy capacity and stages of its own), "none" (no tiling), N, or
    [N, N, N] -> text."""
    if isinstance(v, str) and v in ("auto", "search", "none"):
        return v
    if isinstance(v, int) and not isinstance(v, bool) and v >= 1:
        return str(v)
    if isinstance(v, list | tuple) and v and all(isinstance(x, int) and not isinstance(x, bool)
                                                 and x >= 1 for x in v):
        return ",".join(str(x) for x in v)
    raise ValueError('expected "auto", "search", "none", a positive integer or a list of positive '
                     'integers')


def _positive_int(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and v >= 1:
        return v
    raise ValueError("expected an integer >= 1")


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise ValueError("expected true or false")


def _mapping(v: Any) -> str:
    """An explicit mapping (Timeloop's loop nest per level), checked now; "" for none."""
    if not isinstance(v, str):
        raise ValueError('expected a mapping string like "L3[WIO] K12 - L2[WI] K16X - L1[O] C48 '
                         'P4 C16X - L0[W] P32"')
    if v.strip():
        from accelsim.compile.mapping import parse_mapping

        parse_mapping(v)
    return v.strip()


def _tile_policy(v: Any) -> str:
    if v in ("auto", "gemmini"):
        return str(v)
    raise ValueError('expected "auto" (tile_sizes decides) or "gemmini" (Gemmini\'s tiler)')


@dataclass(frozen=True, slots=True)
class CompilerOption:
    default: Scalar
    canonical: Callable[[Any], Scalar]
    doc: str


COMPILER_OPTIONS: dict[str, CompilerOption] = {
    # "search" by default: a point compiles as `accelsim run --target sim` does
    "tile_sizes": CompilerOption("search", _tile_sizes,
                                 "affine-loop-tile sizes per loop of the band, or search (the "
                                 "default: the tile search of `accelsim run --target sim`, which "
                                 "chooses copies and stages too) / auto (the cache model) / none"),
    "stages": CompilerOption(2, _positive_int,
                             "affine-pipeline-data-transfer stages (1 = no pipelining)"),
    "copy_out_pipelining": CompilerOption(True, _bool, "pipeline copy-out DMAs as well as copy-in"),
    "cross_tile_prefetch": CompilerOption(True, _bool, "prefetch the next outer tile's data early"),
    "data_copy": CompilerOption(True, _bool, "affine-data-copy-generate with DMA into SRAM"),
    "mapping": CompilerOption("", _mapping, "an explicit mapping, Timeloop's loop nest per level "
                                            "(gemm / conv2d workloads; docs/validation.md)"),
    "tile_policy": CompilerOption("auto", _tile_policy, "gemmini: the tiles Gemmini's software "
                                                        "picks (gemm / conv2d workloads)"),
}


def tile_sizes_value(text: str) -> str | tuple[int, ...]:
    """The canonical tile text back as a tuple (or "auto"/"none"), e.g. for constraints."""
    if text in ("auto", "search", "none"):
        return text
    return tuple(int(x) for x in text.split(","))


# ---------------------------------------------------------------------------------------------
# workload spec strings

_WL_RE = re.compile(r"^\s*([A-Za-z0-9][\w\-]*)\s*(?::(.*))?$")


def canonical_workload(spec: str) -> str:
    """`gemm:N=48, M=64` -> `gemm:M=64,N=48` so one point has one key."""
    name, params = parse_workload(spec)
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={params[k]}" for k in sorted(params))


def parse_workload(spec: str) -> tuple[str, dict[str, Scalar]]:
    if not isinstance(spec, str):
        raise ValueError(f"expected a workload spec string like 'gemm:M=64,N=64,K=64', found {spec!r}")
    m = _WL_RE.match(spec)
    if m is None:
        raise ValueError(f"expected 'name' or 'name:key=value,...', found {spec!r}")
    params: dict[str, Scalar] = {}
    for item in filter(None, (s.strip() for s in (m.group(2) or "").split(","))):
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expected key=value in workload spec {spec!r}, found {item!r}")
        params[key.strip()] = _number(raw.strip())
    return m.group(1), params


NETWORK_PREFIX = "network:"
NETWORK_SUFFIXES = (".csv", ".layers", ".onnx")


def check_network(spec: str) -> str:
    """`network:NAME`: a zoo network (workloads/networks/NAME.csv|.layers) or a network file;
    evaluated by `accelsim.network.sweep.evaluate` (the `accelsim dse run` default for them)."""
    name = spec[len(NETWORK_PREFIX):].strip()
    if name.lower().endswith(NETWORK_SUFFIXES):
        if not Path(name).is_file():
            raise ValueError(f"network file {name!r} does not exist")
        return NETWORK_PREFIX + name
    import workloads

    zoo = Path(workloads.__file__).resolve().parent / "networks"
    known = sorted(p.stem for p in zoo.glob("*") if p.suffix in (".csv", ".layers"))
    if name not in known:
        raise ValueError(f"unknown network {name!r}; the zoo has {', '.join(known)} (or give a "
                         ".csv, .layers or .onnx file)")
    return NETWORK_PREFIX + name


def is_network(workload: str) -> bool:
    return workload.startswith(NETWORK_PREFIX)


def _number(raw: str) -> Scalar:
    for conv in (int, float):
        try:
            return conv(raw)
        except ValueError:
            pass
    return raw


# ---------------------------------------------------------------------------------------------
# points

@dataclass(frozen=True, slots=True)
class Point:
    """One design point. `key` is a hash of the canonical point: the store's primary key."""

    workload: str
    config: str = "default"
    hardware: tuple[tuple[str, Scalar], ...] = ()
    compiler: tuple[tuple[str, Scalar], ...] = ()
    fidelity: str = "analytic"
    functional: bool = False
    # the sweep's `dtype` (MLIR's name; "": not swept): a kernel's workload already carries it
    # (`gemm:...,dtype=i8`), a network runs at it (`accelsim.network.precision`)
    dtype: str = ""
    # a network point's schedule (`accelsim.network.schedule`; "": not swept, the default)
    schedule: str = ""

    def canonical(self) -> dict[str, Any]:
        out = {
            "workload": self.workload,
            "config": self.config,
            "hardware": dict(sorted(self.hardware)),
            "compiler": dict(sorted(self.compiler)),
            "fidelity": self.fidelity,
            "functional": self.functional,
        }
        if self.dtype:  # (absent when not swept: the keys of older points stay)
            out["dtype"] = self.dtype
        if self.schedule:
            out["schedule"] = self.schedule
        return out

    @property
    def key(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    @property
    def hw(self) -> dict[str, Scalar]:
        return dict(self.hardware)

    @property
    def options(self) -> dict[str, Scalar]:
        opts = {name: o.default for name, o in COMPILER_OPTIONS.items()}
        opts.update(self.compiler)
        return opts

    def params(self) -> dict[str, Scalar]:
        """The input columns of this point's row: one per parameter, flat."""
        row: dict[str, Scalar] = {"workload": self.workload, "config": self.config,
                                  "fidelity": self.fidelity, "functional": self.functional}
        if self.dtype:
            row["dtype"] = self.dtype
        if self.schedule:
            row["schedule"] = self.schedule
        row.update(self.hardware)
        row.update(self.options)
        return row

    def env(self) -> dict[str, Any]:
        """Names a constraint can use: parameters, workload params (M, N, ...), `kernel`, and
        `dtype_bytes` (element size of the workload's dtype, 4 for f32); a network point has
        `kernel` = "network" and `network` = its name."""
        if is_network(self.workload):
            net_env: dict[str, Any] = {"kernel": "network", "network": self.workload[len(NETWORK_PREFIX):],
                                       "dtype_bytes": _bytes(self.dtype or "f32")}
            net_env.update(self.params())
            net_env["tile_sizes"] = tile_sizes_value(str(self.options["tile_sizes"]))
            return net_env
        name, wl_params = parse_workload(self.workload)
        env: dict[str, Any] = dict(wl_params)
        env["kernel"] = name
        env["dtype_bytes"] = _bytes(str(wl_params.get("dtype", "f32")))
        env.update(self.params())
        env["tile_sizes"] = tile_sizes_value(str(self.options["tile_sizes"]))
        return env

    @staticmethod
    def from_canonical(data: Mapping[str, Any]) -> Point:
        return Point(
            workload=data["workload"],
            config=data["config"],
            hardware=tuple(sorted(data["hardware"].items())),
            compiler=tuple(sorted(data["compiler"].items())),
            fidelity=data["fidelity"],
            functional=bool(data["functional"]),
            dtype=str(data.get("dtype", "")),
            schedule=str(data.get("schedule", "")),
        )


def _bytes(dtype: str) -> float:
    """Bytes of one element of `dtype` (i4: 0.5; an unknown name: 4)."""
    from accelsim.cost.precision import BITS

    return BITS.get(dtype, 32) / 8


# ---------------------------------------------------------------------------------------------
# the sweep

def _as_range(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """TOML `[hardware] sram.capacity_kib = [..]` is a nested table; sweep keys are dotted."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


@dataclass(frozen=True)
class Sweep:
    """A validated sweep. Build it directly or with `load_spec`; iterate `points()`."""

    workloads: Sequence[str]
    hardware: Mapping[str, Sequence[Scalar] | Scalar] = field(default_factory=dict)
    compiler: Mapping[str, Sequence[Any] | Any] = field(default_factory=dict)
    fidelity: Sequence[str] | str = ("analytic",)
    config: Sequence[str] | str = ("default",)
    constraints: Sequence[str] = ()
    functional: bool = False
    name: str = "sweep"
    time_limit_s: float = DEFAULT_TIME_LIMIT_S  # per point; a point still running then is `timeout`
    # `fidelity = "both"`: every point runs analytic, then the Pareto front of these columns
    # (minimized, per workload) runs event
    objectives: Sequence[str] = DEFAULT_OBJECTIVES
    source: str = "<python>"
    check_registry: bool = True
    # precisions every workload runs at (`dtype = ["i8", "bf16", "f32"]`): a kernel's spec gets
    # `dtype=` (its acc= default follows), a network runs with `--dtype`'s rules; None: as given
    dtype: Sequence[str] | str | None = None
    # schedules every network point runs under (`schedule = ["layer-by-layer", "fused"]`,
    # `accelsim.network.schedule.SCHEDULES`); None: the default (auto). Kernels have none.
    schedule: Sequence[str] | str | None = None

    def __post_init__(self) -> None:
        src = self.source
        object.__setattr__(self, "dtype", self._check_dtype())
        wls = _as_range(self.workloads)
        if not wls:
            raise ConfigError(f"{src}: key 'workloads': empty range (expected at least one workload)")
        canon: list[str] = []
        for i, w in enumerate(wls):
            try:
                canon.append(self._canonical_workload(w))
            except (AccelsimError, ValueError, KeyError) as exc:
                raise ConfigError(f"{src}: key 'workloads[{i}]': {exc}")
        object.__setattr__(self, "workloads", tuple(dict.fromkeys(canon)))
        object.__setattr__(self, "schedule", self._check_schedule())

        configs = _as_range(self.config)
        if not configs or not all(isinstance(c, str) and c for c in configs):
            raise ConfigError(f"{src}: key 'config': expected a preset name or path (or a non-empty "
                              f"list of them), found {self.config!r}")
        object.__setattr__(self, "config", tuple(dict.fromkeys(configs)))

        fids = _as_range(self.fidelity)
        if not fids:
            raise ConfigError(f"{src}: key 'fidelity': empty range (expected some of {FIDELITIES})")
        for f in fids:
            if f not in FIDELITIES:
                raise ConfigError(f"{src}: key 'fidelity': expected one of {FIDELITIES}, found {f!r}")
        object.__setattr__(self, "fidelity", tuple(dict.fromkeys(fids)))

        objs = _as_range(self.objectives)
        if not 2 <= len(objs) <= 3 or not all(isinstance(o, str) and o for o in objs):
            raise ConfigError(f"{src}: key 'objectives': expected 2 or 3 column names (figures or "
                              f"parameters, e.g. [\"cycles\", \"energy_pj\"]), found {self.objectives!r}")
        object.__setattr__(self, "objectives", tuple(objs))

        if not isinstance(self.functional, bool):
            raise ConfigError(f"{src}: key 'functional': expected true or false, found {self.functional!r}")
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"{src}: key 'name': expected a non-empty string, found {self.name!r}")
        try:
            limit = check_time_limit(self.time_limit_s, "key 'time_limit_s'")
        except ValueError as exc:
            raise ConfigError(f"{src}: {exc}") from None
        object.__setattr__(self, "time_limit_s", limit)

        object.__setattr__(self, "hardware", self._check_hardware(_flatten(self.hardware)))
        object.__setattr__(self, "compiler", self._check_compiler(dict(self.compiler)))
        self._check_search_options()

        cons: list[Constraint] = []
        for i, text in enumerate(_as_range(self.constraints)):
            try:
                cons.append(Constraint.parse(text))
            except ConfigError as exc:
                raise ConfigError(f"{src}: key 'constraints[{i}]': {exc}")
        object.__setattr__(self, "constraints", tuple(c.text for c in cons))
        object.__setattr__(self, "_parsed", tuple(cons))
        self._check_constraint_names()
        if self.size > MAX_POINTS:
            raise ConfigError(f"{src}: the sweep has {self.size:,} points before constraints, more than "
                              f"{MAX_POINTS:,}: split it into several specs (they can share one database)")
        if self.check_registry:
            self._check_against_schema()
        # Constraints run on every point now, so a constraint that fails on some point is a
        # spec error raised before anything runs.
        object.__setattr__(self, "_points", tuple(self._filter()))

    # -- validation -----------------------------------------------------------------------

    def _check_hardware(self, flat: Mapping[str, Any]) -> dict[str, tuple[Scalar, ...]]:
        out: dict[str, tuple[Scalar, ...]] = {}
        for key, value in flat.items():
            where = f"{self.source}: key 'hardware.{key}'"
            if "." not in key and key not in UNDOTTED_HARDWARE_KEYS:
                raise ConfigError(f"{where}: expected a dotted config key like 'sram.capacity_kib' "
                                  f"or one of {', '.join(UNDOTTED_HARDWARE_KEYS)}")
            values = _as_range(value)
            if not values:
                raise ConfigError(f"{where}: empty range (expected at least one value)")
            kinds = set()
            for v in values:
                if not isinstance(v, int | float | str | bool):
                    raise ConfigError(f"{where}: expected numbers, strings or booleans, found {v!r}")
                kinds.add("bool" if isinstance(v, bool) else "number" if isinstance(v, int | float)
                          else "str")
            if len(kinds) > 1:
                raise ConfigError(f"{where}: values of mixed types {sorted(kinds)}: {values!r}")
            out[key] = tuple(dict.fromkeys(values))
        return out

    def _check_compiler(self, table: Mapping[str, Any]) -> dict[str, tuple[Scalar, ...]]:
        out: dict[str, tuple[Scalar, ...]] = {}
        for key, value in table.items():
            where = f"{self.source}: key 'compiler.{key}'"
            if key not in COMPILER_OPTIONS:
                known = ", ".join(COMPILER_OPTIONS)
                raise ConfigError(f"{where}: unknown compiler option (known: {known})")
            # A bare list of ints for tile_sizes is one choice, not a range of choices.
            if key == "tile_sizes" and isinstance(value, list | tuple) and value and all(
                    isinstance(v, int) for v in value):
                values = [value]
            else:
                values = _as_range(value)
            if not values:
                raise ConfigError(f"{where}: empty range (expected at least one value)")
            canon = []
            for v in values:
                try:
                    canon.append(COMPILER_OPTIONS[key].canonical(v))
                except ValueError as exc:
                    raise ConfigError(f"{where}: {exc}, found {v!r}")
            out[key] = tuple(dict.fromkeys(canon))
        return out

    def _check_search_options(self) -> None:
        """The tile search (tile_sizes = "search", the default) chooses the copies and stages
        itself: a swept option it would ignore is an error, not a sweep of equal points."""
        tiles = self.compiler.get("tile_sizes", (COMPILER_OPTIONS["tile_sizes"].default,))
        # a mapping or Gemmini's tiler replaces the search (their program, not the search's)
        others = [k for k in self.compiler if k not in ("tile_sizes", "mapping", "tile_policy")]
        if others and all(t == SEARCH for t in tiles):
            raise ConfigError(
                f"{self.source}: key 'compiler.{others[0]}': with tile_sizes = \"search\" (the "
                "default: the tile search of `accelsim run --target sim`) the search chooses the "
                f"tiles, copies and stages itself, so {others[0]} would change nothing; to sweep "
                "it, set compiler.tile_sizes = \"auto\" (the cache model's tiles) or explicit "
                "tiles")

    def _check_constraint_names(self) -> None:
        known = set(self.hardware) | set(COMPILER_OPTIONS) | {"workload", "config", "fidelity",
                                                               "functional", "kernel", "dtype_bytes"}
        if self.dtype:
            known.add("dtype")
        if self.schedule:
            known.add("schedule")
        for w in self.workloads:
            known |= {"network"} if is_network(w) else set(parse_workload(w)[1])
        for i, c in enumerate(self._parsed):  # type: ignore[attr-defined]
            for n in sorted(c.names - known):
                raise ConfigError(f"{self.source}: key 'constraints[{i}]': unknown name '{n}' in "
                                  f"{c.text!r} (known: {', '.join(sorted(known))})")

    def _check_against_schema(self) -> None:
        """Each config loads and accepts each swept value alone; the SIM's schema decides."""
        if importlib.util.find_spec("accelsim.config") is None:
            return
        from accelsim.config import load_config

        for cfg in self.config:
            try:
                base = load_config(cfg)
            except ConfigError as exc:
                raise ConfigError(f"{self.source}: key 'config': {exc}")
            # each value with the other keys at their first value (a timing-model key is
            # valid only with `dram.model = "timing"` among the overrides)
            firsts = {k: vals[0] for k, vals in self.hardware.items() if vals}
            for key, values in self.hardware.items():
                for v in values:
                    try:
                        base.with_overrides({**firsts, key: v})
                    except ConfigError as exc:
                        raise ConfigError(f"{self.source}: key 'hardware.{key}': {exc}")

    def _check_dtype(self) -> tuple[str, ...]:
        if self.dtype is None or self.dtype == ():  # not swept (() once normalized: replace())
            return ()
        from workloads.model import dtype_name

        values = _as_range(self.dtype)
        if not values:
            raise ConfigError(f"{self.source}: key 'dtype': empty range (expected e.g. [\"i8\", \"f32\"])")
        out = []
        for v in values:
            try:
                out.append(dtype_name(v) if isinstance(v, str) else dtype_name(repr(v)))
            except ValueError as exc:
                raise ConfigError(f"{self.source}: key 'dtype': {str(exc).replace('--dtype ', '')}")
        return tuple(dict.fromkeys(out))

    def _check_schedule(self) -> tuple[str, ...]:
        if self.schedule is None or self.schedule == ():  # not swept
            return ()
        values = _as_range(self.schedule)
        if not values:
            raise ConfigError(f"{self.source}: key 'schedule': empty range (expected e.g. "
                              "[\"layer-by-layer\", \"fused\"])")
        for v in values:
            if v not in NETWORK_SCHEDULES:
                raise ConfigError(f"{self.source}: key 'schedule': unknown schedule {v!r} (known: "
                                  f"{', '.join(NETWORK_SCHEDULES)})")
        if not any(is_network(w) for w in self.workloads):
            raise ConfigError(f"{self.source}: key 'schedule': schedules are how a network's "
                              "layers run; no workload is a network (network:NAME)")
        return tuple(dict.fromkeys(values))

    def _at(self, workload: str, dtype: str) -> str:
        """`workload` at `dtype`: a kernel's spec with `dtype=` (checked by the registry)."""
        if not dtype or is_network(workload):
            return workload
        name, params = parse_workload(workload)
        params = {k: v for k, v in params.items() if k not in ("dtype", "acc", "wdtype")}
        text = name + ":" + ",".join([*(f"{k}={v}" for k, v in params.items()), f"dtype={dtype}"])
        try:
            return self._canonical_workload(text)
        except (AccelsimError, ValueError) as exc:
            raise ConfigError(f"{self.source}: key 'dtype': {workload} at {dtype}: {exc}") from None

    def _canonical_workload(self, spec: str) -> str:
        """With the registry: its canonical spec (every parameter, defaults included), so
        `gemm` and `gemm:M=<default>` are one point. Without: sorted `key=value` pairs.
        `network:NAME` (a zoo network or a .csv/.layers/.onnx path) is a whole network."""
        if isinstance(spec, str) and spec.strip().startswith(NETWORK_PREFIX):
            return check_network(spec.strip())
        if self.check_registry and importlib.util.find_spec("workloads") is not None:
            import workloads

            if not isinstance(spec, str):
                raise ValueError(f"expected a workload spec string like 'gemm:M=64', found {spec!r}")
            return str(workloads.get(spec).spec)
        return canonical_workload(spec)

    # -- points -----------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Points before constraints."""
        n = len(self.workloads) * len(self.config) * len(self.fidelity) * max(1, len(self.dtype)) \
            * max(1, len(self.schedule))
        for values in (*self.hardware.values(), *self.compiler.values()):
            n *= len(values)
        return n

    def iter_all(self) -> Iterator[Point]:
        hw_keys, cc_keys = list(self.hardware), list(self.compiler)
        for wl0, dt, cfg in itertools.product(self.workloads, self.dtype or ("",), self.config):
            wl = self._at(wl0, dt)
            # a kernel has no schedule: one point, whatever the sweep's schedules
            scheds = (self.schedule or ("",)) if is_network(wl) else ("",)
            for hw in itertools.product(*(self.hardware[k] for k in hw_keys)):
                seen: set[tuple[tuple[str, Scalar], ...]] = set()
                for cc in itertools.product(*(self.compiler[k] for k in cc_keys)):
                    opts = {n: o.default for n, o in COMPILER_OPTIONS.items()}
                    opts.update(zip(cc_keys, cc))
                    if opts["tile_sizes"] == SEARCH:  # the search's choice: the rest unused
                        kept = {k: opts[k] for k in ("mapping", "tile_policy")}  # replace it
                        opts = {n: o.default for n, o in COMPILER_OPTIONS.items()}
                        opts.update(kept)
                    compiler = tuple(sorted(opts.items()))
                    if compiler in seen:
                        continue
                    seen.add(compiler)
                    for fid, sched in itertools.product(self.fidelity, scheds):
                        yield Point(workload=wl, config=cfg,
                                    hardware=tuple(sorted(zip(hw_keys, hw))),
                                    compiler=compiler, fidelity=fid,
                                    functional=self.functional, dtype=dt, schedule=sched)

    def points(self) -> list[Point]:
        """Every point that satisfies all constraints, in a stable order."""
        return list(self._points)  # type: ignore[attr-defined]

    def _filter(self) -> list[Point]:
        out = []
        for p in self.iter_all():
            env = p.env()
            for i, c in enumerate(self._parsed):  # type: ignore[attr-defined]
                try:
                    ok = c(env)
                except ConfigError as exc:
                    raise ConfigError(f"{self.source}: key 'constraints[{i}]': {exc} (at point {p.params()})")
                if not ok:
                    break
            else:
                out.append(p)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": list(self.config),
            "workloads": list(self.workloads),
            "hardware": {k: list(v) for k, v in self.hardware.items()},
            "compiler": {k: list(v) for k, v in self.compiler.items()},
            "fidelity": list(self.fidelity),
            "functional": self.functional,
            "constraints": list(self.constraints),
            "time_limit_s": self.time_limit_s,
            "objectives": list(self.objectives),
            **({"dtype": list(self.dtype)} if self.dtype else {}),
            **({"schedule": list(self.schedule)} if self.schedule else {}),
        }


def from_dict(data: Mapping[str, Any], source: str = "<dict>", check_registry: bool = True) -> Sweep:
    """A sweep from the parsed TOML table (or any mapping of the same shape)."""
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise ConfigError(f"{source}: unknown key '{key}' (known: {', '.join(TOP_LEVEL_KEYS)})")
    if "workloads" not in data:
        raise ConfigError(f"{source}: key 'workloads' is required (e.g. workloads = [\"gemm:M=64\"])")
    for table in ("hardware", "compiler"):
        if table in data and not isinstance(data[table], Mapping):
            raise ConfigError(f"{source}: key '{table}': expected a table, found {data[table]!r}")
    return Sweep(
        workloads=data["workloads"],
        hardware=data.get("hardware", {}),
        compiler=data.get("compiler", {}),
        fidelity=data.get("fidelity", ("analytic",)),
        config=data.get("config", ("default",)),
        constraints=data.get("constraints", ()),
        functional=data.get("functional", False),
        name=data.get("name", Path(source).stem if source.endswith(".toml") else "sweep"),
        time_limit_s=data.get("time_limit_s", DEFAULT_TIME_LIMIT_S),
        objectives=data.get("objectives", DEFAULT_OBJECTIVES),
        dtype=data.get("dtype"),
        schedule=data.get("schedule"),
        source=source,
        check_registry=check_registry,
    )


def load_spec(path: str | Path, check_registry: bool = True) -> Sweep:
    """Parse and validate a TOML sweep file; nothing runs here."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read sweep spec: {exc.strerror}")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (offset {exc.start}); TOML files are UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}")
    configs = data.get("config")
    if isinstance(configs, str | list):  # hardware files next to the spec, wherever it runs from
        data = {**data, "config": _resolve_configs(configs, p.parent)}
    try:
        return from_dict(data, source=str(path), check_registry=check_registry)
    except ConfigError as exc:
        raise ConfigError(_with_line(str(exc), str(path), text)) from None


def _with_line(message: str, source: str, text: str) -> str:
    """`spec.toml: key 'hardware.sram.capacity_kib': ...` -> `spec.toml:7: key ...`, the line
    where the key is written (tomllib keeps no positions, so the text is searched)."""
    m = re.match(re.escape(source) + r": (?:unknown )?key '([^']+)'", message)
    if m is None:
        return message
    parts = re.sub(r"\[\d+\]$", "", m.group(1)).split(".")
    lines = text.splitlines()
    for start in range(len(parts)):  # the longest dotted suffix written on one line
        leaf = r"\.".join(re.escape(x) for x in parts[start:])
        pattern = re.compile(rf'^\s*"?{leaf}"?\s*=')
        for i, line in enumerate(lines, 1):
            if pattern.match(line):
                return f"{source}:{i}:" + message[len(source) + 1:]
    return message


def _resolve_configs(configs: str | list[Any], base: Path) -> str | list[Any]:
    """A relative `.toml` config path that exists next to the spec becomes absolute (workers
    may run in another directory); preset names and other values are left alone."""
    def one(c: Any) -> Any:
        if isinstance(c, str) and c.endswith(".toml") and not Path(c).is_absolute() \
                and (base / c).is_file():
            return str((base / c).resolve())
        return c

    return one(configs) if isinstance(configs, str) else [one(c) for c in configs]
