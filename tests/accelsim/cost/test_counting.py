"""Exact op counts and trip counts: closed forms, brute force, and isl's count_val."""


from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config
from accelsim.cost.kernel import CostModel
from compiler.analysis.counting import access_boxes, count_ops, isl_count
from compiler.ir import F32, INDEX, Builder, memref
from compiler.ir.ops import AffineForOp


def gemm_kernel(M, N, K):
    b = Builder()
    with b.func("k", private=True, A=memref((M, K), F32, 1), B=memref((K, N), F32, 1),
                C=memref((M, N), F32, 1)) as (A, B, C):
        for i in b.range(M):
            for j in b.range(N):
                for k in b.range(K):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    return b.module.lookup("k")


def test_rectangular_gemm_counts_are_closed_form():
    f = gemm_kernel(7, 5, 3)
    c = count_ops(f, (None, None, None))
    assert (c.mac, c.mul, c.add, c.load, c.store) == (105, 0, 0, 315, 105)
    assert c.matmul_like and c.bytes_in(1) == 4 * 420
    cfg = load_config("default")  # 16x16 MAC array, fill 16, drain 16
    cost = CostModel(cfg).kernel(f, (None, None, None))
    # its 7 x 5 outputs fill one fold of the array, which streams k = 3: 3 cycles (not
    # MACs / 256 = 1: the fixed rule maps outputs onto PEs, `CostModel._cost_from`)
    assert cost.on_matrix and cost.compute_cycles == 3
    # footprint on SRAM: A 21 + B 15 elements read, C 35 read and written
    assert cost.sram_bytes == 4 * (21 + 15 + 2 * 35)
    assert cost.cycles == 16 + max(1, -(-cost.sram_bytes // 128)) + 16


def triangle(n_sym: bool, step: int):
    """for i in [lo, N): for j in [i, min(i + 5, N)) step s: if j - 2 >= 0: x[j] = x[j] * 2"""
    b = Builder()
    with b.func("t", private=True, x=memref((64,), F32, 1), lo=INDEX, N=INDEX) as (x, lo, N):
        for i in b.range(lo, N):
            for j in b.range(i, [i + 5, N], step):
                with b.if_(j - 2 >= 0):
                    x[j] = x[j] * 2.0
    return b.module.lookup("t")


@settings(max_examples=40)
@given(lo=st.integers(0, 10), n=st.integers(0, 40), step=st.integers(1, 3))
def test_triangular_counts_equal_brute_force_and_isl(lo, n, step):
    f = triangle(True, step)
    c = count_ops(f, (None, lo, n))
    brute = sum(1 for i in range(lo, n) for j in range(i, min(i + 5, n), step) if j >= 2)
    assert c.mul == brute and c.load == brute and c.store == brute
    outer = next(op for op in f.walk() if isinstance(op, AffineForOp))
    inner = next(op for op in outer.body.ops if isinstance(op, AffineForOp))
    domain = sum(1 for i in range(lo, n) for _ in range(i, min(i + 5, n), step))
    assert isl_count([outer, inner], {f.args[1]: lo, f.args[2]: n}) == domain
    boxes = access_boxes(f, (None, lo, n))
    if brute:
        (box,) = boxes
        touched = [j for i in range(lo, n) for j in range(i, min(i + 5, n), step)]
        assert box.box[0][0] <= min(touched) and box.box[0][1] >= max(touched)
        assert box.read and box.written


def test_counts_do_not_depend_on_non_control_arguments():
    b = Builder()
    with b.func("h", private=True, buf=memref((2, 16), F32, 1), h=INDEX) as (buf, h):
        for j in b.range(16):
            buf[h, j] = buf[h, j] + 1.0
    f = b.module.lookup("h")
    cm = CostModel(load_config("default"))
    assert cm.kernel(f, (None, 0)) is cm.kernel(f, (None, 1))
    assert [a.box for a in access_boxes(f, (None, 1))] == [((1, 1), (0, 15))]


def test_vector_unit_and_special_ops():
    b = Builder()
    with b.func("v", private=True, x=memref((100,), F32, 1)) as (x,):
        for i in b.range(100):
            x[i] = b.exp(x[i]) / (x[i] + 1.0)
    f = b.module.lookup("v")
    c = count_ops(f, (None,))
    assert (c.special, c.add, c.load, c.store) == (200, 100, 200, 100)
    cfg = load_config("edge")  # vector, 8 lanes, special 8 cycles, fill/drain 4
    cost = CostModel(cfg).kernel(f, (None,))
    compute = -(-(100 + 200 * 8) // 8)
    sram = -(-(300 * 4) // cfg.sram.bytes_per_cycle)
    assert cost.cycles == 4 + max(compute, sram) + 4


def test_isl_count_rectangular_with_step():
    f = gemm_kernel(6, 4, 3)
    loops = [op for op in f.walk() if isinstance(op, AffineForOp)]
    assert isl_count(loops, {}) == 72
    assert next(iter(access_boxes(f, (None, None, None)))).box == ((0, 5), (0, 2))


def test_index_ops_that_feed_no_bound_do_not_force_enumeration():
    # `b.apply(i + j)` is dead index arithmetic: the 4M-point nest must still count in closed
    # form (enumerating it would take minutes)
    b = Builder()
    with b.func("d", private=True, x=memref((2048,), F32, 1)) as (x,):
        for i in b.range(2048):
            for j in b.range(2048):
                b.apply(i + j)
                x[j] = x[j] + 1.0
    f = b.module.lookup("d")
    c = count_ops(f, (None,))
    assert c.add == 2048 * 2048 and c.load == 2048 * 2048


def test_integer_multiply_accumulate_counts_as_a_mac():
    """An int8 array (Gemmini's) runs `C += A * B` on integers: muli feeding addi is a MAC and
    the kernel maps onto the array; index arithmetic (muli/addi on index) never is."""
    from compiler.ir import I8

    b = Builder()
    with b.func("k", private=True, A=memref((7, 3), I8, 1), B=memref((3, 5), I8, 1),
                C=memref((7, 5), I8, 1)) as (A, B, C):
        for i in b.range(7):
            for j in b.range(5):
                for k in b.range(3):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    c = count_ops(b.module.lookup("k"), (None, None, None))
    assert (c.mac, c.mul, c.add) == (105, 0, 0)
    assert c.matmul_like and c.bytes_in(1) == 420  # 315 loads + 105 stores of one byte
