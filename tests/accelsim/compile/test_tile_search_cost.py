"""The tile search's compile cost against its reference path (issue 18).

The search's shortcuts must not change what it chooses or what it compiles: replays stopped
once they cannot give a finalist, each finalist verified once after its passes instead of
after every pass, `copy_in_needed`'s first-access test before the isl dataflow, the copy pass
reusing the regions `exceeds_capacity` computed for the loop it then copies. Differential: on
a few workloads (ResNet convolutions, gemms) the search with them and with all switched off
(the code before them) gives the same pipeline, estimate, finalist count and compiled module
text; and it compiles no more than it must: tile + copy once per distinct tiling among the
finalists, the rest of the pipeline once per finalist, the verifier once per finalist.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import workloads
from accelsim import load_config
from accelsim.compile.pipeline import COPY
from accelsim.compile.tile_search import search
from compiler.text.printer import print_module

WORKLOADS = [
    "conv2d:N=1,C=64,H=58,W=58,K=64,R=3,S=3,stride=1",     # ResNet-18, 3 finalists
    "conv2d:N=1,C=128,H=27,W=27,K=256,R=1,S=1,stride=2",   # ResNet-18's 1x1 downsample
    "gemm:M=1000,N=1,K=512",                                # the classifier
    "gemm:M=128,N=96,K=64",
]


class _Count:
    def __init__(self) -> None:
        self.heads: list[str] = []  # pass lists run that hold the copy pass (with options)
        self.tails = 0                          # pass lists run after it
        self.verifies = 0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Count]:
    """Counts the search's pass-manager runs and verifier calls."""
    import compiler.ir.verifier as verifier
    import compiler.transforms.registry as registry

    count = _Count()
    real_run = registry.PassManager.run
    real_verify = verifier.verify

    def run(self: Any, module: Any) -> Any:
        names = tuple(p.name for p in self.passes)
        if COPY in names:
            count.heads.append(repr([(p.name, p.options) for p in self.passes]))
        elif names and "affine-producer-consumer-fusion" not in names \
                and "affine-loop-fusion" not in names:
            count.tails += 1
        return real_run(self, module)

    def verify(module: Any) -> Any:
        count.verifies += 1
        return real_verify(module)

    monkeypatch.setattr(registry.PassManager, "run", run)
    monkeypatch.setattr(verifier, "verify", verify)
    yield count


def _reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path before the shortcuts: verify after every pass, the full dataflow for every
    copy-in question, regions computed anew for every range."""
    import accelsim.compile.tile_search as tile_search
    import compiler.analysis.exposed as exposed
    import compiler.transforms.registry as registry
    from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass

    monkeypatch.setattr(tile_search, "PRUNE_REPLAYS", False)
    monkeypatch.setattr(exposed, "_first_access_reads", lambda *_: False)
    real_init = registry.PassManager.__init__

    def init(self: Any, passes: Any, verify_each: bool = True) -> None:
        real_init(self, passes, True)

    monkeypatch.setattr(registry.PassManager, "__init__", init)
    real_exceeds = AffineDataCopyGeneratePass.exceeds_capacity

    def exceeds(self: Any, loop: Any) -> bool:
        out = real_exceeds(self, loop)
        self._regions_of = None
        return out

    monkeypatch.setattr(AffineDataCopyGeneratePass, "exceeds_capacity", exceeds)


def _found(spec: str) -> tuple[Any, tuple[int, int] | None, str]:
    found = search(workloads.get(spec).module(), load_config("default"))
    assert found is not None and found.compiled is not None
    c = found.choice
    return found.pipeline, None if c is None else (c.estimated_cycles, c.evaluated), \
        print_module(found.compiled)


@pytest.mark.parametrize("spec", WORKLOADS)
def test_search_compiles_each_finalist_once_and_verifies_it_once(counted: _Count, spec: str) -> None:
    found = search(workloads.get(spec).module(), load_config("default"))
    assert found is not None and found.choice is not None
    finalists = found.choice.evaluated
    assert counted.tails == finalists
    assert len(counted.heads) <= finalists
    assert len(set(counted.heads)) == len(counted.heads)  # no tiling tiled and copied twice
    assert counted.verifies == finalists


@pytest.mark.parametrize("spec", WORKLOADS)
def test_search_chooses_and_compiles_as_the_reference_path(monkeypatch: pytest.MonkeyPatch,
                                                           spec: str) -> None:
    fast = _found(spec)
    with monkeypatch.context() as m:
        _reference(m)
        ref = _found(spec)
    assert fast[0] == ref[0]  # the pipeline: tiles, copy capacity, stages
    assert fast[1] == ref[1]  # the winner's analytic estimate, the finalists compiled
    assert fast[2] == ref[2]  # the compiled module, op for op


@pytest.mark.parametrize("spec", [*WORKLOADS[:2], "gemm:M=128,N=784,K=512"])
def test_a_replay_stopped_at_a_cutoff_would_have_ended_above_it(spec: str) -> None:
    """`replay(..., cutoff)` is the full replay, or None only where the full one ends above
    the cutoff; and it does stop early where the cutoff is well below the end."""
    from accelsim.compile.band import band_of
    from accelsim.compile.pipeline import AcceleratorPipeline
    from accelsim.compile.tile_model import TileModel
    from accelsim.compile.tile_replay import replay
    from accelsim.compile.tile_search import _candidates

    cfg = load_config("default")
    band = band_of(workloads.get(spec).module().funcs[0])
    assert band is not None
    model = TileModel(band, cfg.bandwidth_view())
    cands = _candidates(band, model, AcceleratorPipeline.for_config(cfg), cfg)[:12]
    stopped = 0
    for c in cands:
        full = replay(model, c.schedule)
        assert full is not None
        for cutoff in (full // 2, full - 1, full, full * 1.02):
            got = replay(model, c.schedule, cutoff)
            assert got == full or (got is None and full > cutoff), (cutoff, full, got)
            stopped += got is None
    assert stopped >= len(cands)  # at least the cutoff at half the end stops every one
