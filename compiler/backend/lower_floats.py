"""Narrow floats on the host: bf16, f8E4M3FN and f8E5M2 by integer emulation, f16 partly.

The JIT has no runtime for LLVM's `bfloat` or fp8 and no libcalls for `half` conversions
other than to and from `float` (`fptrunc double to half` fails at run time), so:

- a bf16/fp8 value lives in a `float` register holding exactly the narrow value, and in
  memory as its raw bits (i16/i8, the layout of ml_dtypes' arrays); loads decode the bits,
  stores encode them; every rounding op (`addf`, `mulf`, `exp`, ...) computes in float and
  rounds to the type, as ml_dtypes does (exact for +, -, *, /, sqrt: float has more than
  2p+2 significand bits);
- an f16 value is LLVM `half` (its arithmetic and its conversions to/from float work); any
  conversion to f16 from anything but float goes through float after rounding here;
- conversions round once, from double: `round_to(x, t)` rounds a double to the nearest value
  of `t` (ties to even) by scaling to the format's quantum, `llvm.rint` and scaling back;
  overflow gives inf, or NaN for a format without inf (f8E4M3FN), as MLIR's APFloat does.

Each helper is one internal LLVM function per format and module (`__accelsim_round_bf16`,
`__accelsim_decode_bf16`, `__accelsim_encode_bf16`), inlined by the optimizer.
"""

from __future__ import annotations

from llvmlite import ir

from compiler.ir.types import ElementType

F32 = ir.FloatType()
F64 = ir.DoubleType()
F16 = ir.HalfType()
I32 = ir.IntType(32)
I64 = ir.IntType(64)

EMULATED = frozenset({"bf16", "f8E4M3FN", "f8E5M2"})


def is_emulated(t: ElementType) -> bool:
    """A float type held in a float register and stored as raw bits."""
    return t.is_float and t.name in EMULATED


def _get(module: ir.Module, name: str, ret: ir.Type, params: list[ir.Type]) -> tuple[ir.Function, bool]:
    fn = module.globals.get(name)
    if fn is not None:
        return fn, False  # type: ignore[return-value]
    fn = ir.Function(module, ir.FunctionType(ret, params), name=name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    return fn, True


def _intrinsic(module: ir.Module, name: str, ret: ir.Type, params: list[ir.Type]) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, params), name=name)
    return fn  # type: ignore[return-value]


def _pow2(b: ir.IRBuilder, e: ir.Value) -> ir.Value:
    """2.0**e as a double, for an i64 `e` in the normal exponent range."""
    return b.bitcast(b.shl(b.add(e, ir.Constant(I64, 1023)), ir.Constant(I64, 52)), F64)


def round_fn(module: ir.Module, t: ElementType) -> ir.Function:
    """`float __accelsim_round_<t>(double x)`: x rounded to the nearest value of `t`."""
    fmt = t.facts.float_format
    assert fmt is not None
    fn, new = _get(module, f"__accelsim_round_{t.name}", F32, [F64])
    if not new:
        return fn
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    (x,) = fn.args
    bits = b.bitcast(x, I64)
    e = b.sub(b.and_(b.lshr(bits, ir.Constant(I64, 52)), ir.Constant(I64, 0x7FF)), ir.Constant(I64, 1023))
    emin = ir.Constant(I64, fmt.emin)
    e = b.select(b.icmp_signed("<", e, emin), emin, e)
    q = b.sub(e, ir.Constant(I64, fmt.precision - 1))  # the exponent of one unit in the last place
    rint = _intrinsic(module, "llvm.rint.f64", F64, [F64])
    r = b.fmul(b.call(rint, [b.fmul(x, _pow2(b, b.neg(q)))]), _pow2(b, q))
    fabs = _intrinsic(module, "llvm.fabs.f64", F64, [F64])
    over = b.fcmp_ordered(">", b.call(fabs, [r]), ir.Constant(F64, fmt.max))
    if fmt.has_inf:
        copysign = _intrinsic(module, "llvm.copysign.f64", F64, [F64, F64])
        big = b.call(copysign, [ir.Constant(F64, float("inf")), x])
    else:
        big = ir.Constant(F64, float("nan"))
    b.ret(b.fptrunc(b.select(over, big, r), F32))
    return fn


