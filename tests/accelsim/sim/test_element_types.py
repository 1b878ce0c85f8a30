"""Element types i4..i64, f8E4M3FN..f64 end to end: every arith cast and integer op runs
bit-identically on the host backend (llvmlite) and in the simulator's interpreter (numpy +
ml_dtypes), and agrees with a numpy/ml_dtypes reference; the edge semantics MLIR defines
(wrap-around, ties to even) or leaves poison (fptosi out of range: saturating here) are
pinned; int8 and i4 x i8 GEMMs are bit-identical on host, simulator and numpy."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

from accelsim.sim.simulate import simulate
from compiler.backend import run_host
from compiler.ir import BF16, F8E4M3FN, F32, I4, I8, I32, Builder, memref
from compiler.ir.types import ELEMENT_TYPES, ElementType
from compiler.text import parse_module, print_module

FLOATS = ["f8E4M3FN", "f8E5M2", "bf16", "f16", "f32", "f64"]
INTS = ["i1", "i4", "i8", "i16", "i32", "i64"]
ML_FLOAT = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def _width(name: str) -> int:
    return ELEMENT_TYPES[name].bitwidth


def _values(name: str) -> np.ndarray:
    """Inputs of type `name`: every fp8 pattern, a stride through the 16-bit ones, random f32
    bits plus rounding/overflow cases, integers over the whole range with its ends."""
    t = ELEMENT_TYPES[name]
    if name in ("f8E4M3FN", "f8E5M2"):
        return np.arange(256, dtype=np.uint8).view(t.numpy_dtype)
    if name in ("bf16", "f16"):
        return np.arange(0, 65536, 61, dtype=np.uint16).view(t.numpy_dtype)
    if name in ("f32", "f64"):
        rng = np.random.default_rng(1)
        a = rng.integers(0, 2**32, 600, dtype=np.uint64).astype(np.uint32).view(np.float32)
        edge = [1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, 448, 464, 465, 480, 57344, 61440,
                65504, 65520, 2**-10, 1e-8, -0.0, np.inf, -np.inf, np.nan, 3e38, 300.5, -129.0,
                127.5, -128.7, 255.9, 256.0, -1.0, 2.0**31, 2.0**63]
        with np.errstate(invalid="ignore"):
            out = np.concatenate([a, np.array(edge, np.float32)]).astype(t.numpy_dtype)
        if name == "f64":  # values a float32 intermediate would round differently
            out = np.concatenate([out, [1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40, 2.0**-140]])
        return out
    if name == "i4":
        return np.arange(-8, 8).astype(ml_dtypes.int4)
    if name == "i1":
        return np.array([True, False])
    info = np.iinfo(t.numpy_dtype)
    rng = np.random.default_rng(2)
    return np.concatenate([rng.integers(info.min, info.max, 300, endpoint=True),
                           [info.min, info.max, 0, -1, 1]]).astype(t.numpy_dtype)


def _kernel(op: str, src: str, dst: str, n: int) -> str:
    return f"""func.func @k(%X: memref<{n}x{src}>, %Y: memref<{n}x{dst}>) {{
  affine.for %i = 0 to {n} {{
    %x = affine.load %X[%i] : memref<{n}x{src}>
    %y = {op} %x : {src} to {dst}
    affine.store %y, %Y[%i] : memref<{n}x{dst}>
  }}
  return
}}"""


def host_and_sim(text: str, inputs: dict[str, np.ndarray], out: str) -> tuple[np.ndarray, np.ndarray]:
    """`out` after running `text` on the host backend and in the simulator, its kernels
    interpreted (numpy + ml_dtypes scalars, accelsim.sim.scalar)."""
    host = run_host(parse_module(text), inputs)[out]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow notes on inf results
        sim = simulate(parse_module(text), "default", inputs=inputs,
                       interpret_kernels=True).outputs
    assert sim is not None
    return host, sim[out]


def _bits(a: np.ndarray) -> np.ndarray:
    if a.dtype.name in ML_FLOAT or a.dtype.kind == "f":
        return a.view(np.dtype(f"uint{a.dtype.itemsize * 8}"))
    return a.astype(np.int64)


def assert_same(a: np.ndarray, b: np.ndarray, what: str) -> None:
    """Bit-identical, except that any NaN equals any NaN when the type is a float."""
    assert a.dtype == b.dtype, what
    ok = _bits(a) == _bits(b)
    if a.dtype.name in ML_FLOAT or a.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok |= np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    bad = np.nonzero(~ok)[0]
    assert bad.size == 0, f"{what}: {bad.size} differ, first {a[bad[:3]]} vs {b[bad[:3]]}"


def _casts() -> list[tuple[str, str, str]]:
    out = []
    for s in FLOATS:
        for d in FLOATS:
            if _width(d) > _width(s):
                out.append(("arith.extf", s, d))
            if _width(d) < _width(s):
                out.append(("arith.truncf", s, d))
        for d in INTS:
            out += [("arith.fptosi", s, d), ("arith.fptoui", s, d)]
    for s in INTS:
        for d in FLOATS:
            out += [("arith.sitofp", s, d), ("arith.uitofp", s, d)]
        for d in INTS:
            if _width(d) > _width(s):
                out += [("arith.extsi", s, d), ("arith.extui", s, d)]
            if _width(d) < _width(s):
                out.append(("arith.trunci", s, d))
    for s in FLOATS + INTS:
        for d in FLOATS + INTS:
            if _width(s) == _width(d) and s != d and _width(s) >= 8:
                out.append(("arith.bitcast", s, d))
    return out


CASTS = _casts()


def _reference(op: str, x: np.ndarray, s: ElementType, d: ElementType) -> np.ndarray | None:
    """numpy/ml_dtypes' own conversion where it defines the result (None: it does not, e.g.
    numpy's float-to-int out of range)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if op in ("arith.extf", "arith.truncf"):
            return x.astype(np.float64).astype(d.numpy_dtype) if s.name != "f64" else x.astype(d.numpy_dtype)
        if op == "arith.sitofp" and s.name not in ("i1", "i64"):
            return x.astype(np.int64).astype(np.float64).astype(d.numpy_dtype)
        if op in ("arith.extsi", "arith.trunci") and "i1" not in (s.name, d.name):
            return x.astype(np.int64).astype(d.numpy_dtype)  # numpy's casts wrap
        if op == "arith.bitcast":
            return x.view(np.dtype(f"uint{s.bitwidth}")).view(d.numpy_dtype)
    return None


