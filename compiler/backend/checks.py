"""Run-time checks in generated code, and the error a failed one becomes in Python.

When a module has checks (`needs_status`), every lowered function takes one extra, last
parameter: a pointer to a status record of `STATUS_WORDS` i64 (kind, site, dimension, value,
low, high), zero on entry. A failing check fills the record and returns from the function at
once; every call site tests the record after the callee returns and returns too, so the
failure unwinds to Python, which raises the `HostRunError` the record describes (`failure`).
Nothing aborts the process. Memory the program allocated and had not freed when a check
fired is leaked (an error path only). A module without checks keeps the plain calling
convention and costs nothing (typically the simulator's kernels).

What is checked:
- integer division and remainder (arith.divsi/remsi, affine floordiv/ceildiv/mod) by a
  divisor that is not a nonzero constant: zero, or MIN / -1 (both trap on x86): always;
- affine.load/store indices, the start indices of a DMA's sides and tag, and the elements a
  DMA moves: in bounds-checked mode (`LoweringOptions.bounds_check`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llvmlite import ir

from compiler.backend.errors import HostRunError, IntegerDivisionError, OutOfBoundsError
from compiler.diagnostics import Location
from compiler.ir.affine_expr import AffineExpr, Binary, Const
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import OpResult, Value
from compiler.ir.ops import ConstantOp, DivSIOp, DivUIOp, ModuleOp, RemSIOp, RemUIOp
from compiler.ir.types import ElementType

STATUS_WORDS = 6
I1 = ir.IntType(1)
I64 = ir.IntType(64)
I128 = ir.IntType(128)
_UNLIKELY = [1, 1 << 20]  # branch weights: (taken, not taken)


class CheckKind(enum.IntEnum):
    INDEX = 1          # dimension, value, high = extent
    DMA_SPAN = 2       # value = first element touched, low = end (exclusive), high = numel
    DIV_ZERO = 3       # value = dividend
    DIV_OVERFLOW = 4   # value = dividend, dimension = bit width
    INDEX_AHEAD = 5    # as INDEX, found by a check hoisted before the access's loop band


@dataclass(frozen=True, slots=True)
class CheckSite:
    """What a check guards: the op (name, location), what it touches and its type."""

    op_name: str
    loc: Location
    subject: str                      # "%A", "the source %buf", "d0 floordiv s0", ...
    type_text: str                    # the memref or integer type, as printed
    shape: tuple[int | None, ...] = ()  # the memref's extents (None: dynamic)


def _i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def _as_i64(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    width = v.type.width
    if width == 64:
        return v
    return b.sext(v, I64) if width < 64 else b.trunc(v, I64)


class FunctionChecks:
    """Emits the checks of one LLVM function at `b`'s position; sites go to `sites`."""

    def __init__(self, b: ir.IRBuilder, llfunc: ir.Function, status: ir.Argument | None,
                 sites: list[CheckSite]):
        self.b = b
        self.llfunc = llfunc
        self.status = status
        self.sites = sites
        self._exit: ir.Block | None = None

    def site(self, site: CheckSite) -> int:
        if self.status is None:  # needs_status() said no check would be emitted
            raise AssertionError(f"internal: a run-time check at {site.loc} in a module lowered "
                                 "without a status record")
        self.sites.append(site)
        return len(self.sites) - 1

    # ---- the failure path --------------------------------------------------------------
    def _exit_block(self) -> ir.Block:
        """Returns at once (the record is already filled); results are undefined."""
        if self._exit is None:
            self._exit = self.llfunc.append_basic_block("check.exit")
            eb = ir.IRBuilder(self._exit)
            ret = self.llfunc.function_type.return_type
            if isinstance(ret, ir.VoidType):
                eb.ret_void()
            else:
                eb.ret(ir.Constant(ret, ir.Undefined))
        return self._exit

    def fail_if(self, bad: ir.Value, record: Callable[[], Sequence[ir.Value]] | None) -> None:
        """When `bad`: store `record()` (computed on the cold path only) and return."""
        b = self.b
        cold = self.llfunc.append_basic_block("check.fail")
        ok = self.llfunc.append_basic_block("check.ok")
        b.cbranch(bad, cold, ok).set_weights(_UNLIKELY)
        b.position_at_end(cold)
        if record is not None:
            assert self.status is not None
            for k, word in enumerate(record()):
                slot = b.gep(self.status, [_i64(k)], inbounds=True, source_etype=I64)
                b.store(_as_i64(b, word), slot)
        b.branch(self._exit_block())
        b.position_at_end(ok)

    def after_call(self) -> None:
        """A callee that failed has filled the record: return too."""
        if self.status is None:
            return
        failed = self.b.icmp_signed("!=", self.b.load(self.status, typ=I64), _i64(0))
        self.fail_if(failed, None)

    # ---- bounds -----------------------------------------------------------------------
    def index(self, site: int, indices: Sequence[ir.Value], sizes: Sequence[ir.Value],
              dims: Sequence[int]) -> None:
        """Each index of `dims` in [0, its extent) (one unsigned compare each)."""
        if not dims:
            return
        b = self.b
        bad: ir.Value | None = None
        for k in dims:
            c = b.icmp_unsigned(">=", indices[k], sizes[k])
            bad = c if bad is None else b.or_(bad, c)
        assert bad is not None

        def record() -> list[ir.Value]:
            dim: ir.Value = _i64(dims[-1])
            val, ext = indices[dims[-1]], sizes[dims[-1]]
            for k in reversed(dims[:-1]):  # the first dimension out of bounds wins
                c = b.icmp_unsigned(">=", indices[k], sizes[k])
                dim = b.select(c, _i64(k), dim)
                val = b.select(c, indices[k], val)
                ext = b.select(c, sizes[k], ext)
            return [_i64(CheckKind.INDEX), _i64(site), dim, val, _i64(0), ext]
        self.fail_if(bad, record)

    def index_range(self, site: int, dim: int, lowest: ir.Value, highest: ir.Value,
                    size: ir.Value) -> None:
        """Every index from `lowest` to `highest` in [0, size) (a hoisted check: the two are
        the extremes an access reaches; the one outside is reported)."""
        b = self.b
        below = b.icmp_signed("<", lowest, _i64(0))
        bad = b.or_(below, b.icmp_signed(">=", highest, size))
        self.fail_if(bad, lambda: [_i64(CheckKind.INDEX_AHEAD), _i64(site), _i64(dim),
                                   b.select(below, lowest, highest), _i64(0), size])

    def contiguous_span(self, site: int, start: ir.Value, count: ir.Value, numel: ir.Value) -> None:
        """Elements [start, start + count) within [0, numel), when count > 0 (start is known
        to be in [0, numel) from the index check)."""
        b = self.b
        bad = b.and_(b.icmp_signed(">", count, _i64(0)),
                     b.icmp_signed(">", count, b.sub(numel, start)))
        self.fail_if(bad, lambda: [_i64(CheckKind.DMA_SPAN), _i64(site), _i64(0), start,
                                   b.add(start, count), numel])

    def strided_span(self, site: int, start: ir.Value, count: ir.Value, stride: ir.Value,
                     per: ir.Value, numel: ir.Value) -> None:
        """The strided side of a DMA: chunk c covers [c*stride, c*stride + len_c) from `start`,
        len_c = per except the last (count - (chunks-1)*per). The hull of the chunks (its ends
        are touched elements) must lie in [0, numel). Computed in i128: no overflow."""
        b = self.b

        def w(v: ir.Value) -> ir.Value:
            return b.sext(v, I128)
        n, p, s, lin, total = w(count), w(per), w(stride), w(start), w(numel)
        one, zero = ir.Constant(I128, 1), ir.Constant(I128, 0)
        valid = b.and_(b.icmp_signed(">", n, zero), b.icmp_signed(">", p, zero))
        p_safe = b.select(valid, p, one)
        chunks = b.sdiv(b.sub(b.add(n, p_safe), one), p_safe)
        last_at = b.mul(b.sub(chunks, one), s)                 # start of the last chunk
        last_len = b.sub(n, b.mul(b.sub(chunks, one), p_safe))
        first_len = b.select(b.icmp_signed("<", n, p_safe), n, p_safe)
        lo = b.select(b.icmp_signed("<", last_at, zero), last_at, zero)
        hi = _max(b, first_len, b.add(last_at, last_len))
        prev_end = b.add(b.sub(last_at, s), p_safe)            # end of chunk chunks-2
        hi = b.select(b.icmp_signed(">=", chunks, ir.Constant(I128, 2)), _max(b, hi, prev_end), hi)
        first, end = b.add(lin, lo), b.add(lin, hi)
        outside = b.or_(b.icmp_signed("<", first, zero), b.icmp_signed(">", end, total))
        self.fail_if(b.and_(valid, outside),
                     lambda: [_i64(CheckKind.DMA_SPAN), _i64(site), _i64(0), first, end, numel])

    # ---- division ---------------------------------------------------------------------
    def divisor(self, site: Callable[[], int], dividend: ir.Value, divisor: ir.Value,
                signed: bool = True) -> ir.Value:
        """`divisor`, after a check that it is not zero and (`signed`) that dividend / divisor
        does not overflow. A nonzero constant other than -1 needs no check (and makes no site)."""
        t = divisor.type
        mask = (1 << t.width) - 1
        if isinstance(divisor, ir.Constant) and (divisor.constant & mask) not in (0, mask):
            return divisor
        b = self.b
        zero = b.icmp_signed("==", divisor, ir.Constant(t, 0))
        bad = zero
        if t.width > 1 and signed:
            minimum = ir.Constant(t, -(1 << (t.width - 1)))
            overflow = b.and_(b.icmp_signed("==", divisor, ir.Constant(t, -1)),
                              b.icmp_signed("==", dividend, minimum))
            bad = b.or_(zero, overflow)
        at = site()
        self.fail_if(bad, lambda: [
            b.select(zero, _i64(CheckKind.DIV_ZERO), _i64(CheckKind.DIV_OVERFLOW)), _i64(at),
            _i64(t.width), dividend, _i64(0), _i64(0)])
        return divisor


