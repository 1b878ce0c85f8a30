"""Every arith/math op kind, natively, against numpy on the same element type."""

import numpy as np
import pytest

from compiler.backend import IntegerDivisionError, run_host
from compiler.ir import (
    BINARY_OPS,
    F16,
    F32,
    F64,
    I1,
    I32,
    I64,
    INDEX,
    AbsFOp,
    Builder,
    CmpFOp,
    CmpIOp,
    ExpOp,
    ExtFOp,
    FPToSIOp,
    IndexCastOp,
    NegFOp,
    SelectOp,
    SIToFPOp,
    SqrtOp,
    TruncFOp,
    memref,
)

N = 64
RNG = np.random.default_rng(7)
FLOAT_X = RNG.uniform(-3, 3, N)
FLOAT_Y = RNG.uniform(-3, 3, N)
FLOAT_Y[::5] = FLOAT_X[::5]      # equal pairs for the comparisons
FLOAT_X[3], FLOAT_Y[4] = np.nan, np.nan  # NaN propagation
FLOAT_X[6], FLOAT_Y[6] = -0.0, 0.0
INT_X = RNG.integers(-50, 50, N)
INT_Y = RNG.integers(-9, 9, N)
INT_Y[INT_Y == 0] = 3


def _elementwise(make, in_type, out_type, *inputs):
    """Build out[i] = make(b, x[i], y[i], ...) and run it natively."""
    b = Builder()
    names = [f"x{k}" for k in range(len(inputs))]
    args = {n: memref((N,), in_type) for n in names}
    with b.func("k", out=memref((N,), out_type), **args) as (out, *xs):
        for i in b.range(N):
            out[i] = make(b, *[x[i] for x in xs])
    feeds = {n: np.asarray(v, dtype=in_type.numpy_dtype) for n, v in zip(names, inputs)}
    feeds["out"] = np.zeros(N, out_type.numpy_dtype)
    return run_host(b.module, feeds)["out"]


NUMPY_FLOAT = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
               "arith.divf": np.divide, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum}
NUMPY_INT = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
             "arith.divsi": lambda a, b: np.trunc(a / b).astype(a.dtype),
             "arith.remsi": np.fmod, "arith.maxsi": np.maximum, "arith.minsi": np.minimum}


@pytest.mark.parametrize("name", sorted(NUMPY_FLOAT))
@pytest.mark.parametrize("t", [F32, F64], ids=str)
def test_float_binary_ops(name, t):
    cls = BINARY_OPS[name]
    got = _elementwise(lambda b, x, y: b.insert(cls(x, y)).result, t, t, FLOAT_X, FLOAT_Y)
    x, y = FLOAT_X.astype(t.numpy_dtype), FLOAT_Y.astype(t.numpy_dtype)
    with np.errstate(all="ignore"):
        want = NUMPY_FLOAT[name](x, y)
    np.testing.assert_array_equal(got, want)  # exact, NaN positions included
    if name in ("arith.maximumf", "arith.minimumf"):
        assert np.isnan(got[3]) and np.isnan(got[4])
        assert np.signbit(got[6]) == (name == "arith.minimumf")  # -0 < +0 as MLIR says


@pytest.mark.parametrize("name", sorted(NUMPY_INT))
@pytest.mark.parametrize("t", [I32, I64, INDEX], ids=str)
def test_integer_binary_ops(name, t):
    cls = BINARY_OPS[name]
    got = _elementwise(lambda b, x, y: b.insert(cls(x, y)).result, t, t, INT_X, INT_Y)
    x, y = INT_X.astype(t.numpy_dtype), INT_Y.astype(t.numpy_dtype)
    np.testing.assert_array_equal(got, NUMPY_INT[name](x, y))


@pytest.mark.parametrize("cls,ref", [(NegFOp, np.negative), (ExpOp, np.exp), (SqrtOp, np.sqrt),
                                     (AbsFOp, np.abs)], ids=lambda v: getattr(v, "NAME", ""))
@pytest.mark.parametrize("t", [F32, F64], ids=str)
def test_unary_math_ops(cls, ref, t):
    got = _elementwise(lambda b, x: b.insert(cls(x)).result, t, t, FLOAT_X)
    with np.errstate(all="ignore"):
        want = ref(FLOAT_X.astype(t.numpy_dtype))
    if cls is ExpOp:  # libm and LLVM's expansion may differ in the last bit
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(t.numpy_dtype).eps)
    else:
        np.testing.assert_array_equal(got, want)