@pytest.mark.parametrize("op,src,dst", CASTS, ids=[f"{o[6:]}-{s}-{d}" for o, s, d in CASTS])
def test_cast_host_sim_reference(op: str, src: str, dst: str) -> None:
    s, d = ELEMENT_TYPES[src], ELEMENT_TYPES[dst]
    x = _values(src)
    y = np.zeros(x.size, d.numpy_dtype)
    host, sim = host_and_sim(_kernel(op, src, dst, x.size), {"X": x, "Y": y}, "Y")
    assert_same(host, sim, f"{op} {src} to {dst}: host vs sim")
    ref = _reference(op, x, s, d)
    if ref is not None:
        assert_same(sim, ref, f"{op} {src} to {dst}: sim vs numpy/ml_dtypes")


def test_all_cast_pairs_are_covered() -> None:
    """The cast table above is the whole of MLIR's legal scalar casts between these types."""
    assert len(CASTS) == 231
    assert {o for o, _, _ in CASTS} == {"arith.extf", "arith.truncf", "arith.fptosi",
                                         "arith.fptoui", "arith.sitofp", "arith.uitofp",
                                         "arith.extsi", "arith.extui", "arith.trunci",
                                         "arith.bitcast"}


# ---- edge semantics --------------------------------------------------------------------

def _one(op: str, src: str, dst: str, xs: list) -> np.ndarray:
    s = ELEMENT_TYPES[src]
    x = np.array(xs, dtype=np.float64 if s.is_float else np.int64).astype(s.numpy_dtype)
    y = np.zeros(x.size, ELEMENT_TYPES[dst].numpy_dtype)
    host, sim = host_and_sim(_kernel(op, src, dst, x.size), {"X": x, "Y": y}, "Y")
    assert_same(host, sim, op)
    return host


