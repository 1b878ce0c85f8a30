"""`accelsim.simulate` on a module never compiled for the machine warns with the remedy and
takes `compile=True`; the documented recipes give the cycles of `accelsim run --target sim`."""

from __future__ import annotations

import warnings

import pytest

import accelsim
import workloads
from accelsim.api.entry import UncompiledModuleWarning, reads_slow_memory_directly

GEMM = "gemm:M=64,N=64,K=64"


def test_uncompiled_module_warns_with_the_remedy() -> None:
    cfg = accelsim.load_config("default")
    module = workloads.get(GEMM).module()
    assert reads_slow_memory_directly(module, cfg)
    with pytest.warns(UncompiledModuleWarning, match=r"accelsim\.run.*compile=True"):
        slow = accelsim.simulate(module, cfg, functional=False)
    # the warning is earned: as given, every access pays DRAM latency
    assert slow.cycles > 10 * accelsim.run(GEMM, timing_only=True).cycles


def test_compile_true_is_what_the_cli_runs() -> None:
    cfg = accelsim.load_config("default")
    module = workloads.get(GEMM).module()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a compiled module does not warn
        res = accelsim.simulate(module, cfg, functional=False, compile=True)
        again = accelsim.simulate(module, cfg, functional=False)  # now compiled: no warning
    assert not reads_slow_memory_directly(module, cfg)
    assert res.cycles == again.cycles == accelsim.run(GEMM, timing_only=True).cycles


def test_pipeline_docstring_recipe_matches_the_cli() -> None:
    """The first recipe of `accelsim.compile.pipeline`'s docstring (compile_for_accelerator,
    then simulate) gives the CLI's cycles; for_config alone is documented as another pipeline."""
    from accelsim.compile import pipeline
    from accelsim.compile.accelerator import compile_for_accelerator

    doc = pipeline.__doc__ or ""
    first = doc.index("compile_for_accelerator(cfg, module)")
    assert first < doc.index("AcceleratorPipeline.for_config(cfg)")
    assert "NOT what the CLI runs" in doc
    cfg = accelsim.load_config("default")
    module = workloads.get(GEMM).module()
    compile_for_accelerator(cfg, module)
    assert accelsim.simulate(module, cfg, functional=False).cycles == \
        accelsim.run(GEMM, timing_only=True).cycles
