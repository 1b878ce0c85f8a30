"""Each race / misuse kind has a program that provokes it; the error names the op's location
and the simulated cycle."""

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.errors import CapacityError, HazardError
from compiler.ir import F32, I32, INDEX, Builder, memref

CFG = load_config("default").with_overrides({"dma.engines": 1, "dram.channels": 1})


def build(body, kernel=None, shape=(8, 64)):
    """`body(b, A, C, lines)` builds the control program; `lines` collects op line numbers."""
    b = Builder()
    if kernel is not None:
        kernel(b)
    with b.func("main", A=memref(shape, F32), C=memref(shape, F32)) as (A, C):
        body(b, A, C)
    return b.module


def reader_kernel(b):
    with b.func("rd", private=True, buf=memref((64,), F32, 1), out=memref((1,), F32, 1)) as (buf, out):
        for j in b.range(64):
            out[0] = out[0] + buf[j]


def writer_kernel(b):
    with b.func("wr", private=True, buf=memref((64,), F32, 1)) as (buf,):
        for j in b.range(64):
            buf[j] = buf[j] * 2.0


def sram(b, n=64, name="buf"):
    return b.alloc(memref((n,), F32, 1), name)


def tags(b, n=2):
    return b.alloc(memref((n,), I32, 2), "tag")


def run(mod, **kw):
    return simulate(mod, CFG, **kw)


@pytest.mark.parametrize("functional", [True, False])
def test_kernel_reads_buffer_while_dma_into_it_is_in_flight(functional):
    def body(b, A, C):
        buf, out, t = sram(b), sram(b, 1, "out"), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.call("rd", [buf, out])  # missing dma_wait
        b.dma_wait(t, [0], 64)
    with pytest.raises(HazardError) as err:
        run(build(body, reader_kernel), functional=functional)
    msg = str(err.value)
    assert "func.call (kernel @rd) reads buf element [0] at cycle 0 while a DMA into it is in flight" in msg
    assert "test_hazards.py:" in msg and "A->buf" in msg