def needs_status(module: ModuleOp, bounds_check: bool) -> bool:
    """Could lowering `module` emit a run-time check? Bounds-checked mode, or an integer
    division whose divisor is not a constant other than 0 and -1 (arith.divsi/remsi, or an
    affine floordiv/ceildiv/mod). Conservative: a "yes" with no check emitted only costs a
    pointer per call; a "no" is what FunctionChecks.divisor agrees to (it never makes a site
    for such a divisor)."""
    if bounds_check:
        return True
    for op in module.walk():
        if isinstance(op, DivSIOp | RemSIOp | DivUIOp | RemUIOp):
            if not _safe_constant(op.operands[1]):
                return True
            continue
        for attr in op.ATTRS:
            value = getattr(op, attr)
            exprs = (value.results if isinstance(value, AffineMap) else
                     value.constraints if isinstance(value, IntegerSet) else ())
            if any(_divides_unsafely(e) for e in exprs):
                return True
    return False


def _safe_constant(v: Value) -> bool:
    t = v.type
    if not (isinstance(v, OpResult) and isinstance(v.owner, ConstantOp) and isinstance(t, ElementType)):
        return False
    width = 64 if t.is_index else t.bitwidth
    mask = (1 << width) - 1
    return width > 1 and (int(v.owner.value) & mask) not in (0, mask)


