"""The fused schedule: consecutive layers run as one program, their intermediates on chip.

A *fused group* is a run of consecutive layers compiled and simulated as ONE module: one
function holding every kernel of the group in order, the kernels connected through memrefs
(`accelsim.network.links`). An intermediate the on-chip level holds whole (with room left for
the kernels' own tiles) is a `memref.alloc` in the fast memory space, allocated before its
producer and freed after its consumer; any other goes through DRAM (an alloc in the slow
space) and the group's inputs, weights and outputs are the function's arguments. A
convolution whose input has a zero border (a topology's padded input) reads the producer's
output written into the interior of its padded buffer: the producer's stores are shifted, an
output feeding a consumer of another shape is reshaped by its accesses' maps.

Each kernel is compiled by the accelerator pipeline (`accelsim.compile.accelerator`: the tile
search, fusion, copies, pipelining, with its race proof), its on-chip operands already in the
fast space so no copy moves them, the search given the capacity the resident intermediates
leave; the compiled kernels are then placed in the group's function and the whole program is
proven race-free again (`compiler.analysis.races`) before `accelsim.api.run_program` simulates
it (the program as written, uncompiled, gives its compulsory traffic).

Grouping runs over consecutive layers: from each layer, the run of layers whose links fit on
chip (whole, or as bands of rows: `accelsim.network.depthfirst`, a group whose intermediate
is too large for the level computed depth-first) is estimated longest first, then half as
long, then the shortest, and the first whose analytic estimate is no slower than
layer-by-layer's and moves fewer DRAM bytes is kept; every group the schedule keeps passes that
test, so the fused schedule is never slower than layer-by-layer by the estimate. Where none
passes, a chain that starts there and can be cut into chunks (`accelsim.network.chunked`: a
transformer's feed-forward block along its hidden dimension, its attention by heads) is
estimated the same way, except that it may spend the cycles the groups kept before it saved
against layer-by-layer (the kept groups together are still no slower than layer-by-layer on
their layers, so neither is the network). Layers no group takes run as layer-by-layer runs
them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TextIO

from accelsim.network.group_model import (
    MIN_TILE_KIB,
    RESIDENT_SHARE,
    Group,
    GroupProgram,
    _accumulates,
    _capacity,
    _fast_bytes,
    _Plan,
    _retype,
    _unique,
    entry_func,
    inline_entry,
    renamed_clone,
    zero_fill,
)
from accelsim.network.links import Link, flat_kernels, kernel_args, links
from accelsim.network.model import Layer, Network
from accelsim.network.results import LayerResult, NetworkResult, layer_figures

if TYPE_CHECKING:
    from accelsim.config import HardwareConfig
    from accelsim.network.group_memo import CandidateMemo
    from compiler.ir.ops import ModuleOp

# an intermediate stays on chip when it takes at most this share of the fast level, and the
# intermediates resident while one kernel runs at most RESIDENT_SHARE (the rest: its tiles)
LINK_SHARE = 0.75
MAX_GROUP = 16       # the most layers one group takes (each candidate is compiled and estimated)
PEAK_HEADROOM = 1.05  # a banded candidate whose layers run this close to peak is not compiled


@dataclass
class GroupRun:
    group: Group
    figures: dict[str, Any]
    onchip_peak_bytes: int
    compile_seconds: float


def run_fused(network: Network, config: str = "default", hardware: Mapping[str, Any] | None = None,
              fidelity: str = "event", workers: int | None = None, progress: bool | TextIO = True,
              time_limit_s: float | None = None,
              layer_by_layer: NetworkResult | None = None) -> NetworkResult:
    """The fused schedule of `network` on `config` (timing only): groups chosen by the
    analytic estimate, each run at `fidelity`, the other layers as layer-by-layer runs them.
    `layer_by_layer`: the layer-by-layer analytic estimate when the caller has it."""
    from accelsim.config import load_config
    from accelsim.network.timing import run_timing

    start = time.perf_counter()
    cfg = load_config(config).with_overrides(dict(hardware or {}))
    kw = {"workers": workers, "progress": progress, "time_limit_s": time_limit_s}
    base_est = layer_by_layer or run_timing(network, config, hardware, "analytic", **kw)
    base = base_est if fidelity == "analytic" else run_timing(network, config, hardware, fidelity, **kw)
    why = unsupported(cfg)
    groups: list[GroupRun] = []
    if why is None:
        from accelsim.compile import compile_cache

        plan = _Plan(network, cfg, flat_kernels(network), {ln.producer: ln for ln in links(network)})
        # a candidate's kernels compile under the content cache, as a layer-by-layer run's do:
        # a kernel (and a group's race proof) compiled once, by this run or an earlier one, is
        # not compiled again
        with compile_cache.enabled():
            chosen = choose_groups(plan, base_est)
            groups = [g if fidelity == "analytic" else run_group(plan, g.group, fidelity)
                      for g in chosen]
    result = assemble(network, base, groups, cfg)
    meta = dict(result.meta)
    meta.update(wall_seconds=time.perf_counter() - start, fused_groups=len(groups))
    if why is not None:
        meta["fused_note"] = why
    return replace(result, meta=meta)


def unsupported(cfg: HardwareConfig) -> str | None:
    """Why this machine runs no fused group (None: it can)."""
    if cfg.clusters > 1:
        return "fused groups run on one cluster; many clusters: layer by layer"
    if len(cfg.memory_chain()) != 2:
        return "fused groups need one on-chip level (DRAM -> SRAM); memory levels: layer by layer"
    return None


# -------------------------------------------------------------------------------------------
# grouping

def choose_groups(plan: _Plan, base: NetworkResult) -> list[GroupRun]:
    """Over consecutive layers (module docstring): from each layer, the runs of layers that
    form a group with an intermediate on chip (whole or as bands), at most `MAX_GROUP`
    layers; the longest is estimated first, then one half as long, then the shortest; the
    first whose estimate is no slower than layer-by-layer's and moves fewer DRAM bytes is
    kept. When none is, the chunked groups from that layer (`accelsim.network.chunked`: a
    feed-forward or attention chain cut along its hidden dimension or heads), widest chunk
    first, under the same test."""
    from accelsim.network.group_memo import new_memo

    layers = plan.network.layers
    memo = new_memo()   # a structurally identical candidate evaluated once (`group_memo`)
    kept: list[GroupRun] = []
    saved = 0   # cycles the kept groups take fewer than layer-by-layer on their layers
    i = 0
    while i < len(layers):
        best: GroupRun | None = None
        lasts: list[int] = []
        if _group(plan, i, i).onchip and _valid(plan, i, i):  # links inside one layer (pad -> conv)
            lasts.append(i)
        last = i
        while last + 1 < len(layers) and last + 1 - i < MAX_GROUP \
                and _joinable(plan, last, last + 1) and _valid(plan, i, last + 1):
            if not _group(plan, i, last + 1).onchip:
                break
            last += 1
            lasts.append(last)
        tries = list(dict.fromkeys([*lasts[-1:], *lasts[len(lasts) // 2: len(lasts) // 2 + 1],
                                    *lasts[:1]]))
        for cand in tries:
            best = _pays(plan, _group(plan, i, cand), base, memo=memo)
            if best is not None:
                break
        if best is None:   # a feed-forward or attention chain cut into chunks: it may spend
            for chunked in _chunked(plan, i):   # the cycles the groups before it saved
                best = _pays(plan, chunked, base, slack=max(0, saved), memo=memo)
                if best is not None:
                    break
        if best is not None:
            kept.append(best)
            saved += sum(int(base.layers[j].figures["cycles"]) for j in best.group.layers) \
                - int(best.figures["cycles"])
            i = best.group.last + 1
        else:
            i += 1
    return kept


def _chunked(plan: _Plan, i: int) -> list[Group]:
    """The chunked groups from layer i (`accelsim.network.chunked`), when they are closed."""
    from accelsim.network.chunked import chunk_groups

    return [g for g in chunk_groups(plan, i) if _valid(plan, g.first, g.last)]


def _closed(plan: _Plan, first: int, last: int) -> bool:
    """No kernel of layers first..last reads a tensor an earlier kernel of them writes other
    than through their link (a model's named tensors: it would read it before the group
    wrote it back)."""
    from accelsim.network.links import _views

    alias = _views(plan.network)
    ks = plan.kernels_of(first, last)
    written: dict[str, int] = {}
    for q in ks:
        k = plan.flat[q][1]
        ln = plan.links.get(q - 1)
        for arg, t in k.reads:
            p = written.get(alias.get(t, t))
            if p is not None and not (ln is not None and ln.producer == p and ln.in_arg == arg):
                return False
        for _, t in k.writes:
            written[alias.get(t, t)] = q
    return True


def _joinable(plan: _Plan, a: int, b: int) -> bool:
    """Layer b can join a group ending with layer a: a link from a's last kernel to b's first
    kernel (views between are free) that fits on chip."""
    ka, kb = plan.kernels_of(a, a), plan.kernels_of(b, b)
    if not ka or not kb:
        return bool(not kb)  # a view layer joins anything
    from accelsim.network.depthfirst import view

    ln = plan.links.get(ka[-1])
    return ln is not None and ln.consumer == kb[0] and (_fits(plan, ln) or view(plan, ln) is not None)


def _valid(plan: _Plan, first: int, last: int) -> bool:
    return _closed(plan, first, last)


def _fits(plan: _Plan, ln: Link) -> bool:
    return ln.nbytes <= LINK_SHARE * _capacity(plan.config)


def _group(plan: _Plan, first: int, last: int) -> Group:
    """Layers first..last with every inner link on chip where it fits and the kernel between
    two on-chip links keeps room for its tiles; the others through DRAM (made once per plan)."""
    if (first, last) not in plan.groups:
        plan.groups[(first, last)] = _make_group(plan, first, last)
    return plan.groups[(first, last)]


def _make_group(plan: _Plan, first: int, last: int) -> Group:
    ks = plan.kernels_of(first, last)
    cap = _capacity(plan.config)
    onchip: list[Link] = []
    dram: list[Link] = []
    prev: Link | None = None
    for p in ks[:-1]:
        ln = plan.links.get(p)
        if ln is None:
            prev = None
            continue
        resident = ln.nbytes + (prev.nbytes if prev is not None and prev.consumer == p else 0)
        if _fits(plan, ln) and resident <= RESIDENT_SHARE * cap:
            onchip.append(ln)
            prev = ln
        else:
            dram.append(ln)
            prev = None
    whole = Group(first, last, tuple(onchip), tuple(dram))
    if not dram:
        return whole
    return _banded(plan, ks) or whole


def _banded(plan: _Plan, ks: list[int]) -> Group | None:
    """Kernels `ks` as a depth-first group (every link on chip as a band of rows), when they
    are one chain the transform can band and some band fits (`band_budget.band_plan`)."""
    from accelsim.network.band_budget import band_plan

    chain = [plan.links.get(p) for p in ks[:-1]]
    if not ks or any(ln is None for ln in chain):
        return None
    li = plan.flat[ks[0]][0], plan.flat[ks[-1]][0]
    group = Group(li[0], li[1], tuple(ln for ln in chain if ln is not None), ())
    if plan.kernels_of(*li) != ks:
        return None
    h = band_plan(plan, group)
    return None if h is None else replace(group, band_rows=h)


def _pays(plan: _Plan, group: Group, base: NetworkResult, slack: int = 0,
          memo: CandidateMemo | None = None) -> GroupRun | None:
    """The group's analytic run when it is no slower than layer-by-layer's estimate of its
    layers (plus `slack` cycles) and moves fewer DRAM bytes; else None (also when a kernel
    does not compile with the capacity its residents leave). A banded group is tried with its
    weights held on chip first (where any fit, `depthfirst.stationary`), then streamed by
    every band. `memo`: evaluations of structurally identical candidates (`group_memo`)."""
    from compiler.diagnostics import AccelsimError

    if not group.onchip:
        return None
    rows = [base.layers[i].figures for i in group.layers]
    cycles = sum(int(f["cycles"]) for f in rows)
    dram = sum(int(f["dram_bytes"] or 0) for f in rows)
    if not group.band_rows:
        try:
            return _run_if_pays(plan, group, cycles, dram, slack, memo)
        except AccelsimError:
            return None
    if _at_peak(plan, group, cycles):
        return None
    if memo is not None:   # a repeat: the variants, floors and runs of its first evaluation
        return memo.banded(plan, group, cycles, dram, lambda: _pays_banded(plan, group, dram, cycles, memo))
    return _pays_banded(plan, group, dram, cycles, None)


def _pays_banded(plan: _Plan, group: Group, dram: int, cycles: int,
                 memo: CandidateMemo | None) -> GroupRun | None:
    """`_pays` of a banded group: its variants in order, each refused by its floor or run."""
    from compiler.diagnostics import AccelsimError

    for variant in _variants(plan, group):
        try:
            if not _floor_loses(plan, variant, dram):
                run = _run_if_pays(plan, variant, cycles, dram, memo=memo)
                if run is not None:
                    return run
        except AccelsimError:
            # a band kernel that does not compile, streamed: the weights were not the cause
            if not variant.weights_onchip:
                return None
    return None


def _variants(plan: _Plan, group: Group) -> list[Group]:
    """A banded group with its weights held on chip, in the tallest band that leaves room for
    all of them (when one does), then streamed by every band."""
    from accelsim.network.band_budget import band_plan
    from accelsim.network.depthfirst import NotBandable, full_layout, weights

    try:
        h = band_plan(plan, group, sum(weights(plan, full_layout(plan, group)).values()))
    except NotBandable:
        h = None
    if h is None:
        return [group]
    return [replace(group, band_rows=h, weights_onchip=True), group]


def _run_if_pays(plan: _Plan, group: Group, cycles: int, dram: int,
                 slack: int = 0, memo: CandidateMemo | None = None) -> GroupRun | None:
    """The group's analytic run when it pays (`_pays`); its estimate and run taken from
    `memo` when a structurally identical candidate was evaluated before (an error too)."""
    from accelsim.compile import compile_cache
    from accelsim.network.group_memo import Evaluation
    from compiler.diagnostics import AccelsimError

    ev = Evaluation() if memo is None else memo.evaluation(plan, group)
    if ev.error is not None:
        raise ev.error
    try:
        # the compiled program's estimate first: a group that does not pay is refused before
        # its race proof and the compulsory traffic of its source (only an output is proven)
        if ev.estimate is None:
            plan.programs[group] = program_of_group(plan, group)
            est = compile_cache.estimated(plan.programs[group].compiled, plan.config, "group")
            ev.estimate = (int(est.cycles), int(est.dram_bytes))
        if ev.estimate[0] > cycles + slack or ev.estimate[1] >= dram:
            return None
        if ev.run is None:
            ev.run = run_group(plan, group, "analytic")
    except AccelsimError as e:
        ev.error = e
        raise
    finally:
        plan.programs.pop(group, None)
    run = ev.run if ev.run.group == group else replace(ev.run, group=group)
    ok = run.figures["cycles"] <= cycles + slack and int(run.figures.get("dram_bytes") or 0) < dram
    return run if ok else None


def _floor_loses(plan: _Plan, group: Group, dram: int) -> bool:
    """Whether the banded group's closed-form floor of DRAM bytes (`band_budget.bytes_floor`)
    is already no fewer than layer-by-layer's `dram`: it cannot pay, so it is not compiled."""
    from accelsim.network.band_budget import bytes_floor
    from accelsim.network.depthfirst import NotBandable

    try:
        return bytes_floor(plan, group) >= dram
    except NotBandable:
        return True


