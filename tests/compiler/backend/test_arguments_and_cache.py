"""Argument checking at the Python boundary, aliasing, and the compile cache."""

import numpy as np
import pytest

from compiler.backend import CACHE, ArgumentError, compile_module, random_inputs, run_host, structural_hash
from compiler.ir import F32, F64, I32, Builder, memref


def saxpy(n: int = 16, a: float = 2.0, names=("x", "y")):
    b = Builder()
    with b.func("saxpy", **{names[0]: memref((n,), F32), names[1]: memref((n,), F32)}) as (x, y):
        for i in b.range(n):
            y[i] = x[i] * a + y[i]
    return b.module


def shift():
    b = Builder()
    with b.func("shift", a=memref((64,), F32), c=memref((64,), F32)) as (a, c):
        for i in b.range(63):
            c[i + 1] = a[i]
    return b.module


@pytest.fixture
def compiled():
    return compile_module(saxpy())


def _raises(compiled, args, *fragments):
    with pytest.raises(ArgumentError) as info:
        compiled.call("saxpy", args)
    for f in fragments:
        assert f in str(info.value)


def test_wrong_dtype_names_the_argument(compiled):
    _raises(compiled, {"x": np.zeros(16, np.float64), "y": np.zeros(16, np.float32)},
            "'x'", "float32", "float64")


def test_wrong_shape_names_the_argument(compiled):
    _raises(compiled, {"x": np.zeros(16, np.float32), "y": np.zeros(15, np.float32)}, "'y'", "16", "15")
    _raises(compiled, {"x": np.zeros((4, 4), np.float32), "y": np.zeros(16, np.float32)}, "'x'", "4x4")


def test_non_contiguous_and_read_only_are_refused(compiled):
    _raises(compiled, {"x": np.zeros(32, np.float32)[::2], "y": np.zeros(16, np.float32)},
            "'x'", "C-contiguous")
    y = np.zeros(16, np.float32)
    y.flags.writeable = False
    _raises(compiled, {"x": np.zeros(16, np.float32), "y": y}, "'y'", "read-only")
    x = np.zeros(16, np.float32)
    x.flags.writeable = False  # only read: fine
    compiled.call("saxpy", {"x": x, "y": np.zeros(16, np.float32)})


def test_missing_extra_and_positional_keys(compiled):
    _raises(compiled, {"x": np.zeros(16, np.float32)}, "missing", "'y'")
    _raises(compiled, {"x": np.zeros(16, np.float32), "y": np.zeros(16, np.float32), "z": 1}, "'z'")
    _raises(compiled, [np.zeros(16, np.float32)], "2 arguments", "got 1")
    _raises(compiled, {"x": np.zeros(16, np.float32), "arg0": np.zeros(16, np.float32),
                       "y": np.zeros(16, np.float32)}, "twice")
    x, y = np.ones(16, np.float32), np.ones(16, np.float32)
    compiled.call("saxpy", {"arg0": x, "arg1": y})
    np.testing.assert_array_equal(y, 3.0)
    with pytest.raises(ArgumentError, match="no function @nope"):
        compiled.call("nope", [x, y])
    with pytest.raises(ArgumentError, match="numpy array"):
        compiled.call("saxpy", [[1.0] * 16, y])


def test_overlapping_arrays_use_the_alias_safe_variant():
    """c[i+1] = a[i] with a is c: sequential semantics smear a[0] over the whole array."""
    compiled = compile_module(shift())
    buf = np.arange(64, dtype=np.float32)
    compiled.call(None, [buf, buf])
    np.testing.assert_array_equal(buf, np.zeros(64, np.float32))
    a = np.arange(64, dtype=np.float32)
    c = np.zeros(64, np.float32)
    compiled.call(None, [a, c])
    np.testing.assert_array_equal(c[1:], a[:-1])
    assert "noalias" in compiled.optimized_ir(True) and "noalias" not in compiled.optimized_ir(False)


def test_fast_math_is_off_by_default_and_opt_in():
    assert "fast" not in compile_module(saxpy()).optimized_ir().split("attributes")[0].replace("fastcc", "")
    fast = compile_module(saxpy(), fast_math=True)
    assert " fast " in fast.optimized_ir() or "reassoc" in fast.optimized_ir()


