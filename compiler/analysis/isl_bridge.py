"""Translate affine expressions, maps and integer sets over IR Values into islpy objects.

A `Frame` fixes an isl set space: its set dims are some loop induction variables (outer to
inner), and every other index Value met on the way becomes an isl parameter named after the
Value (symbols, and outer IVs the caller chose to keep as parameters). `floordiv`, `ceildiv`
and `mod` by a positive constant become isl `floor`/`mod` quasi-affine terms, which isl keeps
as existentially quantified local (div) variables, exactly as MLIR's flattener does.
"""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from compiler.diagnostics import UNKNOWN_LOC, DiagnosticError, Location
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.builder import IndexExpr
from compiler.ir.core import BlockArgument, OpResult, Value
from compiler.ir.ops import AffineApplyOp, AffineForOp, AffineMaxOp, AffineMinOp, ConstantOp
from compiler.ir.scope import is_valid_symbol

CTX = isl.DEFAULT_CONTEXT


class AnalysisError(DiagnosticError):
    """The IR is outside what the polyhedral analysis can model (e.g. a semi-affine index)."""


def isl_name(v: Value) -> str:
    """A stable isl identifier for a Value: readable hint plus identity, unique while alive."""
    hint = "".join(c if c.isalnum() else "_" for c in (v.name_hint or "v"))
    return f"{hint}_{id(v):x}"


def _val(n: int) -> isl.Val:
    if -(1 << 63) <= n < (1 << 63):
        return isl.Val.int_from_si(CTX, n)
    return isl.Val.read_from_str(CTX, str(int(n)))   # isl's integers are unbounded


def _loc_of(v: Value) -> Location:
    if isinstance(v, OpResult):
        return v.owner.loc
    if isinstance(v, BlockArgument) and v.block.parent_op is not None:
        return v.block.parent_op.loc
    return UNKNOWN_LOC


class Frame:
    """An isl set space over `dims` (Values, outer to inner) with Values-as-parameters.

    `params` records, by isl name, every Value turned into an isl parameter so far; callers
    use it to map isl parameters back to IR Values.
    """

    def __init__(self, dims: Sequence[Value], param_values: Sequence[Value] = ()):
        self.dims: tuple[Value, ...] = tuple(dims)
        self._dim_pos = {id(v): k for k, v in enumerate(self.dims)}
        self._forced_params = {id(v) for v in param_values}
        self.params: dict[str, Value] = {}
        for v in param_values:
            self.params[isl_name(v)] = v
        # [params] -> { [d0, ..., dn] }
        self.space = isl.Space.create_from_names(
            CTX, set=[isl_name(v) for v in self.dims], params=list(self.params))
        self.universe = isl.Set.universe(self.space)

    # ---- leaves --------------------------------------------------------------------
    def constant(self, n: int) -> isl.PwAff:
        return isl.PwAff.val_on_domain(self.universe, _val(n))

    def dim(self, k: int) -> isl.PwAff:
        return isl.PwAff.var_on_domain(isl.LocalSpace.from_space(self.space), isl.dim_type.set, k)

    def param(self, v: Value) -> isl.PwAff:
        name = isl_name(v)
        self.params[name] = v
        # [name] -> { [dims] -> [(name)] }; isl aligns parameters by name when combining.
        sp = isl.Space.create_from_names(CTX, set=[isl_name(d) for d in self.dims], params=[name])
        return isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sp), isl.dim_type.param, 0)

    def value(self, v: Value) -> isl.PwAff:
        """The quasi-affine function a Value denotes over this frame's dims and parameters."""
        k = self._dim_pos.get(id(v))
        if k is not None:
            return self.dim(k)
        if id(v) in self._forced_params:
            return self.param(v)
        if isinstance(v, OpResult):
            op = v.owner
            if isinstance(op, ConstantOp) and isinstance(op.value, int):
                return self.constant(int(op.value))
            if isinstance(op, AffineApplyOp):
                return self.map_results(op.map, op.operands)[0]
            if isinstance(op, AffineMinOp | AffineMaxOp):
                parts = self.map_results(op.map, op.operands)
                acc = parts[0]
                for p in parts[1:]:
                    acc = acc.min(p) if isinstance(op, AffineMinOp) else acc.max(p)
                return acc
        if is_valid_symbol(v):
            return self.param(v)
        if isinstance(v, BlockArgument) and isinstance(v.block.parent_op, AffineForOp):
            raise AnalysisError(f"induction variable %{v.name_hint or '?'} is used outside the "
                                "loops the analysis was asked about", _loc_of(v))
        raise AnalysisError(f"index value %{v.name_hint or '?'} is neither a loop IV, a symbol "
                            "nor an affine function of them", _loc_of(v))

    # ---- expressions -----------------------------------------------------------------
    def expr(self, e: AffineExpr, operands: Sequence[isl.PwAff], num_dims: int) -> isl.PwAff:
        """`e` with Dim(k) -> operands[k] and Sym(k) -> operands[num_dims + k]."""
        if isinstance(e, Const):
            return self.constant(e.value)
        if isinstance(e, Dim):
            return operands[e.pos]
        if isinstance(e, Sym):
            return operands[num_dims + e.pos]
        assert isinstance(e, Binary)
        if e.kind == "add":
            return self.expr(e.lhs, operands, num_dims).add(self.expr(e.rhs, operands, num_dims))
        if not isinstance(e.rhs, Const):
            raise AnalysisError(f"semi-affine expression {e} (the right operand of {e.kind} "
                                "must be a constant)")
        c = e.rhs.value
        lhs = self.expr(e.lhs, operands, num_dims)
        if e.kind == "mul":
            return lhs.scale_val(_val(c))
        if c <= 0:
            raise AnalysisError(f"{e.kind} by {c} in {e}: expected a positive constant divisor")
        if e.kind == "floordiv":
            return lhs.scale_down_val(_val(c)).floor()
        if e.kind == "ceildiv":
            return lhs.scale_down_val(_val(c)).ceil()
        return lhs.mod_val(_val(c))

    def map_results(self, m: AffineMap, operands: Sequence[Value]) -> list[isl.PwAff]:
        ins = [self.value(v) for v in operands]
        return [self.expr(r, ins, m.num_dims) for r in m.results]

    def integer_set(self, s: IntegerSet, operands: Sequence[Value]) -> isl.Set:
        ins = [self.value(v) for v in operands]
        out = self.universe
        zero = self.constant(0)
        for c, is_eq in zip(s.constraints, s.eq_flags, strict=True):
            pa = self.expr(c, ins, s.num_dims)
            out = out.intersect(pa.eq_set(zero) if is_eq else pa.ge_set(zero))
        return out