def decode_fn(module: ir.Module, t: ElementType) -> ir.Function:
    """`float __accelsim_decode_<t>(iN bits)`: the value whose raw bits are `bits`."""
    fmt = t.facts.float_format
    assert fmt is not None
    n = t.bitwidth
    it = ir.IntType(n)
    fn, new = _get(module, f"__accelsim_decode_{t.name}", F32, [it])
    if not new:
        return fn
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    (raw,) = fn.args
    u = b.zext(raw, I32)
    if t.name == "bf16":  # the high half of a float
        b.ret(b.bitcast(b.shl(u, ir.Constant(I32, 16)), F32))
        return fn
    m_bits = fmt.precision - 1
    e_bits = n - 1 - m_bits
    bias = 1 - fmt.emin
    sign = b.shl(b.lshr(u, ir.Constant(I32, n - 1)), ir.Constant(I32, 31))
    field = b.and_(b.lshr(u, ir.Constant(I32, m_bits)), ir.Constant(I32, (1 << e_bits) - 1))
    mant = b.and_(u, ir.Constant(I32, (1 << m_bits) - 1))
    normal = b.or_(b.shl(b.add(field, ir.Constant(I32, 127 - bias)), ir.Constant(I32, 23)),
                   b.shl(mant, ir.Constant(I32, 23 - m_bits)))
    value = b.bitcast(b.or_(sign, normal), F32)
    sub = b.fmul(b.uitofp(mant, F32), ir.Constant(F32, 2.0 ** (fmt.emin - m_bits)))
    sub = b.bitcast(b.or_(b.bitcast(sub, I32), sign), F32)
    value = b.select(b.icmp_unsigned("==", field, ir.Constant(I32, 0)), sub, value)
    top = (1 << e_bits) - 1
    if fmt.has_inf:  # IEEE: all-ones exponent is inf (mantissa 0) or NaN
        special = b.bitcast(b.or_(sign, b.or_(ir.Constant(I32, 0x7F800000),
                                               b.shl(mant, ir.Constant(I32, 23 - m_bits)))), F32)
        value = b.select(b.icmp_unsigned("==", field, ir.Constant(I32, top)), special, value)
    else:  # FN: only all-ones exponent and mantissa is NaN
        is_nan = b.icmp_unsigned("==", b.and_(u, ir.Constant(I32, (1 << (n - 1)) - 1)),
                                 ir.Constant(I32, (1 << (n - 1)) - 1))
        value = b.select(is_nan, b.bitcast(b.or_(sign, ir.Constant(I32, 0x7FC00000)), F32), value)
    b.ret(value)
    return fn