def test_fptosi_out_of_range_saturates_and_nan_is_zero() -> None:
    """MLIR: poison. Here (host and simulator alike): LLVM's fptosi.sat."""
    got = _one("arith.fptosi", "f32", "i8", [300.0, -1e9, np.nan, 127.9, -128.9, -0.5, np.inf])
    assert got.tolist() == [127, -128, 0, 127, -128, 0, 127]
    got = _one("arith.fptoui", "f32", "i8", [300.0, -3.0, 255.5, 200.0])
    assert got.tolist() == [-1, 0, -1, -56]  # 255, 0, 255, 200 read signed
    got = _one("arith.fptosi", "bf16", "i4", [9.0, -9.0, 7.5, -8.0])
    assert got.astype(np.int8).tolist() == [7, -8, 7, -8]


def test_truncf_rounds_ties_to_even() -> None:
    ulp = 2.0**-7  # bf16 at 1.0
    got = _one("arith.truncf", "f32", "bf16",
               [1 + ulp / 2, 1 + 3 * ulp / 2, 1 + ulp / 2 + 2**-20, -(1 + ulp / 2)])
    assert got.astype(np.float64).tolist() == [1.0, 1 + 2 * ulp, 1 + ulp, -1.0]
    # f8E4M3FN: 464 is halfway between 448 (even) and 480 (not a value: NaN), 465 rounds up
    got = _one("arith.truncf", "f32", "f8E4M3FN", [464.0, 465.0, 0.0029296875, np.inf])
    v = got.astype(np.float64)
    assert v[0] == 448.0 and np.isnan(v[1]) and v[2] == 0.00390625 and np.isnan(v[3])
    # f8E5M2 has inf: overflow is inf
    got = _one("arith.truncf", "f64", "f8E5M2", [61440.0, 57344.0 + 2047.0, -1e10])
    assert got.astype(np.float64).tolist() == [np.inf, 57344.0, -np.inf]


def test_trunci_wraps() -> None:
    assert _one("arith.trunci", "i32", "i8", [300, -129, 128, 255]).tolist() == [44, 127, -128, -1]
    assert _one("arith.trunci", "i16", "i4", [8, 15, -9, 23]).astype(np.int8).tolist() == [-8, -1, 7, 7]
    assert _one("arith.extui", "i8", "i32", [-1, -128]).tolist() == [255, 128]
    assert _one("arith.extsi", "i4", "i32", [-8, 7, -1]).tolist() == [-8, 7, -1]


def _binary_kernel(ops: list[str], ty: str, n: int) -> str:
    """O<k>[i] = arith.<ops[k]>(A[i], B[i]) for every k, in one loop."""
    mt = f"memref<{n}x{ty}>"
    body = "\n".join(f"    %r{k} = arith.{op} %a, %b : {ty}\n    affine.store %r{k}, %O{k}[%i] : {mt}"
                     for k, op in enumerate(ops))
    outs = ", ".join(f"%O{k}: {mt}" for k in range(len(ops)))
    return f"""func.func @k(%A: {mt}, %B: {mt}, {outs}) {{
  affine.for %i = 0 to {n} {{
    %a = affine.load %A[%i] : {mt}
    %b = affine.load %B[%i] : {mt}
{body}
  }}
  return
}}"""


INT_BINARY = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "shli", "shrsi",
              "shrui", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui"]


