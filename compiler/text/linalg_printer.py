"""The linalg ops' custom syntax, as mlir-opt-19 prints it (compiler.text.printer dispatches
here by op class; `p` is its printer: `namer`, `map_ref`, `refs`, `lines`, `block`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from compiler.ir.core import Operation, Value
from compiler.ir.ops.linalg import GenericOp, LinalgIndexOp, LinalgOp, LinalgYieldOp, NamedLinalgOp


def _group(p: Any, keyword: str, values: Sequence[Value]) -> str:
    if not values:
        return ""
    return f" {keyword}({p.refs(values)} : {', '.join(str(v.type) for v in values)})"


def _operands(p: Any, op: LinalgOp) -> str:
    return _group(p, "ins", op.inputs) + _group(p, "outs", op.outputs)


def _dense(values: tuple[int, ...]) -> str:
    body = str(values[0]) if len(set(values)) == 1 else f"[{', '.join(map(str, values))}]"
    return f"dense<{body}> : tensor<{len(values)}xi64>"


def print_named(p: Any, op: NamedLinalgOp, depth: int) -> str:
    attrs = [f"{k} = {_dense(v)}" for k, v in (("dilations", op.dilations), ("strides", op.strides))
             if v is not None]
    dict_text = f" {{{', '.join(attrs)}}}" if attrs else ""
    return f"{op.NAME}{dict_text}{_operands(p, op)}"


def print_generic(p: Any, op: GenericOp, depth: int) -> None:
    pad = "  " * depth
    maps = ", ".join(p.map_ref(m) for m in op.maps)
    iters = ", ".join(f'"{t}"' for t in op.iterators)
    p.lines.append(f"{pad}linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iters}]}}"
                   f"{_operands(p, op)} {{")
    args = ", ".join(f"%{p.namer.define(a, True)}: {a.type}" for a in op.body.args)
    p.lines.append(f"{pad}^bb0({args}):")
    p.block(op.body, depth + 1)
    p.lines.append(f"{pad}}}" + p.loc_suffix(op))


def print_yield(p: Any, op: LinalgYieldOp, depth: int) -> str:
    if not op.operands:
        return "linalg.yield"
    return f"linalg.yield {p.refs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def print_index(p: Any, op: LinalgIndexOp, depth: int) -> str:
    return f"{p.results_prefix(op)}linalg.index {op.dim} : index"


DISPATCH: dict[type, Callable[[Any, Operation, int], str | None]] = {
    NamedLinalgOp: print_named,
    GenericOp: print_generic,
    LinalgYieldOp: print_yield,
    LinalgIndexOp: print_index,
}  # type: ignore[dict-item]
