"""What we print, upstream mlir-opt-19 accepts; what it prints back, we read as the same module.

Modules come from the builder (DMA with and without stride, iter_args, if/else with results,
max/min bounds, apply/min/max, casts, calls, float constants) and from the hand-written and
upstream fixtures.
"""

from __future__ import annotations

import contextlib
import pathlib
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.ir import F32, F64, I32, INDEX, AffineMap, Builder, Const, IndexExpr, Sym, memref
from compiler.ir.ops import (
    AffineMaxOp,
    AffineMinOp,
    ExpOp,
    IndexCastOp,
    ModuleOp,
    SIToFPOp,
    SqrtOp,
)
from compiler.ir.verifier import verify
from compiler.text import module_diff, parse_module, print_module

HERE = pathlib.Path(__file__).parent
MLIR_OPT = shutil.which("mlir-opt-19")


def dma_module() -> ModuleOp:
    """Tile loop with a DMA into fast memory, a strided DMA back out, and waits."""
    b = Builder()
    with b.func("dma", A=memref((64, 64)), C=memref((64, 64))) as (A, C):
        buf = b.alloc(memref((16, 64), F32, 1), "buf")
        out = b.alloc(memref((16, 16), F32, 1), "out")
        tag = b.alloc(memref((2,), I32), "tag")
        for i in b.range(0, 64, 16):
            b.dma_start(A, [i, 0], buf, [0, 0], tag, [0], 1024)
            b.dma_wait(tag, [0], 1024)
            for j in b.range(0, 64, 16):
                for ii in b.range(16):
                    for jj in b.range(16):
                        out[ii, jj] = buf[ii, j + jj] * 2.0
                b.dma_start(out, [0, 0], C, [i, j], tag, [1], 256, stride=64, elements_per_stride=16)
                b.dma_wait(tag, [1], 256)
        b.dealloc(tag)
        b.dealloc(out)
        b.dealloc(buf)
    return b.module