# ---- isl -> IR ------------------------------------------------------------------------

def aff_to_index_expr(aff: isl.Aff, param_values: dict[str, Value]) -> IndexExpr:
    """A parameter-only isl affine function (possibly with floor divs) as an IndexExpr.

    Set dims must not occur (the caller projected them out); divs become `floordiv`.
    """
    for k in range(aff.dim(isl.dim_type.in_)):
        if not aff.get_coefficient_val(isl.dim_type.in_, k).is_zero():
            raise AnalysisError(f"bound {aff} depends on a set dimension")
    denom = aff.get_denominator_val().to_python()
    scaled = aff.scale_val(_val(denom)) if denom != 1 else aff
    acc = IndexExpr.of(scaled.get_constant_val().to_python())
    for k in range(scaled.dim(isl.dim_type.param)):
        c = scaled.get_coefficient_val(isl.dim_type.param, k).to_python()
        if c:
            name = scaled.get_dim_name(isl.dim_type.param, k)
            acc = acc + IndexExpr.of(param_values[name]) * c
    for k in range(scaled.dim(isl.dim_type.div)):
        c = scaled.get_coefficient_val(isl.dim_type.div, k).to_python()
        if c:
            inner = scaled.get_div(k)  # floor(inner)
            acc = acc + _floor_of(inner, param_values) * c
    if denom != 1:
        acc = acc // denom
    return acc


def _floor_of(aff: isl.Aff, param_values: dict[str, Value]) -> IndexExpr:
    denom = aff.get_denominator_val().to_python()
    num = aff.scale_val(_val(denom))
    return aff_to_index_expr(num, param_values) // denom


def pw_single_aff(pw: isl.PwAff) -> isl.Aff | None:
    """The affine function of a single-piece PwAff, else None."""
    pieces = pw.get_pieces()
    if len(pieces) != 1:
        return None
    return pieces[0][1]


def val_to_int(v: isl.Val) -> int | None:
    """None for infinities/NaN."""
    if v.is_nan() or v.is_infty() or v.is_neginfty():
        return None
    return int(v.to_python())