def _at_peak(plan: _Plan, group: Group, cycles: int) -> bool:
    """Whether layer-by-layer already runs the group's layers within `PEAK_HEADROOM` of the
    MAC array's peak: banding them cannot be faster (it adds the bands' DMA waits and window
    moves), so the candidate is not compiled."""
    from accelsim.report.roofline import peak_compute_cycles

    macs = sum(plan.network.layers[i].macs for i in group.layers)
    return cycles <= PEAK_HEADROOM * peak_compute_cycles(plan.config, macs, 0, 0)


# -------------------------------------------------------------------------------------------
# one group as one program

def run_group(plan: _Plan, group: Group, fidelity: str) -> GroupRun:
    """Compile, prove race-free and simulate `group` at `fidelity` (timing only)."""
    from accelsim.api.program import program_of_module
    from accelsim.api.program_run import RunOptions, run_program
    from accelsim.compile import compile_cache
    from accelsim.compile.race_check import first_race
    from accelsim.dse.evaluate import estimate_figures, report_figures
    from accelsim.errors import CompilerBugError

    t0 = time.perf_counter()
    gp = program_of_group(plan, group)
    source, compiled, peak = gp.source, gp.compiled, gp.peak
    if not compile_cache.proven_race_free(compiled):  # a group of this content: proven once
        race = first_race(compiled)
        if race is not None:
            raise CompilerBugError(f"fused group {_name(plan.network, group)}: race: {race.message}",
                                   race.loc)
        compile_cache.record_race_free(compiled)
    compile_s = time.perf_counter() - t0
    program = program_of_module(source, "group", source=_name(plan.network, group))
    run = run_program(program, plan.config, None, RunOptions(fidelity=fidelity, timing_only=True),
                      compiled=compiled)
    if fidelity == "analytic":
        assert run.estimate is not None
        figures = estimate_figures(run.estimate, run.compulsory)
    else:
        figures = report_figures(run.report)
    return GroupRun(group, figures, peak, compile_s)