CMPF = {"oeq": np.equal, "one": lambda a, b: (a < b) | (a > b), "olt": np.less, "ole": np.less_equal,
        "ogt": np.greater, "oge": np.greater_equal,
        "ueq": lambda a, b: (a == b) | np.isnan(a) | np.isnan(b), "une": np.not_equal,
        "ult": lambda a, b: ~(a >= b), "uge": lambda a, b: ~(a < b),
        "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)), "uno": lambda a, b: np.isnan(a) | np.isnan(b),
        "true": lambda a, b: np.ones(a.shape, bool), "false": lambda a, b: np.zeros(a.shape, bool)}


@pytest.mark.parametrize("pred", sorted(CMPF))
def test_cmpf_predicates_into_bool_memref(pred):
    got = _elementwise(lambda b, x, y: b.insert(CmpFOp(pred, x, y)).result, F64, I1, FLOAT_X, FLOAT_Y)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got, CMPF[pred](FLOAT_X, FLOAT_Y))


CMPI = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater,
        "sge": np.greater_equal, "ult": lambda a, b: a.astype(np.uint64) < b.astype(np.uint64),
        "uge": lambda a, b: a.astype(np.uint64) >= b.astype(np.uint64)}


@pytest.mark.parametrize("pred", sorted(CMPI))
def test_cmpi_predicates(pred):
    got = _elementwise(lambda b, x, y: b.insert(CmpIOp(pred, x, y)).result, I64, I1, INT_X, INT_Y)
    np.testing.assert_array_equal(got, CMPI[pred](INT_X, INT_Y))


def test_select_and_bool_loads():
    def make(b, x, y):
        return b.insert(SelectOp(b.insert(CmpFOp("ogt", x, y)).result, x, y)).result
    got = _elementwise(make, F32, F32, FLOAT_X, FLOAT_Y)
    x, y = FLOAT_X.astype(np.float32), FLOAT_Y.astype(np.float32)
    np.testing.assert_array_equal(got, np.where(x > y, x, y))


def test_casts():
    def make(b, x):
        i = b.insert(FPToSIOp(b.insert(ExtFOp(x, F64)).result, I32)).result   # f32 -> f64 -> i32
        idx = b.insert(IndexCastOp(i, INDEX)).result                          # sext
        back = b.insert(IndexCastOp(idx, I32)).result                         # trunc
        f = b.insert(SIToFPOp(back, F64)).result
        return b.insert(TruncFOp(f + b.insert(ExtFOp(x, F64)).result, F32)).result
    xs = FLOAT_X * 10
    xs[3] = 1.5  # no NaN through fptosi
    got = _elementwise(make, F32, F32, xs)
    x = xs.astype(np.float32)
    want = (np.trunc(x.astype(np.float64)) + x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_bool_memref_roundtrip_through_i1_loads():
    b = Builder()
    with b.func("k", m=memref((N,), I1), x=memref((N,), F32), out=memref((N,), F32)) as (m, x, out):
        for i in b.range(N):
            out[i] = b.select(m[i], x[i], 0.0)
    mask = RNG.integers(0, 2, N).astype(bool)
    x = FLOAT_Y.astype(np.float32)
    got = run_host(b.module, {"m": mask, "x": x, "out": np.ones(N, np.float32)})["out"]
    np.testing.assert_array_equal(got, np.where(mask, x, 0))


@pytest.mark.parametrize("name", ["arith.addf", "arith.mulf", "arith.subf"])
def test_half_precision_memrefs(name):
    """f16 math rounds once per op, like numpy's float16 (exact through f32 for +, -, *)."""
    cls = BINARY_OPS[name]
    got = _elementwise(lambda b, x, y: b.insert(cls(x, y)).result, F16, F16, FLOAT_X, FLOAT_Y)
    x, y = FLOAT_X.astype(np.float16), FLOAT_Y.astype(np.float16)
    np.testing.assert_array_equal(got, NUMPY_FLOAT[name](x, y))


def test_integer_division_by_zero_does_not_kill_the_process():
    """Undefined in MLIR; here the run stops with a located error instead of SIGFPE (issue 14:
    a zero divisor used to act as 1, a silent wrong answer)."""
    xs = np.array([7, -7, 5] + [1] * (N - 3))
    ys = np.array([0, 0, 2] + [1] * (N - 3))
    with pytest.raises(IntegerDivisionError, match=r"division by zero .* \(dividend 7\)"):
        _elementwise(lambda b, x, y: b.insert(BINARY_OPS["arith.divsi"](x, y)).result, I64, I64, xs, ys)