def _int_reference(op: str, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
    """Python-int semantics of each op, wrapped to `w` bits and read signed."""
    m = (1 << w) - 1

    def s(v: int) -> int:
        v &= m
        return v - (1 << w) if v >> (w - 1) else v

    def one(x: int, y: int) -> int:
        ux, uy = x & m, y & m
        q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1) if y else 0
        return s({"addi": x + y, "subi": x - y, "muli": x * y, "divsi": q, "remsi": x - y * q,
                  "divui": ux // uy if uy else 0, "remui": ux % uy if uy else 0,
                  "shli": (x << uy) if uy < w else 0, "shrsi": x >> min(uy, w - 1),
                  "shrui": (ux >> uy) if uy < w else 0, "andi": x & y, "ori": x | y,
                  "xori": x ^ y, "maxsi": max(x, y), "minsi": min(x, y),
                  "maxui": x if ux >= uy else y, "minui": x if ux <= uy else y}[op])
    return np.array([one(int(x), int(y)) for x, y in zip(a, b)], dtype=np.int64)


@pytest.mark.parametrize("ty", ["i4", "i8", "i16", "i32", "i64"])
def test_integer_ops_wrap_and_read_signed_or_unsigned(ty: str) -> None:
    t = ELEMENT_TYPES[ty]
    lo, hi = -(1 << (t.bitwidth - 1)), (1 << (t.bitwidth - 1)) - 1
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.integers(lo, hi, 48, endpoint=True), [hi, lo, -1, 5, lo + 1, 3]])
    b = np.concatenate([rng.integers(lo, hi, 48, endpoint=True), [1, -1 if ty == "i4" else 2, 2,
                        t.bitwidth, 1, t.bitwidth + 1]])
    b[b == 0] = 3
    ok = ~((a == lo) & (b == -1))  # MIN / -1 overflows divsi: an error, tested below
    a, b = a[ok], b[ok]
    n = a.size
    text = _binary_kernel(INT_BINARY, ty, n)
    inputs = {"A": a.astype(t.numpy_dtype), "B": b.astype(t.numpy_dtype)}
    inputs.update({f"O{k}": np.zeros(n, t.numpy_dtype) for k in range(len(INT_BINARY))})
    host = run_host(parse_module(text), inputs)
    sim = simulate(parse_module(text), "default", inputs=inputs, interpret_kernels=True).outputs
    assert sim is not None
    for k, op in enumerate(INT_BINARY):
        want = _int_reference(op, a, b, t.bitwidth)
        assert host[f"O{k}"].astype(np.int64).tolist() == want.tolist(), f"host {op} {ty}"
        assert sim[f"O{k}"].astype(np.int64).tolist() == want.tolist(), f"sim {op} {ty}"


def test_cmpi_unsigned_predicates_read_unsigned() -> None:
    text = """func.func @k(%A: memref<4xi8>, %B: memref<4xi8>, %O: memref<4xi1>, %P: memref<4xi1>) {
  affine.for %i = 0 to 4 {
    %a = affine.load %A[%i] : memref<4xi8>
    %b = affine.load %B[%i] : memref<4xi8>
    %u = arith.cmpi ult, %a, %b : i8
    %s = arith.cmpi slt, %a, %b : i8
    affine.store %u, %O[%i] : memref<4xi1>
    affine.store %s, %P[%i] : memref<4xi1>
  }
  return
}"""
    inputs = {"A": np.array([-1, 1, -128, 5], np.int8), "B": np.array([1, -1, 127, 5], np.int8),
              "O": np.zeros(4, bool), "P": np.zeros(4, bool)}
    for out, want in (("O", [False, True, False, False]), ("P", [True, False, True, False])):
        host, sim = host_and_sim(text, inputs, out)
        assert host.tolist() == want and sim.tolist() == want


def test_divsi_overflow_is_an_error_on_both_targets() -> None:
    from accelsim.errors import SimulationError
    from compiler.backend import IntegerDivisionError

    text = """func.func @k(%A: memref<1xi8>, %B: memref<1xi8>) {
  affine.for %i = 0 to 1 {
    %a = affine.load %A[%i] : memref<1xi8>
    %b = affine.load %B[%i] : memref<1xi8>
    %q = arith.divsi %a, %b : i8
    affine.store %q, %A[%i] : memref<1xi8>
  }
  return
}"""
    inputs = {"A": np.array([-128], np.int8), "B": np.array([-1], np.int8)}
    with pytest.raises(IntegerDivisionError):
        run_host(parse_module(text), inputs)
    with pytest.raises(SimulationError, match="overflow"):
        simulate(parse_module(text), "default", inputs=inputs, interpret_kernels=True)