def program_of_group(plan: _Plan, group: Group) -> GroupProgram:
    """The group as one program: whole intermediates (`group_modules`) or depth-first bands
    (`depthfirst.banded_modules`) or hidden-dimension chunks (`chunked.chunked_modules`); the one
    the grouping built while it looked at the group."""
    if group in plan.programs:
        return plan.programs[group]
    if group.chunk:
        from accelsim.network.chunked import chunked_modules

        return chunked_modules(plan, group)
    if group.band_rows:
        from accelsim.network.depthfirst import banded_modules

        return banded_modules(plan, group)
    return group_modules(plan, group)


def group_modules(plan: _Plan, group: Group) -> GroupProgram:
    """The group of whole intermediates as one program (`GroupProgram`)."""
    ks = plan.kernels_of(group.first, group.last)
    into = {ln.consumer: ln for ln in (*group.onchip, *group.dram)}
    out_of = {ln.producer: ln for ln in (*group.onchip, *group.dram)}
    onchip = {ln.producer for ln in group.onchip}
    fast = plan.config.spaces.sram
    written, compiled = [], []
    peak = 0
    for p in ks:
        lin, lout = into.get(p), out_of.get(p)
        on_in = lin is not None and lin.producer in onchip
        on_out = lout is not None and p in onchip
        resident = (lin.nbytes if on_in and lin else 0) + (lout.nbytes if on_out and lout else 0)
        key = (plan.flat[p][1].workload, lin and (lin.in_arg, on_in),
               lout and (lout.out_arg, _consumer_shape(plan, lout), lout.pad, on_out), resident)
        if key not in plan.compiled:
            plan.compiled[key] = _compile_kernel(plan, p, lin, lout, on_in, on_out, resident, fast)
        src, done, own = plan.compiled[key]
        written.append(src)
        compiled.append(done)
        peak = max(peak, resident + own)
    wiring = _wiring(plan, ks, into, out_of, onchip, fast)
    return GroupProgram(_stitch(written, wiring), _stitch(compiled, wiring), peak,
                        tuple((label, ks[n], name) for label, n, name in wiring.args))


