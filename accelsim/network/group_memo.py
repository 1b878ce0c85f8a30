"""Structurally identical fused-group candidates evaluated once per run.

A network of repeated blocks (a transformer's 12 encoder layers, a CNN's identical stages)
offers the grouping (`accelsim.network.fused.choose_groups`) the same candidate again and
again: the same kernels in the same shapes and element types, linked the same way, as the
same kind of group. Evaluating a candidate (compiling its program, its analytic estimate, its
race proof, its analytic run) depends on nothing else, so its outcome is kept under the
candidate's *structural key* (`candidate_key`) and every repeat reuses it: the same estimate,
the same run figures (DRAM bytes, cycles: the same numbers as evaluating it again), the same
error when it did not compile. The decision against layer-by-layer is still taken per
candidate, with that candidate's own thresholds (its layers' cycles and bytes, the slack the
groups before it saved), from the kept outcome.

The key: per layer of the group, its op, lowering, MACs and number of kernels; per kernel,
its workload spec (kind, shape, element type), the tensors it reads and writes numbered by
first use inside the key (which input comes from which earlier kernel, relative) and its link
to the next kernel of the group (arguments, zero border, bytes); the group's kind (its on-chip
and DRAM links relative to its first kernel, band rows, weights on chip, chunk width; a
chunked chain also the permute after it, which `chunked.chain_at` looks at); and the
hardware config. Nothing outside the group enters its program (its inputs and outputs are
the program's arguments), so the key leaves it out: the first and the last of twelve
identical blocks share their key with the ten between. One memo
lives for one grouping (one run); `ENABLED = False` turns it off (the tests compare the two).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from accelsim.network.group_model import Group, _Plan
    from accelsim.network.links import Link
    from compiler.diagnostics import AccelsimError

ENABLED = True


@dataclass
class Evaluation:
    """What evaluating one candidate gave: its compiled program's estimate (cycles, DRAM
    bytes), its analytic run (a `fused.GroupRun`, None until it was run) or the error that
    stopped it."""

    estimate: tuple[int, int] | None = None
    run: Any = None
    error: AccelsimError | None = None


def _link(ln: Link | None) -> tuple[str, str, int, int] | None:
    return None if ln is None else (ln.out_arg, ln.in_arg, ln.pad, ln.nbytes)


def candidate_key(plan: _Plan, group: Group) -> tuple[Any, ...]:
    """The structural key of `group` in `plan` (module docstring): equal for two candidates
    whose evaluation is the same computation."""
    ks = plan.kernels_of(group.first, group.last)
    layers = tuple((lay.op, lay.lowering, lay.macs, len(lay.kernels), len(lay.views))
                   for lay in (plan.network.layers[i] for i in group.layers))
    if not ks:
        return ("empty", layers, group.band_rows, group.weights_onchip, group.chunk, plan.config)
    q0 = ks[0]
    tensors: dict[str, int] = {}

    def tid(name: str) -> int:
        return tensors.setdefault(name, len(tensors))

    kernels = tuple(
        (plan.flat[q][1].workload,
         tuple((arg, tid(t)) for arg, t in plan.flat[q][1].reads),
         tuple((arg, tid(t)) for arg, t in plan.flat[q][1].writes),
         _link(plan.links.get(q)) if q != ks[-1] else None)
        for q in ks)
    kind = (tuple(ln.producer - q0 for ln in group.onchip),
            tuple(ln.producer - q0 for ln in group.dram),
            group.band_rows, group.weights_onchip, group.chunk)
    return (layers, kernels, kind, _after(plan, ks[-1]) if group.chunk else None, plan.config)


def _after(plan: _Plan, q: int) -> tuple[Any, ...] | None:
    """What a chunked chain ending with kernel q sees after it: a permute it reads its output
    into (`chunked._folded_permute`), else nothing."""
    ln = plan.links.get(q)
    if ln is None or ln.consumer >= len(plan.flat):
        return None
    spec = plan.flat[ln.consumer][1].workload
    return (_link(ln), spec) if spec.startswith("permute:") else None


class CandidateMemo:
    """The evaluations of one grouping's candidates by structural key."""

    def __init__(self) -> None:
        self.entries: dict[tuple[Any, ...], Evaluation] = {}
        self.decisions: dict[tuple[Any, ...], Any] = {}
        self.hits = 0

    def banded(self, plan: _Plan, group: Group, cycles: int, dram: int,
               decide: Callable[[], Any]) -> Any:
        """A banded candidate's decision against layer-by-layer's `cycles` and `dram` on its
        layers (`fused._pays`: its variants, their floors and runs; no slack), `decide()` for
        the first of its structure; the run (if any) given back as `group`'s own variant."""
        from dataclasses import replace

        key = ("banded", candidate_key(plan, group), cycles, dram)
        if key in self.decisions:
            self.hits += 1
        else:
            self.decisions[key] = decide()
        run = self.decisions[key]
        if run is None:
            return None
        own = replace(group, band_rows=run.group.band_rows, weights_onchip=run.group.weights_onchip)
        return run if run.group == own else replace(run, group=own)

    def evaluation(self, plan: _Plan, group: Group) -> Evaluation:
        """The (shared, possibly still empty) evaluation of `group`'s structure."""
        key = candidate_key(plan, group)
        ev = self.entries.get(key)
        if ev is None:
            ev = self.entries[key] = Evaluation()
        else:
            self.hits += 1
        return ev


def new_memo() -> CandidateMemo | None:
    """A memo for one grouping, None when `ENABLED` is off."""
    return CandidateMemo() if ENABLED else None


__all__ = ["ENABLED", "CandidateMemo", "Evaluation", "candidate_key", "new_memo"]
