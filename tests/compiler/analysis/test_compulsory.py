"""Compulsory traffic against closed forms (syrk, gemm) and against brute force (every access
instance of the workloads executed in program order), plus calls, DMA sides, and the
contraction shapes the I/O bound reads."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import workloads
from compiler.analysis.compulsory import compulsory_traffic
from compiler.analysis.contraction import find_contraction
from compiler.analysis.isl_bridge import AnalysisError
from compiler.ir import F32, I32, INDEX, Builder, memref
from compiler.ir.core import Operation
from workloads.dma_programs import tiled_gemm
from workloads.model import WorkloadError


def by_name(traffic):  # type: ignore[no-untyped-def]
    return {a.name: (a.read_elements, a.written_elements) for a in traffic.arguments}


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40))
def test_syrk_reads_the_lower_triangle_of_c_and_all_of_a(n, m):
    """syrk touches C[i, j] for j <= i only: N(N+1)/2 elements read (beta*C) and written, and
    all of A (N x M) read; nothing else."""
    t = compulsory_traffic(workloads.get(f"syrk:N={n},M={m}").module())
    tri = n * (n + 1) // 2
    assert by_name(t) == {"C": (tri, tri), "A": (n * m, 0)}
    assert t.read_bytes == 4 * (tri + n * m) and t.written_bytes == 4 * tri
    assert t.exact


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 48), st.integers(1, 48), st.integers(1, 48))
def test_gemm_is_a_and_b_read_c_read_and_written(m, n, k):
    """C += A·B: 4·(MK + KN + 2·MN) bytes in f32 (C read before its first write, and written)."""
    t = compulsory_traffic(workloads.get(f"gemm:M={m},N={n},K={k}").module())
    assert by_name(t) == {"A": (m * k, 0), "B": (k * n, 0), "C": (m * n, m * n)}
    assert t.bytes == 4 * (m * k + k * n + 2 * m * n)


def test_an_element_written_before_it_is_read_is_not_an_input():
    b = Builder()
    with b.func("f", C=memref((8, 8), F32), A=memref((8, 8), F32)) as (C, A):
        for i in b.range(8):
            for j in b.range(4):          # columns 0..3 of C zeroed first
                C[i, j] = 0.0
            for j in b.range(8):
                C[i, j] = C[i, j] + A[i, j]
    t = compulsory_traffic(b.module)
    assert by_name(t) == {"C": (8 * 4, 64), "A": (64, 0)}


def test_a_read_in_the_same_iteration_before_the_store_is_an_input():
    b = Builder()
    with b.func("f", X=memref((16,), F32)) as (X,):
        for i in b.range(16):
            X[i] = X[i] * 2.0
    assert by_name(compulsory_traffic(b.module)) == {"X": (16, 16)}


def test_only_arguments_in_the_slow_space_count():
    b = Builder()
    with b.func("f", A=memref((4,), F32), S=memref((4,), F32, 1)) as (A, S):
        tmp = b.alloc(memref((4,), F32), "tmp")  # a temporary in DRAM: not compulsory
        for i in b.range(4):
            tmp[i] = A[i]
            S[i] = tmp[i]
    assert by_name(compulsory_traffic(b.module)) == {"A": (4, 0)}
    assert by_name(compulsory_traffic(b.module, memory_space=1)) == {"S": (0, 4)}


def test_dma_sides_count_their_whole_range():
    """A module given as-is: the DRAM arguments are touched by DMAs only; their ranges (strided
    tiles of A and B, C's tiles in and out) cover each matrix exactly once per element."""
    t = compulsory_traffic(tiled_gemm(64, 64, 64, 32))
    assert by_name(t) == {"A": (64 * 64, 0), "B": (64 * 64, 0), "C": (64 * 64, 64 * 64)}
    assert t.exact


def kernel_module(first_write: bool):  # type: ignore[no-untyped-def]
    """@main calls @row(A, i) for each row i; @row reads A[i, 0..7] and writes B[i, 0..7]."""
    b = Builder()
    with b.func("row", private=True, A=memref((4, 8), F32), B=memref((4, 8), F32), i=INDEX) as (A, B, i):
        for j in b.range(8):
            B[i, j] = A[i, j] + 1.0
    with b.func("main", A=memref((4, 8), F32), B=memref((4, 8), F32)) as (A, B):
        if first_write:
            A[0, 0] = 1.0
        for i in b.range(4):
            b.call("row", [A, B, b.index(i)])
    return b.module


def test_calls_are_followed_with_index_arguments_bound_to_the_call():
    assert by_name(compulsory_traffic(kernel_module(False), "main")) == {"A": (32, 0), "B": (0, 32)}
    # A[0, 0] stored before the call that reads it: no longer an input
    assert by_name(compulsory_traffic(kernel_module(True), "main")) == {"A": (31, 1), "B": (0, 32)}


def test_a_size_given_by_an_index_argument_is_a_clear_error():
    b = Builder()
    with b.func("f", A=memref((64,), F32), n=INDEX) as (A, n):
        for i in b.range(n):
            A[i] = 0.0
    with pytest.raises(AnalysisError, match="depend on index arguments"):
        compulsory_traffic(b.module)


class Touch(Operation):
    """An op this analysis has never heard of, taking a memref."""

    __slots__ = ()
    NAME = "test.touch"


def test_an_unknown_op_on_a_dram_argument_is_a_clear_error():
    b = Builder()
    with b.func("f", A=memref((4,), F32)) as (A,):
        b.insert(Touch(operands=[A]))
        A[0] = 1.0
    with pytest.raises(AnalysisError, match=r"test\.touch"):
        compulsory_traffic(b.module)


def test_recursion_is_a_clear_error():
    b = Builder()
    with b.func("f", A=memref((4,), F32)) as (A,):
        A[0] = 1.0
        b.call("f", [A])
    with pytest.raises(AnalysisError, match="calls itself"):
        compulsory_traffic(b.module, "f")


# ---- brute force: every access instance in program order -----------------------------------

SMALL = 12


@st.composite
def small_workloads(draw):  # type: ignore[no-untyped-def]
    name = draw(st.sampled_from(workloads.names()))
    w = workloads.lookup(name)
    values = {}
    for p in w.params:
        if p.kind == "int":
            lo = p.lo if p.lo is not None else 1
            values[p.name] = str(draw(st.integers(lo, max(lo, min(int(p.default), SMALL)))))
    return name, values


@settings(max_examples=60, deadline=None)
@given(small_workloads())
def test_compulsory_traffic_equals_first_access_brute_force(brute, case):
    name, values = case
    try:
        wl = workloads.lookup(name).bind(values)
        module = wl.module()
    except WorkloadError:
        assume(False)
    f = wl.func(module)
    first: dict[tuple[str, tuple[int, ...]], bool] = {}  # element -> first access is a read
    written: set[tuple[str, tuple[int, ...]]] = set()
    for inst in brute.run_control(f, {}):
        key = (inst.memref.name_hint, inst.element)
        first.setdefault(key, not inst.is_write)
        if inst.is_write:
            written.add(key)
    want = {a: (sum(1 for (m, _), r in first.items() if m == a and r),
                sum(1 for m, _ in written if m == a)) for a in f.arg_names()
            if a in {m for m, _ in first}}
    got = {a: rw for a, rw in by_name(compulsory_traffic(module)).items() if rw != (0, 0)}
    assert got == want


# ---- contraction shapes --------------------------------------------------------------------

def test_gemm_batched_gemm_and_a_non_overlapping_convolution_are_contractions():
    g = find_contraction(workloads.get("gemm:M=12,N=20,K=36").func()).contraction
    assert g is not None and (g.m, g.n, g.k, g.batch, g.mapped) == (12, 20, 36, 1, False)
    assert (g.output, g.left, g.right) == ("C", "A", "B") and g.macs == 12 * 20 * 36
    bg = find_contraction(workloads.get("batched_gemm:batch=3,M=4,N=5,K=6").func()).contraction
    assert bg is not None and (bg.batch, bg.m, bg.n, bg.k) == (3, 4, 5, 6)
    assert bg.output_elements == 3 * 4 * 5
    # stride = filter extent: windows tile the input, im2col is exact (m = N·P·Q, n = K, k = C·R·S)
    c = find_contraction(workloads.get("conv2d:N=2,C=3,H=8,W=8,K=4,R=2,S=2,stride=2").func()).contraction
    assert c is not None and c.mapped and (c.m, c.n, c.k) == (2 * 4 * 4, 4, 3 * 2 * 2)


@pytest.mark.parametrize("spec, reason", [
    ("conv2d:N=1,C=2,H=6,W=6,K=2,R=3,S=3,stride=1", "not an injective image"),
    ("depthwise_conv2d:N=1,C=2,H=6,W=6,R=3,S=3,stride=1", "not an injective image"),
    ("syrk:N=8,M=4", "imperfect"),
    ("2mm:NI=4,NJ=4,NK=4,NL=4", "2 loop nests"),
    ("vector_add:N=16", "not out[...] += a[...] * b[...]"),
])
def test_other_programs_say_why_no_bound_is_known(spec, reason):
    match = find_contraction(workloads.get(spec).func())
    assert match.contraction is None and reason in match.reason


def test_the_contraction_rides_along_with_the_traffic():
    t = compulsory_traffic(workloads.get("gemm:M=8,N=8,K=8").module())
    assert t.contraction.contraction is not None and t.contraction.contraction.k == 8
    tags = Builder()
    with tags.func("f", A=memref((4,), F32)) as (A,):
        buf = tags.alloc(memref((4,), F32, 1), "buf")
        tag = tags.alloc(memref((1,), I32, 2), "tag")
        tags.dma_start(A, [0], buf, [0], tag, [0], 4)
        tags.dma_wait(tag, [0], 4)
    t = compulsory_traffic(tags.module)
    assert by_name(t) == {"A": (4, 0)} and "affine.dma_start" in t.contraction.reason