def _consumer_shape(plan: _Plan, ln: Link) -> tuple[int, ...]:
    b = kernel_args(plan.flat[ln.consumer][1].workload)
    return b.shapes[b.index(ln.in_arg)]


def _compile_kernel(plan: _Plan, p: int, lin: Link | None, lout: Link | None, on_in: bool,
                    on_out: bool, resident: int, fast: int) -> tuple[Any, Any, int]:
    """Kernel p as written with its linked operands retyped (on chip: the fast space; its
    output as the consumer reads it), and compiled by the accelerator pipeline for the
    capacity the residents leave; plus the bytes of its own fast buffers."""
    import workloads
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.errors import InputError

    spec = plan.flat[p][1].workload
    w = workloads.get(spec)
    module = w.module()
    func = next(f for f in module.funcs if f.sym_name == w.func_name)
    if lin is not None and on_in:
        _retype(func, lin.in_arg, None, fast, 0)
    if lout is not None:
        _retype(func, lout.out_arg, _consumer_shape(plan, lout), fast if on_out else None, lout.pad)
    source = module.clone()
    cap_kib = plan.config.memory_chain()[1].capacity_kib - math.ceil(resident / 1024)
    if cap_kib < MIN_TILE_KIB:
        raise InputError(f"kernel {spec}: {cap_kib} KiB left beside its on-chip operands")
    cfg = plan.config if not resident else plan.config.with_overrides({"sram.capacity_kib": cap_kib})
    compile_for_accelerator(cfg, module, w.func_name)
    return source, module, _fast_bytes(module, fast)


