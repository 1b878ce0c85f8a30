"""The static race proof (`compiler.analysis.races`) on every program the simulator runs.

- Compiler output (`check_compiled`, `check_cluster_programs`): a race is our bug. Only
  then is the input compiled again pass by pass, checking after each, so the error names the
  first pass whose output races (`CompilerBugError`); the normal cost is one check.
- A program the user wrote (`--as-is`, `check_user_program`): a race is the user's error
  (`HazardError`) at the source line of the access.

Both fidelities run these checks before they run the program, so the analytic estimate
refuses a racy program as the event machine does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from accelsim.errors import CompilerBugError, HazardError
from compiler.analysis.races import Race, check_clusters, check_races
from compiler.ir.ops import FuncOp, ModuleOp


def _funcs(module: ModuleOp) -> list[FuncOp]:
    return [f for f in module.funcs if not f.is_declaration]


def first_race(module: ModuleOp) -> Race | None:
    for f in _funcs(module):
        r = check_races(f)
        if r.races:
            return r.races[0]
    return None


def check_user_program(module: ModuleOp) -> None:
    """A race in a program as the user wrote it: HazardError at the racing access."""
    race = first_race(module)
    if race is not None:
        raise HazardError(f"race: {race.message}", race.loc)


def check_compiled(module: ModuleOp, rebuild: Callable[[], ModuleOp], passes: Sequence[object],
                   flags: Sequence[str]) -> None:
    """`module` (the pipeline's output) race-free, else CompilerBugError naming the first pass
    whose output races: `rebuild()` gives the input again, `passes` the pipeline's passes
    (fresh objects), `flags` their command-line flags. A module of the content of one
    already proven (`compile_cache`, in a sweep) is not proven again."""
    from accelsim.compile import compile_cache

    if compile_cache.proven_race_free(module):
        return
    race = first_race(module)
    if race is not None:
        raise _bug(race, rebuild, passes, flags)
    compile_cache.record_race_free(module)


def cluster_race(modules: Sequence[ModuleOp], func: str | None) -> Race | None:
    """The first race between the clusters' programs (`check_clusters`), or None."""
    from compiler.ir.entry import entry_function

    report = check_clusters([entry_function(m, func) for m in modules])
    return report.races[0] if report.races else None


def check_cluster_programs(modules: Sequence[ModuleOp], func: str | None,
                           rebuild: Callable[[int], ModuleOp], passes: Callable[[], Sequence[object]],
                           flags: Sequence[str], across: bool = True) -> None:
    """Every cluster's program race-free, and (`across`: unless the caller just proved it)
    no two clusters touching an element one of them writes between the same barriers:
    every element their DMAs move counts (`compiler.analysis.races.check_clusters`)."""
    for k, m in enumerate(modules):
        race = first_race(m)
        if race is not None:
            raise _bug(race, lambda k=k: rebuild(k), passes(), flags, f"cluster {k}: ")
    r = cluster_race(modules, func) if across else None
    if r is not None:
        raise CompilerBugError(f"compiler bug: the clusters' programs race: {r.message} "
                               "(affine-cluster-distribute and the pipeline "
                               f"{' '.join(flags)})", r.loc)


def _bug(race: Race, rebuild: Callable[[], ModuleOp], passes: Sequence[object],
         flags: Sequence[str], prefix: str = "") -> CompilerBugError:
    """The error for `race` in compiler output, naming the first pass whose output races."""
    m = rebuild()
    if first_race(m) is not None:
        where = "the program before the passes already races (an input the checks let through)"
    else:
        where = "the pipeline's output races, but no single pass's output does"
        for k, p in enumerate(passes):
            p.run(m)  # type: ignore[attr-defined]
            if first_race(m) is not None:
                flag = flags[k] if k < len(flags) else p.name  # type: ignore[attr-defined]
                where = f"produced by pass {k + 1} of {len(passes)}, {flag}"
                break
    return CompilerBugError(f"compiler bug: {prefix}{race.message}; {where}", race.loc)