def test_kernel_writes_buffer_while_dma_out_of_it_is_in_flight():
    def body(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(buf, [0], C, [0, 0], t, [0], 64)
        b.call("wr", [buf])
        b.dma_wait(t, [0], 64)
    with pytest.raises(HazardError, match=r"kernel @wr\) reads and writes buf .* DMA out of it"):
        run(build(body, writer_kernel))


def test_dma_overwrites_buffer_another_dma_still_reads():
    def body(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(buf, [0], C, [0, 0], t, [0], 64)
        b.dma_start(A, [1, 0], buf, [0], t, [1], 64)
        b.dma_wait(t, [0], 64)
        b.dma_wait(t, [1], 64)
    with pytest.raises(HazardError, match=r"affine.dma_start overwrites buf element \[0\] at cycle 0 "
                                          r"while a DMA out of it is in flight \(buf->C"):
        run(build(body))


def test_disjoint_halves_in_flight_are_not_a_race():
    # the double-buffering pattern: a DMA into one half while a kernel reads the other
    def kernel(b):
        with b.func("rd2", private=True, buf=memref((2, 64), F32, 1), h=INDEX,
                    out=memref((1,), F32, 1)) as (buf, h, out):
            for j in b.range(64):
                out[0] = out[0] + buf[h, j]

    def body(b, A, C):
        buf = b.alloc(memref((2, 64), F32, 1), "buf")
        out, t = sram(b, 1, "out"), tags(b)
        b.dma_start(A, [0, 0], buf, [0, 0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_start(A, [1, 0], buf, [1, 0], t, [1], 64)
        b.call("rd2", [buf, b.index(0), out])
        b.dma_wait(t, [1], 64)
        b.call("rd2", [buf, b.index(1), out])
    A = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    r = run(build(body, kernel), inputs={"A": A})
    assert r.cycles > 0
    # and reading the half being filled is caught
    def bad(b, A, C):
        buf = b.alloc(memref((2, 64), F32, 1), "buf")
        out, t = sram(b, 1, "out"), tags(b)
        b.dma_start(A, [1, 0], buf, [1, 0], t, [1], 64)
        b.call("rd2", [buf, b.index(1), out])
        b.dma_wait(t, [1], 64)
    with pytest.raises(HazardError, match=r"reads buf element \[1, 0\]"):
        run(build(bad, kernel))


def test_wait_on_a_tag_nothing_signals_is_a_deadlock():
    def body(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_wait(t, [1], 64)
    with pytest.raises(HazardError) as err:
        run(build(body))
    assert "affine.dma_wait on tag[1] at cycle" in str(err.value)
    assert "deadlock" in str(err.value)
    assert err.value.loc.line > 0


def test_waiting_twice_on_one_transfer_is_a_deadlock_at_the_right_cycle():
    def body(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
        b.dma_wait(t, [0], 64)
    d = CFG.dma.setup_cycles + 256 // 16 + CFG.dram.latency_cycles
    with pytest.raises(HazardError, match=f"tag\\[0\\] at cycle {d}: no DMA in flight"):
        run(build(body), functional=False)


def test_tag_reuse_while_in_flight():
    def body(b, A, C):
        buf, buf2, t = sram(b), sram(b, 64, "buf2"), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dma_start(A, [1, 0], buf2, [0], t, [0], 64)
        b.dma_wait(t, [0], 64)
    with pytest.raises(HazardError, match=r"reuses tag tag\[0\] at cycle 0 while the transfer it "
                                          r"signals is not yet waited on \(A->buf"):
        run(build(body))


def test_dma_past_the_end_of_the_source_names_op_and_indices():
    # a 32x32 tile at [96, 96] of a 100x100 array: what mlir-opt emits for a partial tile
    def body(b, A, C):
        buf = b.alloc(memref((32, 32), F32, 1), "tile")
        t = tags(b)
        b.dma_start(A, [96, 96], buf, [0, 0], t, [0], 1024, 100, 32)
        b.dma_wait(t, [0], 1024)
    with pytest.raises(HazardError) as err:
        run(build(body, shape=(100, 100)))
    msg = str(err.value)
    assert "affine.dma_start source A[96, 96] runs outside memref<100x100xf32>" in msg
    assert "reaches element [96, 127], index 127 of dimension 1 not in [0, 99]" in msg


def test_contiguous_dma_past_the_end_of_the_memref():
    def body(b, A, C):
        buf = b.alloc(memref((128,), F32, 1), "tile")
        t = tags(b)
        b.dma_start(A, [7, 0], buf, [0], t, [0], 128)
        b.dma_wait(t, [0], 128)
    with pytest.raises(HazardError, match=r"source A\[7, 0\] runs outside memref<8x64xf32> at cycle 0: "
                                          r"the transfer \(1 chunk\(s\) of 128 elements, stride 128\) "
                                          r"reaches element \[8, 0\], index 8 of dimension 0"):
        run(build(body))


def test_strided_dma_row_spilling_past_its_row_is_out_of_bounds():
    def body(b, A, C):
        buf = b.alloc(memref((4, 32), F32, 1), "tile")
        t = tags(b)
        b.dma_start(A, [0, 80], buf, [0, 0], t, [0], 128, 100, 32)
        b.dma_wait(t, [0], 128)
    with pytest.raises(HazardError, match=r"reaches element \[0, 111\], index 111 of dimension 1 "
                                          r"not in \[0, 99\]"):
        run(build(body, shape=(100, 100)))


def test_dma_start_index_out_of_bounds():
    def body(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(A, [8, 0], buf, [0], t, [0], 64)
    with pytest.raises(HazardError, match=r"source A\[8, 0\] is outside memref<8x64xf32> \(A\): "
                                          r"index 8 of dimension 0 not in \[0, 7\]"):
        run(build(body))


def test_kernel_access_out_of_bounds():
    def kernel(b):
        with b.func("shift", private=True, buf=memref((64,), F32, 1)) as (buf,):
            for j in b.range(64):
                buf[j] = buf[j + 1]

    def body(b, A, C):
        b.call("shift", [sram(b)])
    with pytest.raises(HazardError, match=r"kernel @shift called at cycle 0: affine.load at .* "
                                          r"accesses buf\[64\] outside memref<64xf32, 1>"):
        run(build(body, kernel))


def test_triangular_kernel_inside_bounds_is_not_flagged():
    # interval arithmetic alone would flag buf[i - j] (box [-63, 63]); the exact check clears it
    def kernel(b):
        with b.func("tri", private=True, buf=memref((64,), F32, 1), out=memref((1,), F32, 1)) as (buf, out):
            for i in b.range(64):
                for j in b.range(i + 1):
                    out[0] = out[0] + buf[i - j]

    def body(b, A, C):
        b.call("tri", [sram(b), sram(b, 1, "out")])
    assert run(build(body, kernel), functional=False).cycles > 0


def test_sram_overflow_names_op_and_live_buffers():
    def body(b, A, C):
        b.alloc(memref((128, 256), F32, 1), "big")      # 128 KiB
        b.alloc(memref((100, 256), F32, 1), "bigger")   # 100 KiB
        b.alloc(memref((64, 256), F32, 1), "toomuch")   # 64 KiB > 28 KiB free
    with pytest.raises(CapacityError) as err:
        run(build(body))
    msg = str(err.value)
    assert "memref.alloc of toomuch (65536 B) at cycle 0 does not fit in SRAM: capacity 262144 B" in msg
    assert "live buffers: big (131072 B," in msg and "bigger (102400 B," in msg
    assert "test_hazards.py" in str(err.value.loc)


def test_dealloc_frees_capacity_and_dealloc_in_flight_is_a_hazard():
    def ok(b, A, C):
        for _ in range(4):
            x = b.alloc(memref((128, 256), F32, 1), "big")
            b.dealloc(x)
    assert run(build(ok)).sram_peak_bytes == 128 * 256 * 4

    def bad(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        b.dealloc(buf)
    with pytest.raises(HazardError, match=r"memref\.dealloc of buf at cycle 0 while a DMA into it"):
        run(build(bad))


def test_control_processor_load_during_dma_is_a_race():
    def body(b, A, C):
        buf, t = sram(b), tags(b)
        b.dma_start(A, [0, 0], buf, [0], t, [0], 64)
        C[0, 0] = buf[5]
        b.dma_wait(t, [0], 64)
    with pytest.raises(HazardError, match=r"affine.load reads buf element \[5\] at cycle 0"):
        run(build(body))


def test_strided_chunks_of_whole_rows_are_in_bounds():
    # 2 planes x (3 full rows of 10): chunks start at column 0 and cover whole rows
    b = Builder()
    with b.func("main", A=memref((2, 5, 10), F32)) as (A,):
        buf = b.alloc(memref((2, 30), F32, 1), "buf")
        t = tags(b)
        b.dma_start(A, [0, 0, 0], buf, [0, 0], t, [0], 60, 50, 30)
        b.dma_wait(t, [0], 60)
    A = np.arange(100, dtype=np.float32).reshape(2, 5, 10)
    r = simulate(b.module, CFG, inputs={"A": A})
    assert r.cycles > 0