@dataclass(frozen=True)
class _Wiring:
    """The group function's arguments (name, kernel position in the group, argument) and, per
    kernel, where
    each of its arguments comes from: ("arg", i) or ("alloc", link producer); the allocs with
    their type, the kernel before which each is made and after which it is freed."""

    args: tuple[tuple[str, int, str], ...]
    sources: tuple[dict[str, tuple[str, int]], ...]
    allocs: dict[int, tuple[Any, int, int]]
    # the intermediates whose producer reads them before writing (`output += ...`): they
    # start at zero, as a DRAM tensor does in a layer-by-layer run
    zeroed: frozenset[int] = frozenset()


def _wiring(plan: _Plan, ks: list[int], into: dict[int, Link], out_of: dict[int, Link],
            onchip: set[int], fast: int) -> _Wiring:
    from compiler.ir.types import ELEMENT_TYPES, MemRefType

    args: list[tuple[str, int, str]] = []
    sources: list[dict[str, tuple[str, int]]] = []
    allocs: dict[int, tuple[Any, int, int]] = {}
    zeroed: set[int] = set()
    used: set[str] = set()
    for n, p in enumerate(ks):
        a = kernel_args(plan.flat[p][1].workload)
        layer = plan.network.layers[plan.flat[p][0]].name
        src: dict[str, tuple[str, int]] = {}
        for i, name in enumerate(a.names):
            lin, lout = into.get(p), out_of.get(p)
            if lin is not None and name == lin.in_arg:
                src[name] = ("alloc", lin.producer)
                continue
            if lout is not None and name == lout.out_arg:
                b = kernel_args(plan.flat[lout.consumer][1].workload)
                j = b.index(lout.in_arg)
                space = fast if p in onchip else plan.config.spaces.dram
                allocs[p] = (MemRefType(b.shapes[j], ELEMENT_TYPES[a.dtypes[i]], space), n, n + 1)
                src[name] = ("alloc", p)
                if lout.pad or _accumulates(plan.flat[p][1].workload, name):
                    zeroed.add(p)  # (a padded buffer's border too)
                continue
            label = _unique(f"{layer}.{name}", used)
            src[name] = ("arg", len(args))
            args.append((label, n, name))
        sources.append(src)
    return _Wiring(tuple(args), tuple(sources), allocs, frozenset(zeroed))


