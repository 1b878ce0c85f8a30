"""Generated kernels: one loop nest from a *row* — loop extents, an affine index map per
operand, a scalar body and (for reductions) a combining op — the Builder's equivalent of a
`linalg.generic`. The ONNX importer lowers every op it has no tuned kernel for to rows
(`accelsim.network.onnx_rows`).

A row is plain data (`Row`), registered under a content key: `register(row)` returns the spec
`generic:key=<int>`, and `workloads.get(spec)` rebuilds the module in any process (the row is
kept in memory and written to `$ACCELSIM_CACHE_DIR/generic/<key>.json`, default
`~/.cache/accelsim`, so the worker processes of a timing run find it). Identical rows (same
shapes, maps, body) are one key: one compiled kernel.

An index expression is a list of terms `[coef, [c_0..c_{L-1}], const, div, mod]`, each meaning
`coef · (((Σ c_l·d_l + const) floordiv div) mod mod)` (`mod` 0: none), summed.
The body is a list of instructions over slots (slots 0..k-1 are the k inputs' values at their
maps); each instruction appends one slot: `["const", x]`, `[op, a]` for op in `UNARY`, `[op, a, b]`
for op in `BINARY`, `["cmp", pred, a, b]` (an i1), `["select", c, a, b]`, `["trunc", a]` (toward
zero, through an integer). The last slot is the value. Without `combine` it is stored at the
output map; with `combine` (add, mul, max, min) the output is first filled with `init` over its
shape and the value is combined into it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import ParamValue, Tolerance, Workload, WorkloadError, dtype_param, size

UNARY = ("neg", "exp", "log", "sqrt", "abs")
BINARY = ("add", "sub", "mul", "div", "max", "min")
COMBINE = ("add", "mul", "max", "min")
PREDICATES = ("olt", "ole", "ogt", "oge", "oeq", "une")

Term = tuple[int, tuple[int, ...], int, int, int]
Expr = tuple[Term, ...]


@dataclass(frozen=True)
class Row:
    """One kernel: `loops` extents; per input its shape and map (one Expr per dim); the
    output's shape and map; the body; `combine`/`init` for a reduction."""

    loops: tuple[int, ...]
    inputs: tuple[tuple[tuple[int, ...], tuple[Expr, ...]], ...]
    output: tuple[tuple[int, ...], tuple[Expr, ...]]
    body: tuple[tuple[Any, ...], ...]
    combine: str | None = None
    init: float = 0.0

    def to_json(self) -> str:
        return json.dumps({"loops": self.loops, "inputs": self.inputs, "output": self.output,
                           "body": self.body, "combine": self.combine, "init": self.init},
                          sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Row:
        d = json.loads(text)

        def expr(e: Any) -> Expr:
            return tuple((int(t[0]), tuple(int(c) for c in t[1]), int(t[2]), int(t[3]), int(t[4]))
                         for t in e)

        def operand(o: Any) -> tuple[tuple[int, ...], tuple[Expr, ...]]:
            return tuple(int(s) for s in o[0]), tuple(expr(e) for e in o[1])

        return Row(tuple(int(x) for x in d["loops"]), tuple(operand(o) for o in d["inputs"]),
                   operand(d["output"]), tuple(tuple(i) for i in d["body"]), d["combine"],
                   float(d["init"]))

    @property
    def key(self) -> int:
        return int(hashlib.sha256(self.to_json().encode()).hexdigest()[:15], 16)

    @property
    def iterations(self) -> int:
        return math.prod(self.loops)


_ROWS: dict[int, Row] = {}


def _cache_dir() -> str:
    base = os.environ.get("ACCELSIM_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "accelsim")
    return os.path.join(base, "generic")


def register(row: Row) -> str:
    """The spec of `row` (registered in this process and on disk for the workers)."""
    _check(row)
    key = row.key
    if key not in _ROWS:
        _ROWS[key] = row
        d = _cache_dir()
        path = os.path.join(d, f"{key}.json")
        if not os.path.exists(path):
            os.makedirs(d, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(row.to_json())
            os.replace(tmp, path)
    return f"generic:key={key}"


# key 0: a built-in row (relu over 64 elements), the family's default
_DEFAULT = Row((64,), (((64,), (((1, (1,), 0, 1, 0),),)),), ((64,), (((1, (1,), 0, 1, 0),),)),
               (("const", 0.0), ("max", 0, 1)))


def row_of(key: int) -> Row:
    if key == 0:
        return _DEFAULT
    row = _ROWS.get(key)
    if row is None:
        path = os.path.join(_cache_dir(), f"{key}.json")
        try:
            with open(path) as f:
                row = Row.from_json(f.read())
        except OSError:
            raise WorkloadError(f"generic:key={key}: no such generated kernel (rows are made by "
                                "the ONNX importer; none is stored at {path})") from None
        _ROWS[key] = row
    return row


def _check(row: Row) -> None:
    n_loops = len(row.loops)
    for shape, maps in (*row.inputs, row.output):
        if len(shape) != len(maps):
            raise WorkloadError(f"generic row: map of {len(maps)} results for a rank-{len(shape)} operand")
        for e in maps:
            for t in e:
                if len(t[1]) != n_loops or t[3] < 1 or t[4] < 0:
                    raise WorkloadError(f"generic row: malformed index term {t}")
    if row.combine is not None and row.combine not in COMBINE:
        raise WorkloadError(f"generic row: combine {row.combine!r} not in {COMBINE}")
    if not row.body and len(row.inputs) != 1:
        raise WorkloadError("generic row: an empty body copies exactly one input")


# ---- the module ------------------------------------------------------------------------------

def _index(e: Expr, ivs: Sequence[Any]) -> Any:
    total: Any = 0
    for coef, lin, const, div, mod in e:
        v: Any = const
        for c, iv in zip(lin, ivs, strict=True):
            if c:
                v = iv * c + v if not isinstance(v, int) or v else iv * c
        if div != 1:
            v = v // div
        if mod:
            v = v % mod
        total = v * coef + total if coef != 1 else v + total
    return total


def _scalar(b: Builder, row: Row, values: list[Any], dtype: ElementType) -> Any:
    from compiler.ir.ops import FPToSIOp, SIToFPOp
    from compiler.ir.types import I32

    slots = list(values)
    for ins in row.body:
        op = ins[0]
        if op == "const":
            slots.append(b.constant(float(ins[1]), dtype))
        elif op in UNARY:
            a = slots[ins[1]]
            slots.append({"neg": b.neg, "exp": b.exp, "log": b.log, "sqrt": b.sqrt,
                          "abs": lambda x: b.insert(_absf(x)).result}[op](a))
        elif op in BINARY:
            slots.append(getattr(b, op)(slots[ins[1]], slots[ins[2]]))
        elif op == "cmp":
            slots.append(b.cmp(ins[1], slots[ins[2]], slots[ins[3]]))
        elif op == "select":
            slots.append(b.select(slots[ins[1]], slots[ins[2]], slots[ins[3]]))
        elif op == "trunc":
            i = b.insert(FPToSIOp(slots[ins[1]], I32)).result
            slots.append(b.insert(SIToFPOp(i, dtype)).result)
        else:
            raise WorkloadError(f"generic row: unknown body op {op!r}")
    return slots[-1]


def _absf(x: Any) -> Any:
    from compiler.ir.ops import AbsFOp

    return AbsFOp(x)


def build_generic(key: int, dtype: ElementType = F32) -> ModuleOp:
    row = row_of(key)
    b = Builder()
    args = {f"in{i}": memref(shape, dtype) for i, (shape, _) in enumerate(row.inputs)}
    args["out"] = memref(row.output[0], dtype)
    with b.func("generic", **args) as params:
        ins, out = params[:-1], params[-1]
        if row.combine is not None:
            _nest(b, row.output[0], lambda ivs: b.store(b.constant(row.init, dtype), out, list(ivs)))

        def body(ivs: Sequence[Any]) -> None:
            values = [b.load(m, [_index(e, ivs) for e in maps]) for m, (_, maps) in zip(ins, row.inputs)]
            v = _scalar(b, row, values, dtype) if row.body else values[0]
            at = [_index(e, ivs) for e in row.output[1]]
            if row.combine is not None:
                v = getattr(b, row.combine)(b.load(out, at), v)
            b.store(v, out, at)

        _nest(b, row.loops, body)
    return b.module


def _nest(b: Builder, extents: Sequence[int], body: Any, ivs: tuple[Any, ...] = ()) -> None:
    if len(ivs) == len(extents):
        body(ivs)
        return
    for iv in b.range(extents[len(ivs)]):
        _nest(b, extents, body, (*ivs, iv))


# ---- the numpy reference -------------------------------------------------------------------------

def _np_index(e: Expr, grid: Sequence[np.ndarray]) -> np.ndarray:
    total = np.zeros(grid[0].shape if grid else (), dtype=np.int64)
    for coef, lin, const, div, mod in e:
        v = np.full(total.shape, const, dtype=np.int64)
        for c, g in zip(lin, grid, strict=True):
            if c:
                v = v + c * g
        v = np.floor_divide(v, div)
        if mod:
            v = np.mod(v, mod)
        total = total + coef * v
    return total


_NP_UNARY = {"neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs}
_NP_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
              "max": np.maximum, "min": np.minimum}
_NP_CMP = {"olt": np.less, "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal,
           "oeq": np.equal, "une": np.not_equal}


def evaluate(row: Row, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """The row's output, by numpy (float64), from its inputs: the kernel's meaning."""
    grid = np.indices(row.loops, dtype=np.int64) if row.loops else np.zeros((0,), dtype=np.int64)
    grid_l = [grid[i] for i in range(len(row.loops))]
    slots: list[Any] = [np.asarray(a, dtype=np.float64)[tuple(_np_index(e, grid_l) for e in maps)]
                        for a, (_, maps) in zip(inputs, row.inputs, strict=True)]
    with np.errstate(all="ignore"):
        for ins in row.body:
            op = ins[0]
            if op == "const":
                slots.append(np.float64(ins[1]))
            elif op in _NP_UNARY:
                slots.append(_NP_UNARY[op](slots[ins[1]]))
            elif op in _NP_BINARY:
                slots.append(_NP_BINARY[op](slots[ins[1]], slots[ins[2]]))
            elif op == "cmp":
                slots.append(_NP_CMP[ins[1]](slots[ins[2]], slots[ins[3]]))
            elif op == "select":
                slots.append(np.where(slots[ins[1]], slots[ins[2]], slots[ins[3]]))
            elif op == "trunc":
                slots.append(np.trunc(slots[ins[1]]))
    value = np.broadcast_to(slots[-1], row.loops)
    at = tuple(_np_index(e, grid_l) for e in row.output[1])
    if row.combine is None:
        out = np.zeros(row.output[0])
        out[at] = value
        return out
    out = np.full(row.output[0], row.init, dtype=np.float64)
    {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}[row.combine].at(out, at, value)
    return out


def generic_reference(key: int, **arrays: np.ndarray) -> dict[str, np.ndarray]:
    row = row_of(int(key))
    ins = [arrays[f"in{i}"] for i in range(len(row.inputs))]
    out = evaluate(row, ins)
    if row.combine is None:  # elements the row does not write keep their value
        written = np.zeros(row.output[0], dtype=bool)
        grid = np.indices(row.loops, dtype=np.int64)
        written[tuple(_np_index(e, list(grid)) for e in row.output[1])] = True
        out = np.where(written, out, arrays["out"])
    return {"out": out}


def _tolerance(p: Mapping[str, ParamValue]) -> Tolerance:
    row = row_of(int(p["key"]))  # type: ignore[arg-type]
    terms = row.iterations // max(1, math.prod(row.output[0])) if row.combine else 1
    eps = float(np.finfo(p["dtype"].numpy_dtype).eps)  # type: ignore[union-attr]
    return 1000 * eps, 1000 * eps * math.sqrt(max(1, terms))


def _check_key(p: Mapping[str, ParamValue]) -> str | None:
    try:
        row_of(int(p["key"]))  # type: ignore[arg-type]
    except WorkloadError as exc:
        return str(exc)
    return None


WORKLOADS = (
    Workload(
        name="generic", func_name="generic",
        summary="a generated loop nest (the ONNX importer's general lowering; key = its row)",
        params=(size("key", 0, "content key of the row (made by the ONNX importer)", lo=0, hi=1 << 62),
                dtype_param()),
        build=build_generic, reference=generic_reference, outputs=("out",),
        tolerance=_tolerance, check=_check_key,
        tolerance_reason="elementwise: a few ulps; reductions: ~sqrt(terms) ulps",
    ),
)
