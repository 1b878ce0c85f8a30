""""Did you mean" for a name `accelsim run` does not know: across the workloads (kernels) and
the networks of the zoo, since INPUT may be either."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable

from accelsim.errors import InputError


def close_matches(word: str, names: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` names close to `word` (difflib's ratio >= 0.6; case ignored)."""
    by_lower = {name.lower(): name for name in names}
    return [by_lower[m] for m in difflib.get_close_matches(word.lower(), list(by_lower), n=n)]


def check_known_input(source: str) -> None:
    """Raise an InputError naming the closest workloads and networks when SOURCE is neither a
    file, a network nor a workload spec (a `.mlir` path is left to the parser's own error)."""
    import workloads
    from accelsim.network.zoo import zoo

    if source == "-" or os.path.exists(source) or source.endswith(".mlir"):
        return
    name = source.partition(":")[0]
    kernels, networks = workloads.names(None), list(zoo())
    if source in networks:
        return
    try:
        workloads.lookup(name)  # a workload (or an alias of one): its own errors follow
        return
    except workloads.WorkloadError:
        pass
    stem = os.path.splitext(os.path.basename(source))[0]
    looks_like_file = bool(os.path.splitext(source)[1]) and ":" not in source
    word = stem if looks_like_file else name
    kinds = {k: "workload" for k in kernels} | {n: "network" for n in networks}
    hits = close_matches(word, kinds)
    what = "no such file, and neither" if looks_like_file else "neither"
    hint = ("; did you mean " + " or ".join(f"{h!r} (a {kinds[h]})" for h in hits) + "?"
            if hits else "")
    raise InputError(f"INPUT {source!r}: {what} a workload nor a network{hint or '.'} "
                     f"Workloads: {', '.join(kernels)}; networks: {', '.join(networks)} "
                     "(`accelsim networks`); or a .mlir file")