def _stitch(modules: Sequence[ModuleOp], wiring: _Wiring) -> ModuleOp:
    """One module: `@group` runs each kernel's entry function body in order, wired by
    `wiring`; each module's other functions kept under a prefixed name."""
    from compiler.ir.ops import ModuleOp
    from compiler.ir.ops.func import FuncOp, ReturnOp
    from compiler.ir.ops.memref import AllocOp, DeallocOp
    from compiler.ir.types import FunctionType

    arg_types = []
    for _, n, name in wiring.args:
        f = entry_func(modules[n])
        arg_types.append(f.args[f.arg_names().index(name)].type)
    group = FuncOp("group", FunctionType(tuple(arg_types), ()), [a for a, _, _ in wiring.args])
    out = ModuleOp()
    values: dict[int, Any] = {}
    frees: dict[int, list[Any]] = {}
    for n, module in enumerate(modules):
        for producer, (t, made, freed) in wiring.allocs.items():
            if made == n:
                op = group.body.append(AllocOp(t, name_hint=f"t{producer}"))
                values[producer] = op.results[0]
                frees.setdefault(freed, []).append(op.results[0])
                if producer in wiring.zeroed:
                    zero_fill(group.body, op.results[0])
        entry = entry_func(module)
        renames = {f.sym_name: f"k{n}_{f.sym_name}" for f in module.funcs if f is not entry}
        mapping: dict[Any, Any] = {}
        for a, name in zip(entry.args, entry.arg_names()):
            kind, ref = wiring.sources[n][name]
            mapping[a] = group.args[ref] if kind == "arg" else values[ref]
        inline_entry(entry, group.body, mapping, renames)
        for f in module.funcs:
            if f is not entry:
                out.body.append(renamed_clone(f, renames))
        for v in frees.get(n, ()):
            group.body.append(DeallocOp(v))
    group.body.append(ReturnOp())
    out.body.append(group)
    return out


