"""The race proof on the pipeline's output after `outline-kernels` (what the simulator runs:
kernels as `func.call`s): each call counts for what its kernel touches, so the outlined
program has the verdict of the program before outlining — race-free as compiled, racy with a
`dma_wait` taken out."""

from __future__ import annotations

import pytest

import workloads
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clone import clone_module
from accelsim.compile.race_check import first_race
from accelsim.config import load_config
from compiler.analysis.races import Race, check_races
from compiler.ir.ops import AffineDmaWaitOp, AffineLoadOp, AffineStoreOp, ModuleOp
from compiler.transforms.outline_kernels import ensure_outlined

CASES = [("gemm:M=48,N=40,K=56", "default"), ("gemm:M=48,N=40,K=56", "three_level"),
         ("2mm:NI=24,NJ=32,NK=16,NL=24", "default"), ("softmax:M=64,N=32", "default")]


def _compiled(spec: str, preset: str) -> ModuleOp:
    m = workloads.get(spec).module()
    compile_for_accelerator(load_config(preset), m)
    return m


def _calls(m: ModuleOp) -> int:
    return sum(1 for f in m.funcs for o in f.walk() if o.NAME == "func.call")


@pytest.mark.parametrize("spec,preset", CASES)
def test_the_outlined_pipeline_output_is_proven_race_free(spec: str, preset: str) -> None:
    m = ensure_outlined(_compiled(spec, preset))
    assert _calls(m) > 0
    race = first_race(m)
    assert race is None, race.message


def _waits(m: ModuleOp) -> list[AffineDmaWaitOp]:
    return [o for f in m.funcs for o in f.walk() if isinstance(o, AffineDmaWaitOp)]


def _races(m: ModuleOp) -> list[Race]:
    return [r for f in m.funcs if not f.is_declaration
            for r in check_races(f, first_only=False).races]


@pytest.mark.parametrize("spec,preset", CASES)
def test_a_wait_taken_out_races_with_the_kernel_call(spec: str, preset: str) -> None:
    compiled = _compiled(spec, preset)
    for k in range(len(_waits(compiled))):
        m = clone_module(compiled)
        _waits(m)[k].erase()
        # a wait whose removal lets a kernel's load or store race (not only a later DMA)
        race = next((r for r in _races(m) if isinstance(r.op, AffineLoadOp | AffineStoreOp)), None)
        if race is not None:
            break
    else:
        pytest.fail("no wait whose removal makes a kernel access race")
    ensure_outlined(m)
    assert _calls(m) > 0
    races = _races(m)
    assert any(r.op.NAME == "func.call" and r.buffer == race.buffer for r in races), \
        [r.message for r in races]