def test_same_module_compiles_once_and_names_do_not_matter():
    CACHE.clear()
    first = compile_module(saxpy())
    assert compile_module(saxpy()) is first  # a rebuilt, equal module
    renamed = compile_module(saxpy(names=("p", "q")))  # equal but for the argument names
    assert renamed._engines is first._engines and renamed._natives is first._natives
    assert CACHE.info().misses == 1 and CACHE.info().hits == 2
    assert structural_hash(saxpy()) == structural_hash(saxpy(names=("u", "v")))
    # each sees its own names
    out = run_host(saxpy(names=("p", "q")), {"p": np.ones(16, np.float32), "q": np.ones(16, np.float32)})
    np.testing.assert_array_equal(out["q"], 3.0)
    assert set(run_host(saxpy(), {"x": out["p"], "y": out["q"]})) == {"x", "y"}


@pytest.mark.parametrize("other", [lambda: saxpy(n=17), lambda: saxpy(a=3.0), lambda: saxpy(a=2.0000001),
                                   shift],
                         ids=["size", "constant", "last-bit", "kernel"])
def test_different_modules_hash_differently(other):
    assert structural_hash(other()) != structural_hash(saxpy())


def test_operand_wiring_is_part_of_the_hash():
    def build(swap: bool):
        b = Builder()
        with b.func("k", x=memref((4,), F32), y=memref((4,), F32)) as (x, y):
            for i in b.range(4):
                y[i] = x[i] - y[i] if not swap else y[i] - x[i]
        return b.module
    assert structural_hash(build(False)) != structural_hash(build(True))


def test_compiled_functions_are_cached_per_module(compiled):
    x, y = np.ones(16, np.float32), np.ones(16, np.float32)
    compiled.call("saxpy", [x, y])
    native = compiled._natives[("saxpy", True)]
    compiled.call("saxpy", [x, y])
    assert compiled._natives[("saxpy", True)] is native


def test_random_inputs_are_seeded_and_typed():
    b = Builder()
    with b.func("k", a=memref((5, 3), F64), m=memref((4,), I32), s=F32) as (a, _m, _s):
        a[0, 0] = a[0, 0]
    f = b.module.funcs[0]
    one, two, other = random_inputs(f, 1), random_inputs(f, 1), random_inputs(f, 2)
    assert set(one) == {"a", "m", "s"}
    assert one["a"].dtype == np.float64 and one["a"].shape == (5, 3) and one["m"].dtype == np.int32
    assert ((one["a"] >= -1) & (one["a"] < 1)).all() and (np.abs(one["m"]) <= 8).all()
    np.testing.assert_array_equal(one["a"], two["a"])
    assert not np.array_equal(one["a"], other["a"])


def test_run_host_copies_inputs_and_returns_every_memref():
    m = saxpy()
    ins = {"x": np.ones(16, np.float32), "y": np.full(16, 5.0, np.float32)}
    out = run_host(m, ins)
    np.testing.assert_array_equal(out["y"], 7.0)
    np.testing.assert_array_equal(ins["y"], 5.0)
    assert set(out) == {"x", "y"}
    out2 = run_host(m, {"arg0": ins["x"], "arg1": ins["y"]})
    assert set(out2) == {"x", "y"}


def test_written_names_win_over_positions():
    """Arguments written as %arg1, %arg0 (swapped): "arg0" means the one named arg0."""
    m = saxpy(names=("arg1", "arg0"))  # y (written) is named arg0 and sits at position 1
    out = run_host(m, {"arg1": np.full(16, 2.0, np.float32), "arg0": np.ones(16, np.float32)})
    np.testing.assert_array_equal(out["arg0"], 5.0)
    np.testing.assert_array_equal(out["arg1"], 2.0)


def test_several_entry_functions_need_a_name():
    b = Builder()
    with b.func("f", x=memref((4,), F32)) as (x,):
        x[0] = 1.0
    with b.func("g", x=memref((4,), F32)) as (x,):
        x[0] = 2.0
    compiled = compile_module(b.module)
    x = np.zeros(4, np.float32)
    with pytest.raises(ArgumentError, match=r"several entry functions \(@f, @g\)"):
        compiled.call(None, [x])
    compiled.call("g", [x])
    assert x[0] == 2.0