def control_module() -> ModuleOp:
    """iter_args reduction, if/else with a result, max/min bounds over a symbol."""
    b = Builder()
    with b.func("ctl", A=memref((128, 128)), out=memref((128,)), n=INDEX) as (A, out, n):
        zero = b.constant(0.0, F32)
        for i in b.range(0, n):
            with b.loop([i - 3, 0], [i + 4, n, 128], 1, iter_args=[zero]) as loop:
                v = A[i, loop.iv]
                b.yield_([loop.region_iter_args[0] + v])
            s = loop.results[0]
            with b.if_(i >= 1, n - i - 1 >= 0, results=[F32]) as ifop:
                b.yield_([s + A[i - 1, 0]])
            with b.else_(ifop):
                b.yield_([b.sqrt(s)])
            out[i] = ifop.results[0]
        half = b.apply(n // 2 + 1)
        with b.if_(half >= 4):
            out[half] = 0.5
    return b.module


def scalar_module() -> ModuleOp:
    """affine.min/max ops, casts, calls to a declaration, exp, select, odd float constants."""
    b = Builder()
    with b.func("ext", results=[F32], private=True, x=F32):
        pass
    decl = b.module.funcs[0]
    decl.blocks.clear()  # make it a declaration
    with b.func("scal", results=[F64], A=memref((10,)), n=INDEX) as (A, n):
        lo = b.insert(AffineMaxOp(AffineMap(0, 1, (Sym(0) - 2, Const(0))), [n])).result
        hi = b.insert(AffineMinOp(AffineMap(0, 1, (Sym(0) + 2, Const(10))), [n])).result
        for i in b.range(lo, hi):
            k = b.insert(IndexCastOp(i, I32)).result
            f = b.insert(SIToFPOp(k, F32)).result
            e = b.insert(ExpOp(f)).result
            r = b.call("ext", [e], [F32]).result
            big = b.constant(3.4e38, F32)
            tiny = b.constant(1e-45, F32)
            sel = b.select(b.cmp("ogt", r, big), tiny, b.insert(SqrtOp(r)).result)
            A[i] = sel + 0.1
        b.ret([b.constant(-0.0, F64)])
    return b.module


def map_bounds_module() -> ModuleOp:
    b = Builder()
    with b.func("maps", A=memref((None, 32)), n=INDEX) as (A, n):
        for i in b.range(0, n, 4):
            for j in b.range(i // 4 * 2, 32):
                A[i + 1, (j + i) % 32] = A[i, j]
    return b.module


BUILT = {"dma": dma_module, "control": control_module, "scalar": scalar_module,
         "map_bounds": map_bounds_module}


def run_mlir_opt(mlir_opt: str, text: str, *flags: str) -> str:
    proc = subprocess.run([mlir_opt, *flags, "-"], input=text, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, f"mlir-opt rejected our output:\n{proc.stderr}\n{text}"
    return proc.stdout


@pytest.mark.parametrize("name", sorted(BUILT))
def test_built_modules_verify_and_roundtrip(name: str) -> None:
    module = BUILT[name]()
    verify(module)
    again = parse_module(print_module(module))
    verify(again)
    assert module_diff(module, again) is None


@pytest.mark.mlir_opt
@pytest.mark.parametrize("name", sorted(BUILT))
def test_mlir_opt_accepts_built_modules(mlir_opt: str, name: str) -> None:
    module = BUILT[name]()
    ours = print_module(module)
    theirs = run_mlir_opt(mlir_opt, ours)
    back = parse_module(theirs, "<mlir-opt>")
    verify(back)
    assert module_diff(module, back) is None


@pytest.mark.mlir_opt
@pytest.mark.parametrize("path", sorted((HERE / "kernels").glob("*.mlir"))
                         + sorted((HERE / "upstream").glob("*.mlir")), ids=lambda p: p.name)
def test_mlir_opt_accepts_printed_fixtures(mlir_opt: str, path: pathlib.Path) -> None:
    module = parse_module(path.read_text(), str(path))
    theirs = run_mlir_opt(mlir_opt, print_module(module))
    assert module_diff(module, parse_module(theirs)) is None


@pytest.mark.mlir_opt
def test_mlir_opt_debuginfo_locations_reach_us(mlir_opt: str) -> None:
    """mlir-opt keeps our loc(...) and prints them as #loc aliases; we resolve those."""
    module = dma_module()
    theirs = run_mlir_opt(mlir_opt, print_module(module, debug_locs=True), "--mlir-print-debuginfo")
    assert "#loc" in theirs
    back = parse_module(theirs)
    assert module_diff(module, back, compare_locs=True) is None


@pytest.mark.mlir_opt
def test_mlir_opt_runs_passes_on_our_output(mlir_opt: str) -> None:
    """Our printed kernels feed upstream's tile + copy + pipeline chain, and we read the result."""
    module = parse_module((HERE / "kernels" / "gemm.mlir").read_text())
    theirs = run_mlir_opt(mlir_opt, print_module(module), "--affine-loop-tile=tile-sizes=16,16,16",
                          "--affine-data-copy-generate=generate-dma fast-mem-space=1 "
                          "fast-mem-capacity=16", "--affine-pipeline-data-transfer")
    back = parse_module(theirs)
    verify(back)
    assert sum(1 for op in back.walk() if op.NAME == "affine.dma_start") > 0


@pytest.mark.mlir_opt
def test_locations_survive_an_upstream_pass(mlir_opt: str) -> None:
    """Our debug locations go through mlir-opt's tiling and come back on the same ops."""
    skip = ("affine.for", "affine.yield")  # new tile loops; implicit terminators
    path = HERE / "kernels" / "gemm.mlir"
    module = parse_module(path.read_text(), str(path))
    theirs = run_mlir_opt(mlir_opt, print_module(module, debug_locs=True),
                          "--affine-loop-tile=tile-sizes=16,16,16", "--mlir-print-debuginfo")
    back = parse_module(theirs, "<mlir-opt>")
    before = {(op.NAME, op.loc) for op in module.walk() if op.NAME not in skip}
    after = {(op.NAME, op.loc) for op in back.walk() if op.NAME not in skip}
    assert before == after
    assert all(loc.file == str(path) for _, loc in after)


# ---- random loop nests: built, printed, read by mlir-opt, printed back, read by us ----------

@st.composite
def index_exprs(draw: st.DrawFn, values: list) -> IndexExpr:  # type: ignore[type-arg]
    """A random affine expression over `values` (IVs and symbols)."""
    e = IndexExpr.of(draw(st.integers(-8, 8)))
    for v in draw(st.lists(st.sampled_from(values), min_size=1, max_size=3)):
        e = e + IndexExpr.of(v) * draw(st.sampled_from([1, 1, 2, -1, 3]))
    kind = draw(st.sampled_from(["plain", "plain", "floordiv", "mod", "ceildiv"]))
    d = draw(st.integers(2, 5))
    if kind == "floordiv":
        e = e // d
    elif kind == "mod":
        e = e % d
    elif kind == "ceildiv":
        e = e.ceildiv(d)
    return e


@st.composite
def random_nests(draw: st.DrawFn) -> ModuleOp:
    b = Builder()
    with b.func("r", A=memref((None, None)), n=INDEX, m=INDEX) as (A, n, m), \
            contextlib.ExitStack() as nest:
        syms = [n, m]
        ivs: list = []  # type: ignore[type-arg]
        for _ in range(draw(st.integers(1, 3))):
            pool = syms + ivs
            lo = [draw(index_exprs(pool)) for _ in range(draw(st.integers(1, 2)))]
            hi = [draw(index_exprs(pool)) for _ in range(draw(st.integers(1, 2)))]
            op = b.for_op(lo if len(lo) > 1 else lo[0], hi if len(hi) > 1 else hi[0],
                          draw(st.integers(1, 4)))
            ivs.append(op.iv)
            nest.enter_context(b.at_end(op.body))
        pool = syms + ivs
        v = A[draw(index_exprs(pool)), draw(index_exprs(pool))]
        if draw(st.booleans()):
            with b.if_(IndexExpr.of(draw(st.sampled_from(ivs))) >= draw(index_exprs(syms))):
                A[draw(index_exprs(pool)), draw(index_exprs(pool))] = v
        else:
            k = b.apply(draw(index_exprs(pool)))
            A[k, draw(index_exprs(pool))] = v
    return b.module


@pytest.mark.mlir_opt
@given(random_nests())
@settings(max_examples=25, deadline=None)
def test_random_nests_through_mlir_opt(module: ModuleOp) -> None:
    if MLIR_OPT is None:
        pytest.skip("upstream mlir-opt-19 not installed (apt-get install -y mlir-19-tools)")
    verify(module)
    theirs = run_mlir_opt(MLIR_OPT, print_module(module))
    # mlir-opt re-simplifies some expressions ((s0 + 2) floordiv 2 -> s0 floordiv 2 + 1).
    assert module_diff(module, parse_module(theirs), semantic_maps=True) is None


def every_scalar_op_module() -> ModuleOp:
    """One of every arith/math op class the IR has, in a function mlir-opt must accept."""
    from compiler.ir.ops import BINARY_OPS, CAST_OPS, UNARY_OPS, CmpFOp, CmpIOp
    from compiler.ir.types import BF16, F16, I4, I8, I64

    b = Builder()
    with b.func("ops", results=[F32, I32], x=F32, k=I32, i=INDEX) as (x, k, i):
        fv, iv = x, k
        for cls in BINARY_OPS.values():
            if cls.FLOAT:
                fv = b.insert(cls(fv, x)).result
            else:
                iv = b.insert(cls(iv, k)).result
        for cls in UNARY_OPS.values():
            fv = b.insert(cls(fv)).result
        casts = {"arith.index_cast": (i, I64), "arith.sitofp": (k, F32), "arith.fptosi": (x, I32),
                 "arith.extf": (b.insert(CAST_OPS["arith.truncf"](x, F16)).result, F32),
                 "arith.truncf": (x, F16), "arith.uitofp": (k, BF16), "arith.fptoui": (x, I8),
                 "arith.extsi": (k, I64), "arith.extui": (k, I64), "arith.trunci": (k, I4),
                 "arith.bitcast": (x, I32)}
        for name, (src, dst) in casts.items():
            b.insert(CAST_OPS[name](src, dst))
        for pred in ("oeq", "une", "ult", "true"):
            b.insert(CmpFOp(pred, fv, x))
        for pred in ("eq", "ne", "slt", "uge"):
            b.insert(CmpIOp(pred, iv, k))
        b.ret([fv, iv])
    return b.module


def test_every_scalar_op_verifies_and_roundtrips() -> None:
    module = every_scalar_op_module()
    verify(module)
    from compiler.ir.ops import BINARY_OPS, CAST_OPS, UNARY_OPS

    names = {op.NAME for op in module.walk()}
    assert {*BINARY_OPS, *UNARY_OPS, *CAST_OPS, "arith.cmpf", "arith.cmpi"} <= names
    assert module_diff(module, parse_module(print_module(module))) is None


@pytest.mark.mlir_opt
def test_mlir_opt_accepts_every_scalar_op(mlir_opt: str) -> None:
    module = every_scalar_op_module()
    theirs = run_mlir_opt(mlir_opt, print_module(module))
    assert module_diff(module, parse_module(theirs)) is None
