"""The opt-in on-disk object cache (ACCELSIM_JIT_CACHE): a second process-like compile of the
same module loads machine code instead of running LLVM, and the code still computes right."""

import os

import numpy as np

import workloads
from compiler.backend import CACHE, compile_module
from compiler.backend.jit import disk_cache


def test_disk_cache_stores_then_serves_machine_code(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELSIM_JIT_CACHE", str(tmp_path))
    w = workloads.get("gemm:M=12,N=9,K=7")
    cache = disk_cache()
    assert cache is not None and cache.directory == str(tmp_path)
    CACHE.clear()
    first = compile_module(w.module())
    assert cache.stores == 1 and len(os.listdir(tmp_path)) == 1
    assert not first._engines[True].from_cache
    CACHE.clear()  # as a fresh worker process would start
    second = compile_module(w.module())
    assert second._engines[True].from_cache and cache.hits == 1
    ins = w.random_inputs(1)
    ref = w.reference(ins)
    second.call("gemm", ins)
    np.testing.assert_allclose(ins["C"], ref["C"], rtol=w.rtol, atol=w.atol)
    CACHE.clear()


def test_unset_means_no_disk_cache(monkeypatch):
    monkeypatch.delenv("ACCELSIM_JIT_CACHE", raising=False)
    assert disk_cache() is None
