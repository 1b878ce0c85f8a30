"""What a workload is: typed parameters, a builder, a numpy reference and a tolerance.

A `Workload` describes a kernel family member once; `Workload.bind(values)` checks a set of
parameter values and returns a `BoundWorkload`, the thing callers use (build the module,
make inputs, compute the expected outputs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from compiler.diagnostics import AccelsimError
from compiler.ir import F32, F64, Builder, ElementType, FuncOp, MemRefType, ModuleOp
from compiler.ir.core import Value
from compiler.ir.ops import MaxSIOp, MinSIOp, MulIOp, ShRSIOp
from compiler.ir.types import ELEMENT_TYPES
from compiler.ir.verifier import verify as verify_module

ParamValue = int | float | ElementType
# "dtype": the element type of the kernel; "type": another element type (the accumulator
# `acc`, the weights' `wdtype`), None by default: derived from dtype when bound
ParamKind = Literal["int", "float", "dtype", "type"]

# the precisions a kernel can take (MLIR's names); most kernels take FLOATS, the matmul family
# and the integer-safe ones every type
DTYPES: dict[str, ElementType] = {n: ELEMENT_TYPES[n] for n in (
    "f32", "f64", "f16", "bf16", "f8E4M3FN", "f8E5M2", "i4", "i8", "i16", "i32")}
FLOATS: tuple[str, ...] = ("f32", "f64")
EVERY: tuple[str, ...] = tuple(DTYPES)
# names people write for them
ALIASES: dict[str, str] = {"int4": "i4", "int8": "i8", "int16": "i16", "int32": "i32",
                           "fp8": "f8E4M3FN", "fp16": "f16", "half": "f16", "bfloat16": "bf16",
                           "fp32": "f32", "float32": "f32", "fp64": "f64", "float64": "f64"}


# the names `accelsim run NETWORK --dtype` and a sweep's `dtype` take (MLIR's and the usual ones)
DTYPE_NAMES: dict[str, str] = {"int8": "i8", "int4": "i4", "int16": "i16", "bf16": "bf16",
                         "fp8": "f8E4M3FN", "fp8e5m2": "f8E5M2", "f16": "f16", "fp16": "f16",
                         "f32": "f32", "fp32": "f32"}


def dtype_name(text: str) -> str:
    """MLIR's name of a `--dtype` value; a ValueError naming the choices otherwise."""
    name = DTYPE_NAMES.get(text.lower()) if isinstance(text, str) else None
    if name is None and isinstance(text, str) and text in DTYPES:
        name = text
    if name is None:
        raise ValueError(f"--dtype {text!r}: expected one of int8, int4, int16, bf16, fp8, "
                         "fp8e5m2, f16, f32")
    return name


def accumulator(dtype: ElementType) -> ElementType:
    """The type a kernel of `dtype` accumulates in by default: i32 for integers (of up to 32
    bits), f32 for floats of up to 32 bits, f64 for f64."""
    if dtype.is_int:
        return DTYPES["i32"] if dtype.bitwidth <= 32 else dtype
    return F64 if dtype.bitwidth > 32 else F32


def convert(b: Builder, v: Value, to: ElementType) -> Value:
    """`v` as type `to` (`Builder.cast`: extsi / trunci between integers, extf / truncf between
    floats, sitofp / fptosi across; nothing when it already is); a pair no cast converts
    (bf16 <-> f16) is a WorkloadError."""
    try:
        return b.cast(v, to)
    except TypeError as exc:
        raise WorkloadError(f"{v.type} to {to}: {exc}") from None