# -------------------------------------------------------------------------------------------
# the result

def _name(network: Network, group: Group) -> str:
    names = [network.layers[i].name for i in group.layers]
    return names[0] if len(names) == 1 else (
        "+".join(names) if len(names) <= 2 else f"{names[0]}..{names[-1]}")


def assemble(network: Network, base: NetworkResult, groups: Sequence[GroupRun],
             cfg: HardwareConfig, baseline: NetworkResult | None = None) -> NetworkResult:
    """Rows in network order: a fused group one row (its layers named in `kernels`, lowering
    `fused`), every other layer its row of `base` (layer by layer); start cycles one after
    another. `baseline`: the layer-by-layer result the bytes saved are counted against (default
    `base`; None figures where it has no row)."""
    baseline = base if baseline is None else baseline
    by_first = {g.group.first: g for g in groups}
    rows: list[LayerResult] = []
    start = 0
    i = 0
    while i < len(network.layers):
        g = by_first.get(i)
        if g is None:
            r = base.layers[i]
            figs = dict(r.figures)
            figs.update(dram_bytes_saved=0)
            rows.append(LayerResult(r.layer, start, figs))
            start += r.cycles
            i += 1
            continue
        members = [network.layers[j] for j in g.group.layers]
        layer = Layer(_name(network, g.group), "fused", "fused",
                      tuple(k for m in members for k in m.kernels), members[0].where,
                      sum(m.macs for m in members))
        figs = layer_figures(layer, [g.figures])
        before = _bytes(baseline, g.group.layers)
        figs.update(dram_bytes_saved=None if before is None else before - int(figs["dram_bytes"] or 0),
                    dram_bytes_layer_by_layer=before,
                    fused_group=[m.name for m in members], onchip_peak_bytes=g.onchip_peak_bytes,
                    onchip_links=len(g.group.onchip), dram_links=len(g.group.dram),
                    band_rows=g.group.band_rows, chunk=g.group.chunk,
                    weights_onchip=g.group.weights_onchip)
        rows.append(LayerResult(layer, start, figs))
        start += int(figs["cycles"])
        i = g.group.last + 1
    out = NetworkResult(network, tuple(rows), base.config, base.fidelity, base.clock_ghz,
                        dict(base.meta), schedule="fused")
    level = cfg.memory_chain()[1].name if len(cfg.memory_chain()) > 1 else "sram"
    peaks = [g.onchip_peak_bytes for g in groups]
    total = _bytes(baseline, range(len(network.layers)))
    nf = {"baseline_dram_bytes": total,
          "onchip_peak_bytes": {level: max(peaks)} if peaks else {},
          "fused_groups": [{"layers": [network.layers[j].name for j in g.group.layers],
                            "onchip_links": len(g.group.onchip), "dram_links": len(g.group.dram),
                            "band_rows": g.group.band_rows, "chunk": g.group.chunk,
                            "weights_onchip": g.group.weights_onchip}
                           for g in groups]}
    return replace(out, network_figures=nf)


def _bytes(result: NetworkResult, layers: Sequence[int]) -> int | None:
    vals = [result.layers[j].figures.get("dram_bytes") for j in layers]
    return None if any(v is None for v in vals) else sum(int(v) for v in vals)