def test_narrow_float_arithmetic_rounds_like_ml_dtypes() -> None:
    """bf16/fp8 ops compute in float32 and round once (ml_dtypes' rule), on both targets."""
    for ty in ("bf16", "f8E4M3FN", "f8E5M2", "f16"):
        t = ELEMENT_TYPES[ty]
        rng = np.random.default_rng(4)
        a = rng.uniform(-20, 20, 64).astype(t.numpy_dtype)
        b = rng.uniform(0.5, 20, 64).astype(t.numpy_dtype)
        ops = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf"]
        text = _binary_kernel(ops, ty, 64)
        inputs = {"A": a, "B": b, **{f"O{k}": np.zeros(64, t.numpy_dtype) for k in range(len(ops))}}
        host = run_host(parse_module(text), inputs)
        sim = simulate(parse_module(text), "default", inputs=inputs, interpret_kernels=True).outputs
        assert sim is not None
        f32 = (a.astype(np.float32), b.astype(np.float32))
        refs = [np.add, np.subtract, np.multiply, np.divide, np.maximum, np.minimum]
        for k, fn in enumerate(refs):
            want = fn(*f32).astype(t.numpy_dtype)
            assert_same(host[f"O{k}"], want, f"host {ops[k]} {ty}")
            assert_same(sim[f"O{k}"], want, f"sim {ops[k]} {ty}")


# ---- GEMMs built with the Builder --------------------------------------------------------

def build_qgemm(M: int, N: int, K: int, a_type: ElementType, b_type: ElementType):
    """C[i, j] += extsi(A[i, k]) * extsi(B[k, j]), accumulated in i32."""
    bld = Builder()
    with bld.func("qgemm", A=memref((M, K), a_type), B=memref((K, N), b_type),
                  C=memref((M, N), I32)) as (A, B, C):
        for i in bld.range(M):
            for j in bld.range(N):
                for k in bld.range(K):
                    C[i, j] = C[i, j] + bld.extsi(A[i, k], I32) * bld.cast(B[k, j], I32)
    return bld.module


@pytest.mark.parametrize("a_type,b_type", [(I8, I8), (I4, I8)], ids=["i8xi8", "i4xi8"])
def test_quantized_gemm_bit_identical_on_host_sim_and_numpy(a_type, b_type) -> None:
    M, N, K = 24, 20, 40
    module = build_qgemm(M, N, K, a_type, b_type)
    text = print_module(module)
    assert text.count("arith.extsi") == 2 and text.count("arith.muli") == 1
    rng = np.random.default_rng(5)
    lo = -8 if a_type == I4 else -128
    A = rng.integers(lo, -lo, (M, K)).astype(a_type.numpy_dtype)
    B = rng.integers(-128, 128, (K, N)).astype(b_type.numpy_dtype)
    C = rng.integers(-1000, 1000, (M, N)).astype(np.int32)
    want = C + A.astype(np.int32) @ B.astype(np.int32)
    inputs = {"A": A, "B": B, "C": C}
    host = run_host(module, inputs)["C"]
    native = simulate(parse_module(text), "default", inputs=inputs).outputs["C"]
    interp = simulate(parse_module(text), "default", inputs=inputs, interpret_kernels=True).outputs["C"]
    for got in (host, native, interp):
        assert got.dtype == np.int32 and np.array_equal(got, want)


def test_int8_gemm_accumulator_wraps_like_i32() -> None:
    """Sums past 2**31 wrap in i32 on every target (no silent widening)."""
    M, N, K = 2, 2, 8
    module = build_qgemm(M, N, K, I8, I8)
    A = np.full((M, K), -128, np.int8)
    B = np.full((K, N), -128, np.int8)
    C = np.full((M, N), 2**31 - 1000, np.int32)
    with np.errstate(over="ignore"):
        want = (C.astype(np.int64) + 8 * 16384).astype(np.int32)
    host = run_host(module, {"A": A, "B": B, "C": C})["C"]
    interp = simulate(parse_module(print_module(module)), "default", inputs={"A": A, "B": B, "C": C},
                      interpret_kernels=True).outputs["C"]
    assert np.array_equal(host, want) and np.array_equal(interp, want) and want[0, 0] < 0


