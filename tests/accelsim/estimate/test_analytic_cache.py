"""The analytic program cache: clones hit, any structural change misses, results unchanged."""

import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.estimate.analytic import compiled_program, estimate
from accelsim.estimate.cache import structure_key
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineForOp
from compiler.transforms.outline_kernels import needs_outlining
from compiler.transforms.registry import PassManager
from workloads.dma_programs import tile_sum, tiled_gemm


def _compiled(spec, preset):
    cfg = load_config(preset)
    mod = workloads.get(spec).module()
    PassManager.from_flags(accelerator_pipeline(cfg).flags()).run(mod)
    return mod


def test_a_clone_reuses_the_compiled_program_on_every_config():
    mod = _compiled("gemm:M=64,N=48,K=80", "edge")
    first = {p: estimate(mod, p) for p in ("edge", "default", "server")}
    clone = mod.clone()
    assert compiled_program(clone) is compiled_program(mod)
    for p, est in first.items():
        again = estimate(mod.clone(), p)
        assert (again.cycles, again.dma_ops, again.kernel_calls) == (est.cycles, est.dma_ops,
                                                                     est.kernel_calls)
        assert again.cycles == simulate(mod.clone(), p, functional=False).cycles


def test_structural_changes_change_the_key():
    a, b = tile_sum(40, 256), tile_sum(40, 256)
    assert structure_key(a)[0] != structure_key(b)[0]  # equal text, other map objects: a miss
    c = a.clone()
    assert structure_key(a)[0] == structure_key(c)[0]
    loop = next(op for op in c.walk() if isinstance(op, AffineForOp))
    loop.step = 2
    assert structure_key(a)[0] != structure_key(c)[0]
    # the edited clone is estimated as what it now is, not from the cached original
    fresh = a.clone()
    next(op for op in fresh.walk() if isinstance(op, AffineForOp)).step = 2
    assert estimate(c, "default").cycles == estimate(fresh, "default").cycles != estimate(a, "default").cycles


@pytest.mark.parametrize("spec", ["gemm:M=48,N=40,K=56", "2mm:NI=20,NJ=24,NK=28,NL=18", "softmax:M=24,N=40",
                                  "jacobi-2d:N=30,T=2", "syrk:N=12,M=10"])
def test_needs_outlining_matches_its_definition(spec):
    def brute(module):
        return any(isinstance(op, AffineForOp) and not any(
            isinstance(o, AffineDmaStartOp | AffineDmaWaitOp) for o in op.walk())
            for f in module.funcs if not (f.private or f.is_declaration) for op in f.walk())

    for mod in (workloads.get(spec).module(), _compiled(spec, "default"), tiled_gemm(64, 64, 64, 32)):
        assert needs_outlining(mod) == brute(mod)


# every workload at its default size (syrk smaller), as in bench_sim section 3, plus small sizes
_SPECS = [*(n if n != "syrk" else "syrk:N=96,M=80" for n in workloads.names()),
          "gemm:M=48,N=40,K=56", "atax:M=39,N=41", "syrk:N=12,M=10"]


@pytest.mark.parametrize("preset", ["edge", "default", "server"])
@pytest.mark.parametrize("spec", _SPECS)
def test_nests_costed_in_place_equal_outlined_kernels(spec, preset):
    """The estimate costs loop nests where they are (no outlining); the event run outlines.
    Both must see the same kernels: every figure equal, and the module left as it was."""
    from compiler.transforms.outline_kernels import ensure_outlined

    mod = _compiled(spec, preset)
    before = structure_key(mod)[0]
    inline = estimate(mod, preset)
    assert structure_key(mod)[0] == before
    outlined = ensure_outlined(mod.clone())
    ref = estimate(outlined, preset)
    assert (inline.cycles, inline.dma_ops, inline.kernel_calls, inline.dram_bytes, inline.compute_cycles) == \
        (ref.cycles, ref.dma_ops, ref.kernel_calls, ref.dram_bytes, ref.compute_cycles)
    assert inline.cycles == simulate(mod, preset, functional=False).cycles