def _divides_unsafely(e: AffineExpr) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Binary):
            if x.kind in ("floordiv", "ceildiv", "mod") and not (
                    isinstance(x.rhs, Const) and x.rhs.value not in (0, -1)):
                return True
            stack += [x.lhs, x.rhs]
    return False


def _max(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed(">", x, y), x, y)


# ---- Python side: a filled record becomes an error ------------------------------------

def failure(record: Sequence[int], sites: Sequence[CheckSite]) -> HostRunError:
    kind, at, dim, value, low, high = (int(x) for x in record[:STATUS_WORDS])
    site = sites[at]
    what = f"{site.op_name} {site.subject} ({site.type_text})"
    if kind in (CheckKind.INDEX, CheckKind.INDEX_AHEAD):
        allowed = f"not in [0, {high - 1}]" if high > 0 else "in an empty dimension"
        ahead = (" (checked before its loop nest ran, which would reach this index)"
                 if kind == CheckKind.INDEX_AHEAD else "")
        return OutOfBoundsError(f"{what} out of bounds: index {value} of dimension {dim} "
                                f"{allowed}{ahead}", site.loc)
    if kind == CheckKind.DMA_SPAN:
        first, end, numel = value, low, high
        return OutOfBoundsError(f"{what} out of bounds: the transfer touches elements "
                                f"[{first}, {end}) in row-major order, outside the {numel} "
                                f"element(s) of the memref{_element_note(site, first, end, numel)}",
                                site.loc)
    if kind == CheckKind.DIV_ZERO:
        return IntegerDivisionError(f"{site.op_name}: integer division by zero in "
                                    f"{site.subject} (dividend {value})", site.loc)
    if kind == CheckKind.DIV_OVERFLOW:
        return IntegerDivisionError(f"{site.op_name}: integer division overflow in {site.subject}: "
                                    f"{value} / -1 does not fit in i{dim}", site.loc)
    return HostRunError(f"{site.op_name}: run-time check {kind} failed", site.loc)


def _element_note(site: CheckSite, first: int, end: int, numel: int) -> str:
    """Which element, as an index per dimension, the transfer reaches first outside."""
    shape = site.shape
    if not shape or any(d is None for d in shape):
        return ""
    bad = first if first < 0 else max(numel, first)
    inner = 1
    for d in shape[1:]:
        inner *= d  # type: ignore[operator]
    pos = [bad // inner]
    rest = bad % inner
    for k in range(1, len(shape)):
        inner //= shape[k]  # type: ignore[operator]
        pos.append(rest // inner if inner else 0)
        rest = rest % inner if inner else 0
    d = next((k for k, (i, n) in enumerate(zip(pos, shape)) if not 0 <= i < n), 0)  # type: ignore[operator]
    return f": it reaches element {pos}, index {pos[d]} of dimension {d} not in [0, {shape[d] - 1}]"  # type: ignore[operator]