def test_builder_casts_and_typed_constants() -> None:
    bld = Builder()
    with bld.func("k", X=memref((4,), F32), Y=memref((4,), BF16), Z=memref((4,), F8E4M3FN),
                  W=memref((4,), I8)) as (X, Y, Z, W):
        for i in bld.range(4):
            x = X[i]
            y = bld.cast(x, BF16)                     # truncf
            Y[i] = y + bld.constant(0.1, BF16)        # a bf16 constant holds 0.100098
            Z[i] = bld.cast(bld.cast(y, F32), F8E4M3FN)
            w = bld.cast(x, I8)                       # fptosi
            W[i] = (w & 0x0F) | bld.constant(-128, I8)
    text = print_module(bld.module)
    for line in ("arith.truncf %", "arith.extf %", "arith.fptosi %", "arith.andi %",
                 "arith.ori %", "arith.constant 0.100098 : bf16", "arith.constant -128 : i8"):
        assert line in text, line
    x = np.array([1.5, -3.25, 100.7, 0.3], np.float32)
    inputs = {"X": x, "Y": np.zeros(4, ml_dtypes.bfloat16), "Z": np.zeros(4, ml_dtypes.float8_e4m3fn),
              "W": np.zeros(4, np.int8)}
    for out in ("Y", "Z", "W"):
        host, sim = host_and_sim(text, inputs, out)
        assert_same(host, sim, out)
    y = x.astype(ml_dtypes.bfloat16)
    assert_same(host_and_sim(text, inputs, "Y")[0],
                (y.astype(np.float32) + np.float32(ml_dtypes.bfloat16(0.1))).astype(ml_dtypes.bfloat16), "Y")
    w = x.astype(np.int64).astype(np.int8)
    assert host_and_sim(text, inputs, "W")[0].tolist() == ((w & 0x0F) | np.int8(-128)).tolist()


@pytest.mark.parametrize("a_type,b_type,acc", [(I8, I8, I32), (I4, I8, I32), (BF16, BF16, F32),
                                               (F8E4M3FN, F8E4M3FN, F32)],
                         ids=["i8xi8-i32", "i4xi8-i32", "bf16-f32", "f8E4M3FN-f32"])
def test_compiled_for_the_accelerator_the_narrow_types_move_exactly(a_type, b_type, acc) -> None:
    """Through the whole pipeline (tiles, DMA copies into i8/i4/bf16/fp8 buffers, double
    buffering) the simulator's result equals the host's and numpy's."""
    import accelsim

    M, N, K = 64, 48, 80
    bld = Builder()
    with bld.func("g", A=memref((M, K), a_type), B=memref((K, N), b_type),
                  C=memref((M, N), acc)) as (A, B, C):
        for i in bld.range(M):
            for j in bld.range(N):
                for k in bld.range(K):
                    C[i, j] = C[i, j] + bld.cast(A[i, k], acc) * bld.cast(B[k, j], acc)
    rng = np.random.default_rng(6)
    A = rng.integers(-8, 8, (M, K)).astype(a_type.numpy_dtype)
    B = rng.integers(-8, 8, (K, N)).astype(b_type.numpy_dtype)
    C = np.zeros((M, N), acc.numpy_dtype)
    want = (A.astype(np.float64) @ B.astype(np.float64)).astype(acc.numpy_dtype)  # exact: small ints
    text = print_module(bld.module)
    host = run_host(parse_module(text), {"A": A, "B": B, "C": C})["C"]
    result = accelsim.run(parse_module(text), "default", inputs={"A": A, "B": B, "C": C})
    got = result.outputs["C"]
    assert got.dtype == acc.numpy_dtype and np.array_equal(got, want) and np.array_equal(host, want)
    assert result.cycles > 0