__all__ = ["Group", "GroupRun", "assemble", "choose_groups", "group_modules", "run_fused",
           "run_group", "unsupported"]


# -------------------------------------------------------------------------------------------
# with data

class FusedData:
    """The fused schedule of a run with data (`accelsim.network.functional.run_functional`):
    the groups the timing plan chooses, each run with its tensors as one program on the
    event simulator; `figures` by group name for the per-row report."""

    def __init__(self, network: Network, config: str):
        from accelsim.config import load_config
        from accelsim.network.timing import run_timing

        cfg = load_config(config)
        self.plan = _Plan(network, cfg, flat_kernels(network), {ln.producer: ln for ln in links(network)})
        self.runs: dict[int, GroupRun] = {}
        self.groups: dict[int, Group] = {}
        self.estimate = run_timing(network, config, None, "analytic", workers=0, progress=False)
        if unsupported(cfg) is None:
            self.groups = {g.group.first: g.group for g in choose_groups(self.plan, self.estimate)}

    def group_at(self, index: int) -> Group | None:
        return self.groups.get(index)

    def run(self, group: Group, tensors: dict[str, Any]) -> None:
        """Run `group` on `tensors` (read, and its outputs written back)."""
        import numpy as np

        from accelsim.api.program import program_of_module
        from accelsim.api.program_run import RunOptions, run_program
        from accelsim.dse.evaluate import report_figures

        plan = self.plan
        gp = program_of_group(plan, group)
        func = entry_func(gp.source)
        arrays: dict[str, Any] = {}
        labels = {(p, name): label for label, p, name in gp.args}
        for arg, label in zip(func.args, func.arg_names()):
            t = arg.type
            arrays[label] = np.zeros(tuple(t.shape), dtype=t.element.numpy_dtype)
        for (p, name), label in labels.items():
            reads = dict(plan.flat[p][1].reads)
            if name in reads:
                src = tensors[reads[name]]
                arrays[label] = np.array(src, dtype=arrays[label].dtype, copy=True).reshape(
                    arrays[label].shape)
        program = program_of_module(gp.source, "group", source=_name(plan.network, group))
        run = run_program(program, plan.config, arrays, RunOptions(estimate=False),
                          compiled=gp.compiled)
        assert run.sim is not None
        out = dict(run.sim.outputs or {})
        for (p, name), label in labels.items():
            for arg, t in plan.flat[p][1].writes:
                if arg == name and label in out:
                    tensors[t] = out[label]
        self.runs[group.first] = GroupRun(group, report_figures(run.report), gp.peak,
                                          run.compile_seconds)

    def result(self, kernel_figures: Mapping[str, Any], meta: dict[str, Any]) -> NetworkResult:
        """The per-row report of the run: its groups' figures, the other layers' kernels'
        (`kernel_figures`); no bytes-saved figure (no layer-by-layer run with data to count
        against: the estimate's is in `--timing-only`)."""
        cfg = self.plan.config
        net = self.plan.network
        figs = dict(kernel_figures)
        for _, k in self.plan.flat:  # kernels only a group ran: never read below
            figs.setdefault(k.workload, {})
        rows = [LayerResult(layer, 0, layer_figures(layer, [figs[k.workload] for k in layer.kernels])
                            if i not in self._grouped() else {})
                for i, layer in enumerate(net.layers)]
        base = NetworkResult(net, tuple(rows), cfg.name, "event", cfg.clock_ghz, meta)
        empty = replace(base, layers=tuple(LayerResult(r.layer, 0, {"dram_bytes": None})
                                           for r in rows))
        return assemble(net, base, list(self.runs.values()), cfg, baseline=empty)

    def _grouped(self) -> set[int]:
        return {j for g in self.groups.values() for j in g.layers}


def _applies(config: str, hardware: Mapping[str, Any]) -> bool:
    """Whether a fused group can run on this machine (`auto` leaves fused out otherwise)."""
    from accelsim.config import load_config

    return unsupported(load_config(config).with_overrides(dict(hardware))) is None


run_fused.applies = _applies  # type: ignore[attr-defined]