class WorkloadError(AccelsimError):
    """An unknown workload or parameter, a malformed spec, or a value out of range."""


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: an integer size, a float scalar (alpha, beta), or the element type."""

    name: str
    default: ParamValue
    doc: str
    kind: ParamKind = "int"
    lo: int | None = 1
    hi: int | None = 1 << 16
    choices: tuple[str, ...] = FLOATS  # dtype / type parameters: the precisions allowed

    def parse(self, text: str, workload: str) -> ParamValue:
        """The value written in a spec (`"512"`, `"1.5"`, `"f64"`), range-checked."""
        text = text.strip()
        if self.kind in ("dtype", "type"):
            name = ALIASES.get(text.lower(), text)
            if name not in self.choices:
                raise WorkloadError(f"{workload}: {self.name} must be one of "
                                    f"{', '.join(self.choices)}, got '{text}'")
            return DTYPES[name]
        if self.kind == "float":
            try:
                value = float(text)
            except ValueError:
                raise WorkloadError(f"{workload}: {self.name} must be a number, got '{text}'")
            if not math.isfinite(value):
                raise WorkloadError(f"{workload}: {self.name} must be finite, got '{text}'")
            return value
        try:
            number = int(text, 10)
        except ValueError:
            raise WorkloadError(f"{workload}: {self.name} must be an integer, got '{text}'")
        self.check_range(number, workload)
        return number

    def check_range(self, value: int, workload: str) -> None:
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise WorkloadError(
                f"{workload}: {self.name}={value} is out of range; allowed {self.range_text()}")

    def range_text(self) -> str:
        if self.kind == "dtype":
            return " | ".join(self.choices)
        if self.kind == "type":
            return " | ".join(self.choices) + f" (default: {self.doc.split(';')[-1].strip()})"
        if self.kind == "float":
            return "any finite number"
        lo = "" if self.lo is None else f"{self.lo} <= "
        hi = "" if self.hi is None else f" <= {self.hi}"
        return f"{lo}{self.name}{hi}"


# the fixed-point scale of a requantized integer output: y = clamp(acc >> REQUANT_SHIFT)
REQUANT_SHIFT = 8


def reduce_sum(b: Builder, extents: Sequence[int], acc: ElementType,
               term: Callable[[list[Value]], Value]) -> Value:
    """Σ of `term(ivs)` over nested loops of `extents`, carried in iter_args from zero in the
    accumulator type `acc` (the accumulator lives in the PE, never in memory)."""
    def level(k: int, init: Value, ivs: list[Value]) -> Value:
        with b.loop(0, extents[k], iter_args=[init]) as lp:
            inner, here = lp.region_iter_args[0], [*ivs, lp.iv]
            b.yield_([inner + term(here)] if k == len(extents) - 1 else [level(k + 1, inner, here)])
        return lp.results[0]  # type: ignore[no-any-return]

    return level(0, b.constant(0, acc), [])


def requantized(b: Builder, v: Value, out: ElementType, mult: int = 1,
                shift: int = REQUANT_SHIFT) -> Value:
    """An accumulator value in the output precision: integers clamp((v * mult) >> shift) then
    narrowed (`muli`, `shrsi`, `maxsi`, `minsi`, `trunci`), floats rounded (`truncf`)."""
    t = v.type
    assert isinstance(t, ElementType)
    if not (t.is_int and out.is_int):
        return convert(b, v, out)
    lo = b.constant(-(1 << (out.bitwidth - 1)), t)
    hi = b.constant((1 << (out.bitwidth - 1)) - 1, t)
    if mult != 1:
        v = b.insert(MulIOp(v, b.constant(mult, t), loc=b.loc())).result
    v = b.insert(ShRSIOp(v, b.constant(shift, t), loc=b.loc())).result
    v = b.insert(MaxSIOp(v, lo, loc=b.loc())).result
    v = b.insert(MinSIOp(v, hi, loc=b.loc())).result
    return convert(b, v, out)


def requantized_reference(x: np.ndarray, out: ElementType, acc: ElementType, mult: int = 1,
                          shift: int = REQUANT_SHIFT) -> np.ndarray:
    """`requantized` in numpy (float64 in, the values the output type then holds)."""
    if out.is_int and acc.is_int:
        lo, hi = -(1 << (out.bitwidth - 1)), (1 << (out.bitwidth - 1)) - 1
        return np.clip(np.floor(x * mult / (1 << shift)), lo, hi)  # >> rounds toward -inf
    return x.astype(acc.numpy_dtype).astype(np.float64)  # summed in acc, then rounded once


def out_param() -> Param:
    """`out=`: requantize each output into this type in the kernel (an int8 accelerator's
    fused epilogue): the sum starts at zero in the accumulator (iter_args, never in memory)
    and integers are scaled by 2^-8 and clamped; none (the default): out += the sum, in acc."""
    return Param("out", None, "requantized output type; none: output += the sum in acc",  # type: ignore[arg-type]
                 kind="type", lo=None, hi=None, choices=EVERY)


def dtype_param(choices: tuple[str, ...] = FLOATS) -> Param:
    return Param("dtype", F32, "element type of every array", kind="dtype", lo=None, hi=None,
                 choices=choices)


def acc_param() -> Param:
    """`acc=`: the accumulator's (and the output's) type; by default i32 for integer dtypes,
    f32 for bf16 / f16 / fp8 / f32, f64 for f64."""
    return Param("acc", None, "accumulator and output type; i32 for integers, f32 for floats "  # type: ignore[arg-type]
                 "up to 32 bits, f64 for f64", kind="type", lo=None, hi=None, choices=EVERY)


def wdtype_param() -> Param:
    """`wdtype=`: the weights' type (the second operand), e.g. i4 weights with i8
    activations; by default dtype."""
    return Param("wdtype", None, "weights' element type; dtype", kind="type",  # type: ignore[arg-type]
                 lo=None, hi=None, choices=EVERY)


def size(name: str, default: int, doc: str, lo: int = 1, hi: int = 1 << 16) -> Param:
    return Param(name, default, doc, "int", lo, hi)


def scalar(name: str, default: float, doc: str) -> Param:
    return Param(name, default, doc, "float", None, None)


Tolerance = tuple[float, float]


def accumulation_tolerance(dtype: ElementType, terms: int) -> Tolerance:
    """(rtol, atol) for results that sum `terms` products of values in [-1, 1).

    Rounding error of a sequential sum grows about like sqrt(terms) ulps of the partial sums,
    so atol scales with sqrt(terms); 1000 ulps leaves room for a different summation order.
    """
    if dtype.is_int:
        return 0.0, 0.0  # integer kernels are exact (inputs are drawn so nothing wraps)
    dt = dtype.numpy_dtype
    if dt.kind == "f":  # numpy's own floats: no need to import ml_dtypes
        eps = float(np.finfo(dt).eps)
    else:
        import ml_dtypes

        eps = float(ml_dtypes.finfo(dt).eps)
    return 1000 * eps, 1000 * eps * math.sqrt(max(1, terms))


@dataclass(frozen=True)
class Workload:
    """One kernel: how to build it, what it computes, and how exactly it must match.

    `build(**params)` returns an unverified module with one function `func_name`;
    `reference(**arrays, **params)` takes float64 copies of every argument and returns the
    arrays of `outputs` after the math; `outputs` are the arguments the kernel writes (a
    function of the parameters when that depends on them); `tolerance(params)` gives
    (rtol, atol), and `tolerance_reason` says in one line why. `check(params)` returns an error
    message when sizes are inconsistent with each other (e.g. a filter larger than the image).
    """

    name: str
    func_name: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[..., ModuleOp]
    reference: Callable[..., Mapping[str, np.ndarray]]
    outputs: tuple[str, ...] | Callable[[Mapping[str, ParamValue]], tuple[str, ...]]
    tolerance: Callable[[Mapping[str, ParamValue]], Tolerance]
    tolerance_reason: str
    check: Callable[[Mapping[str, ParamValue]], str | None] = field(default=lambda p: None)
    # arrays that need a data pattern (a positive-definite matrix, integer weights): called
    # with the parameters and the generator after the uniform draw, returns float64 arrays
    # for some arguments, which replace the uniform ones
    inputs: Callable[[Mapping[str, ParamValue], np.random.Generator], Mapping[str, np.ndarray]] | None = None
    # "library": the kernels the catalog-wide tests and benches sweep (`workloads.names()`);
    # "polybench": PolyBench kernels only that suite's tests cover (`workloads.names("polybench")`)
    suite: str = "library"

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"workload {self.name}: duplicate parameter names in {names}")
        if [p.name for p in self.params if p.kind == "dtype"] != ["dtype"]:
            raise ValueError(f"workload {self.name}: needs exactly one dtype parameter named 'dtype'")
        for p in self.params:
            if p.kind == "int":
                p.check_range(p.default, self.name)  # type: ignore[arg-type]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise WorkloadError(f"{self.name} has no parameter '{name}'; parameters: {self.param_names()}")

    def param_names(self) -> str:
        return ", ".join(p.name for p in self.params)

    def describe(self) -> str:
        """A few lines for humans: signature, parameters with defaults and ranges, tolerance."""
        bound = self.bind()
        args = ", ".join(f"{n}: {t}" for n, t in bound.arg_types().items())
        lines = [f"{self.name}  (@{self.func_name}) — {self.summary}",
                 f"  default: @{self.func_name}({args})",
                 f"  writes: {', '.join(bound.outputs)}"]
        for p in self.params:
            default = (p.default.name if isinstance(p.default, ElementType)
                   else "auto" if p.default is None else p.default)
            lines.append(f"  {p.name:<7} = {default!s:<8} {p.doc}; {p.range_text()}")
        lines.append(f"  tolerance: {self.tolerance_reason}")
        return "\n".join(lines)

    def bind(self, values: Mapping[str, str | ParamValue] | None = None) -> BoundWorkload:
        """Defaults for what is missing; strings are parsed, other values range-checked."""
        given = dict(values or {})
        params: dict[str, ParamValue] = {}
        for name in given:
            self.param(name)  # raises for an unknown name
        for p in self.params:
            if p.name not in given:
                params[p.name] = p.default
                continue
            if p.kind == "type" and given[p.name] is None:
                params[p.name] = None  # type: ignore[assignment]
                continue
            v = given[p.name]
            if isinstance(v, str):
                params[p.name] = p.parse(v, self.name)
            else:
                params[p.name] = _check_value(p, v, self.name)
        if params.get("acc", 0) is None:
            params["acc"] = accumulator(params["dtype"])  # type: ignore[arg-type]
        if params.get("wdtype", 0) is None:
            params["wdtype"] = params["dtype"]
        problem = self.check(params)
        if problem is not None:
            raise WorkloadError(f"{self.name}: {problem}")
        return BoundWorkload(self, params)


def _check_value(p: Param, v: object, workload: str) -> ParamValue:
    if p.kind in ("dtype", "type"):
        if isinstance(v, ElementType) and v.name in p.choices:
            return v
        raise WorkloadError(f"{workload}: {p.name} must be one of {', '.join(p.choices)}, got {v!r}")
    if p.kind == "float":
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
            return float(v)
        raise WorkloadError(f"{workload}: {p.name} must be a finite number, got {v!r}")
    if not isinstance(v, int | np.integer) or isinstance(v, bool):
        raise WorkloadError(f"{workload}: {p.name} must be an integer, got {v!r}")
    p.check_range(int(v), workload)
    return int(v)


@dataclass(frozen=True)
class BoundWorkload:
    """A workload at concrete sizes: the API the CLI, backend tests and the simulator use."""

    workload: Workload
    params: dict[str, ParamValue]

    @property
    def name(self) -> str:
        return self.workload.name

    @property
    def func_name(self) -> str:
        return self.workload.func_name

    @property
    def outputs(self) -> tuple[str, ...]:
        outs = self.workload.outputs
        return outs if isinstance(outs, tuple) else outs(self.params)

    @property
    def dtype(self) -> ElementType:
        dt = self.params["dtype"]
        assert isinstance(dt, ElementType)
        return dt

    @property
    def rtol(self) -> float:
        return self.workload.tolerance(self.params)[0]

    @property
    def atol(self) -> float:
        return self.workload.tolerance(self.params)[1]

    @property
    def spec(self) -> str:
        """The canonical spec string, every parameter written out: `gemm:M=4,N=4,K=4,dtype=f32`
        (an `acc` / `wdtype` equal to what dtype gives left out: `dtype=i8` means acc=i32)."""
        derived = {"acc": accumulator(self.dtype), "wdtype": self.dtype}  # left out when so
        parts = [f"{k}={v.name if isinstance(v, ElementType) else v}" for k, v in self.params.items()
                 if v is not None
                 and not (k in derived and self.workload.param(k).kind == "type" and v == derived[k])]
        return f"{self.name}:{','.join(parts)}"

    def module(self, verify: bool = True) -> ModuleOp:
        """A fresh module (passes mutate modules, so every call builds a new one)."""
        module = self.workload.build(**self.params)
        if verify:
            verify_module(module)
        return module

    def func(self, module: ModuleOp | None = None) -> FuncOp:
        m = module if module is not None else self.module(verify=False)
        f = m.lookup(self.func_name)
        assert f is not None, f"builder of {self.name} made no function '{self.func_name}'"
        return f

    def arg_types(self) -> dict[str, MemRefType]:
        """Argument name -> memref type, in signature order."""
        f = self.func()
        out: dict[str, MemRefType] = {}
        for name, t in zip(f.arg_names(), f.function_type.inputs, strict=True):
            assert isinstance(t, MemRefType)
            out[name] = t
        return out

    def random_inputs(self, seed: int = 0) -> dict[str, np.ndarray]:
        """Deterministic inputs: one generator seeded with `seed`, arguments drawn in signature
        order, each uniform in [-1, 1) in float64 and then cast to the element type; integer
        arrays uniform integers in [-8, 8) for i4 and [-128, 128) for wider ones (products of
        two summed in i32 never wrap for reductions of up to 2^17 terms)."""
        rng = np.random.default_rng(seed)
        out: dict[str, np.ndarray] = {}
        for name, t in self.arg_types().items():
            shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
            if t.element.is_int:
                half = 1 << (min(t.element.bitwidth, 8) - 1)
                out[name] = rng.integers(-half, half, size=shape).astype(t.element.numpy_dtype)
            else:
                out[name] = rng.uniform(-1.0, 1.0, size=shape).astype(t.element.numpy_dtype)
        if self.workload.inputs is not None:
            types = self.arg_types()
            for name, value in self.workload.inputs(self.params, rng).items():
                out[name] = np.asarray(value, dtype=np.float64).astype(types[name].element.numpy_dtype)
        return out

    def reference(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Every memref argument after the kernel ran on `inputs` (which are not modified).

        The math is done in float64 and the outputs rounded to the element type once, so the
        reference is closer to the exact result than any f32 kernel can be.
        """
        types = self.arg_types()
        missing = [n for n in types if n not in inputs]
        if missing:
            raise WorkloadError(f"{self.name}: inputs lack {', '.join(missing)}; expected {', '.join(types)}")
        arrays: dict[str, np.ndarray] = {}
        for name, t in types.items():
            a = np.asarray(inputs[name])
            if a.shape != t.shape:
                raise WorkloadError(f"{self.name}: input '{name}' has shape {a.shape}, expected {t.shape}")
            arrays[name] = a.astype(np.float64, copy=True)
        scalars = {k: _round_scalar(v, self.dtype) for k, v in self.params.items()}
        clash = set(arrays) & set(scalars)
        assert not clash, f"{self.name}: argument and parameter names clash: {clash}"
        results = self.workload.reference(**arrays, **scalars)
        assert set(results) == set(self.outputs), f"{self.name}: reference gave {sorted(results)}"
        out = {name: np.array(inputs[name], dtype=t.element.numpy_dtype, copy=True)
               for name, t in types.items()}
        for name, value in results.items():
            out[name] = np.asarray(value).astype(types[name].element.numpy_dtype)
        return out


def in_dtype(value: float, dtype: ElementType) -> float:
    """`value` as the element type stores it (0.2 in f32 is 0.20000000298...)."""
    return float(dtype.numpy_dtype.type(value))


def _round_scalar(v: ParamValue, dtype: ElementType) -> ParamValue:
    """Float parameters become arith.constant in the element type; round them the same way."""
    return in_dtype(v, dtype) if isinstance(v, float) else v