def encode_fn(module: ir.Module, t: ElementType) -> ir.Function:
    """`iN __accelsim_encode_<t>(float v)`: the raw bits of `v`, a value of `t` (a NaN keeps
    its sign and the payload bits the format has, so a bitcast round trip is exact)."""
    fmt = t.facts.float_format
    assert fmt is not None
    n = t.bitwidth
    it = ir.IntType(n)
    fn, new = _get(module, f"__accelsim_encode_{t.name}", it, [F32])
    if not new:
        return fn
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    (v,) = fn.args
    u = b.bitcast(v, I32)
    sign = b.shl(b.lshr(u, ir.Constant(I32, 31)), ir.Constant(I32, n - 1))
    is_nan = b.fcmp_unordered("uno", v, v)
    m_bits = fmt.precision - 1
    if fmt.has_inf:  # keep a NaN's payload (the high mantissa bits), quiet if it would be none
        payload = b.and_(b.lshr(u, ir.Constant(I32, 23 - m_bits)), ir.Constant(I32, (1 << m_bits) - 1))
        quiet = ir.Constant(I32, 1 << (m_bits - 1))
        payload = b.select(b.icmp_unsigned("==", payload, ir.Constant(I32, 0)), quiet, payload)
        nan = b.or_(b.or_(sign, ir.Constant(I32, ((1 << (n - 1 - m_bits)) - 1) << m_bits)), payload)
    else:  # FN formats have one NaN per sign
        nan = b.or_(sign, ir.Constant(I32, (1 << (n - 1)) - 1))
    if t.name == "bf16":
        out = b.select(is_nan, nan, b.lshr(u, ir.Constant(I32, 16)))
        b.ret(b.trunc(out, it))
        return fn
    e_bits = n - 1 - m_bits
    bias = 1 - fmt.emin
    e = b.sub(b.and_(b.lshr(u, ir.Constant(I32, 23)), ir.Constant(I32, 0xFF)), ir.Constant(I32, 127))
    normal = b.or_(b.shl(b.add(e, ir.Constant(I32, bias)), ir.Constant(I32, m_bits)),
                   b.lshr(b.and_(u, ir.Constant(I32, 0x7FFFFF)), ir.Constant(I32, 23 - m_bits)))
    fabs = _intrinsic(module, "llvm.fabs.f32", F32, [F32])
    a = b.call(fabs, [v])
    sub = b.fptoui(b.fmul(a, ir.Constant(F32, 2.0 ** (m_bits - fmt.emin))), I32)
    field = b.select(b.icmp_signed("<", e, ir.Constant(I32, fmt.emin)), sub, normal)
    if fmt.has_inf:
        is_inf = b.fcmp_ordered("==", a, ir.Constant(F32, float("inf")))
        field = b.select(is_inf, ir.Constant(I32, ((1 << e_bits) - 1) << m_bits), field)
    out = b.select(is_nan, nan, b.or_(sign, field))
    b.ret(b.trunc(out, it))
    return fn


def to_double(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """A float register's value as a double (exact)."""
    if v.type == F64:
        return v
    if v.type == F16:
        v = b.fpext(v, F32)
    return b.fpext(v, F64)


def round_to(b: ir.IRBuilder, module: ir.Module, x: ir.Value, t: ElementType) -> ir.Value:
    """The double `x` rounded to float type `t`, in `t`'s register type."""
    if t.bitwidth == 64:
        return x
    if t.name == "f32":
        return b.fptrunc(x, F32)
    r = b.call(round_fn(module, t), [x])
    return b.fptrunc(r, F16) if t.name == "f16" else r


def round_float_result(b: ir.IRBuilder, module: ir.Module, v: ir.Value, t: ElementType) -> ir.Value:
    """The result of a float op computed in a float register, rounded to emulated type `t`
    (bf16: the float's bits rounded to their high half, ties to even, in integer arithmetic:
    the same value as `round_fn`, without the double detour)."""
    if not is_emulated(t):
        return v
    if t.name != "bf16":
        return b.call(round_fn(module, t), [b.fpext(v, F64)])
    u = b.bitcast(v, I32)
    lsb = b.and_(b.lshr(u, ir.Constant(I32, 16)), ir.Constant(I32, 1))
    r = b.and_(b.add(u, b.add(ir.Constant(I32, 0x7FFF), lsb)), ir.Constant(I32, 0xFFFF0000))
    quiet = b.or_(u, ir.Constant(I32, 0x00400000))  # a NaN stays a NaN (its high payload kept)
    return b.bitcast(b.select(b.fcmp_unordered("uno", v, v), quiet, r), F32)


def to_bits(b: ir.IRBuilder, module: ir.Module, v: ir.Value, t: ElementType) -> ir.Value:
    """The raw bits of a value of type `t` as an integer of its width."""
    if not t.is_float:
        return v
    if is_emulated(t):
        return b.call(encode_fn(module, t), [v])
    return b.bitcast(v, ir.IntType(t.bitwidth))


def from_bits(b: ir.IRBuilder, module: ir.Module, bits: ir.Value, t: ElementType) -> ir.Value:
    """The value of type `t` whose raw bits are `bits`, in `t`'s register type."""
    if not t.is_float:
        return bits
    if is_emulated(t):
        return b.call(decode_fn(module, t), [bits])
    return b.bitcast(bits, {16: F16, 32: F32, 64: F64}[t.bitwidth])
