"""Compiler work keyed by content, shared by every hardware point of a sweep (issue 28).

A network sweep compiles the same layer shapes again at every hardware point, and most of
that work does not depend on the hardware: the fusion passes, tile + copy for a tiling the
search already compiled at another point, pipelining with the same options, the race proof
of a program already proven. Here those results are kept under the *content* of their input
— the module's text with its locations (`print_module(debug_locs=True)`), the passes and
their options — never under an object's `id()`:

- `run_passes(module, passes)`: a pass list's output module (pickled: the exact object graph,
  not a print -> parse round trip) and its remarks; a pass whose output depends on a capacity
  option only through comparisons says for which capacities its run holds
  (`AffinePipelineDataTransferPass.capacity_range`), and a run at another capacity in that
  range is the same run;
- `proven_race_free(module)` / `record_race_free(module)`: a compiled program the race proof
  already passed;
- `memo(kind, parts, compute)`: any other result of the compiler's analyses, under its
  inputs (a workload's compulsory traffic);
- `estimated(module, config, func)`: the analytic estimate of a module on a config (in
  memory only: the search's finalists are estimated again by the run of the winner).

Only callers that ask use it (`active()`: the network runs and the DSE's points, through
`enabled()`); a direct call of the tile search or `compile_for_accelerator` computes as
always. Entries live in memory (per process) and on disk under
`$ACCELSIM_CACHE_DIR/compile/<code version>/` (default `~/.cache/accelsim`), so a new process
— the next `accelsim run NETWORK --set ...` — reuses them; `ACCELSIM_COMPILE_CACHE=0` keeps
them in memory only. The code version is a hash of the source of `compiler/` and
`accelsim/compile/`: any change to a pass or to the pipeline starts a new cache. The cache
holds pickles: it must be the user's own directory, as every cache there is.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from compiler.diagnostics import Remark
from compiler.ir.ops import ModuleOp

T = TypeVar("T")
MEMORY_ENTRIES = 512   # pass outputs kept in memory (pickled, ~10-30 KB each)
_ACTIVE = 0
_MEMORY: OrderedDict[str, bytes] = OrderedDict()
_PROVEN: set[str] = set()
_ESTIMATES: OrderedDict[tuple[str, str, str | None], Any] = OrderedDict()
_VERSION: str | None = None


@contextmanager
def enabled() -> Iterator[None]:
    """Use the cache inside the block (nested blocks fine)."""
    global _ACTIVE
    _ACTIVE += 1
    try:
        yield
    finally:
        _ACTIVE -= 1


def active() -> bool:
    return _ACTIVE > 0


def clear_memory() -> None:
    """Forget the in-memory entries (the disk ones stay)."""
    _MEMORY.clear()
    _PROVEN.clear()
    _ESTIMATES.clear()


def module_key(module: ModuleOp) -> str:
    """The content of `module`: its text, locations included (remarks and errors name them)."""
    from compiler.text.printer import print_module

    return hashlib.sha256(print_module(module, debug_locs=True).encode()).hexdigest()


def run_passes(module: ModuleOp, passes: Sequence[Any], verify_each: bool = True) -> list[Remark]:
    """`PassManager(passes, verify_each).run(module)` (in place) and its remarks; while
    `active()`, a pass list already run on a module of the same content gives its output
    again instead. Failures are not kept: a failing pass list raises every time."""
    from compiler.transforms.registry import PassManager

    pm = PassManager(list(passes), verify_each)
    if not active():
        pm.run(module)
        return list(pm.remarks)
    source = module_key(module)
    key = _key("passes", source, verify_each, *[(p.name, repr(p.options)) for p in passes])
    # a pass whose output depends on a capacity only through comparisons (`CAPACITY_OPTION`,
    # `capacity_range` after its run): the runs of the list at other capacities, by range
    sized = [k for k, p in enumerate(passes) if _capacity(p) is not None]
    index = _key("passes-any-capacity", source, verify_each,
                 *[(p.name, repr(_without_capacity(p))) for p in passes]) if sized else None
    hit = _load(key)
    if hit is None and index is not None:
        caps = [_capacity(passes[k]) for k in sized]
        for ranges, other in _load(index) or ():
            if all(lo <= c <= hi for c, (lo, hi) in zip(caps, ranges, strict=True)):
                hit = _load(other)
                if hit is not None:
                    break
    if hit is not None:
        out, remarks = hit
        adopt_body(module, out)
        return list(remarks)
    pm.run(module)
    remarks = list(pm.remarks)
    _store(key, (module, remarks))
    if index is not None:
        ranges = tuple(passes[k].capacity_range for k in sized)
        _store(index, [*(_load(index) or ()), (ranges, key)][-16:])
    return remarks


def _capacity(p: Any) -> int | None:
    """The capacity in bytes of a pass with a `CAPACITY_OPTION` (KiB), if set."""
    field = getattr(p, "CAPACITY_OPTION", None)
    kib = getattr(p.options, field) if field else None
    return None if kib is None else int(kib) * 1024


def _without_capacity(p: Any) -> object:
    import dataclasses

    # (under the "passes-any-capacity" kind: no clash with a run whose capacity is unset)
    return dataclasses.replace(p.options, **{p.CAPACITY_OPTION: None}) if _capacity(p) is not None \
        else p.options


def proven_race_free(module: ModuleOp) -> bool:
    """While `active()`: the race proof already passed a module of this content."""
    if not active():
        return False
    key = _key("race-free", module_key(module))
    return key in _PROVEN or _load(key) is not None


def record_race_free(module: ModuleOp) -> None:
    if active():
        key = _key("race-free", module_key(module))
        _PROVEN.add(key)
        _store(key, True)


def estimated(module: ModuleOp, config: Any, func: str | None = None) -> Any:
    """`accelsim.estimate.analytic.estimate(module, config, func=func)`; while `active()`, a
    module of the same content estimated on a config of the same hash gives that result. The
    compiler's choices weigh one cluster's program: on a machine of several clusters it is
    estimated on one cluster's fair share (`accelsim.estimate.clusters.share_config`)."""
    from accelsim.estimate.analytic import estimate
    from accelsim.estimate.clusters import share_config

    config = share_config(config) if getattr(config, "clusters", 1) > 1 else config
    if not active():
        return estimate(module, config, func=func)
    from accelsim.errors import InputError
    from compiler.ir.entry import entry_function

    try:  # `func` None and the entry function's name are one function
        name: str | None = entry_function(module, func, InputError).sym_name
    except InputError:
        name = func
    key = (module_key(module), config.hash(), name)
    hit = _ESTIMATES.get(key)
    if hit is None:
        hit = _ESTIMATES[key] = estimate(module, config, func=func)
        while len(_ESTIMATES) > MEMORY_ENTRIES:
            _ESTIMATES.popitem(last=False)
    else:
        _ESTIMATES.move_to_end(key)
    return hit


def memo(kind: str, parts: tuple[object, ...], compute: Callable[[], T]) -> T:
    """`compute()`, kept under `kind` and `parts` (values whose repr is their content) in
    memory and on disk: for a result of the compiler's analyses that a new process would
    compute again (a workload's compulsory traffic). Always on: `parts` must name every input."""
    key = _key(kind, *parts)
    hit = _load(key)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    value = compute()
    _store(key, value)
    return value


def _key(*parts: object) -> str:
    return hashlib.sha256(repr((code_version(), *parts)).encode()).hexdigest()


def code_version() -> str:
    """A hash of the compiler's source (`compiler/`, `accelsim/compile/`), once per process."""
    global _VERSION
    if _VERSION is None:
        root = Path(__file__).resolve().parents[2]
        h = hashlib.sha256()
        for pkg in ("compiler", "accelsim/compile"):
            for path in sorted((root / pkg).rglob("*.py")):
                h.update(str(path.relative_to(root)).encode())
                h.update(path.read_bytes())
        _VERSION = h.hexdigest()[:16]
    return _VERSION


def _directory() -> Path | None:
    if os.environ.get("ACCELSIM_COMPILE_CACHE", "1") == "0":
        return None
    base = os.environ.get("ACCELSIM_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                 "accelsim")
    return Path(base) / "compile" / code_version()


def _load(key: str) -> Any:
    blob = _MEMORY.get(key)
    if blob is not None:
        _MEMORY.move_to_end(key)
    else:
        d = _directory()
        if d is None:
            return None
        try:
            blob = (d / key[:2] / key).read_bytes()
        except OSError:
            return None
        _remember(key, blob)
    try:
        return pickle.loads(zlib.decompress(blob))
    except (pickle.UnpicklingError, zlib.error, EOFError, AttributeError, ImportError):
        return None   # a damaged or foreign file: computed again (and overwritten)


def _store(key: str, value: object) -> None:
    try:
        blob = zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)
    except RecursionError:   # an IR nested deeper than pickle recurses: not kept
        return
    _remember(key, blob)
    d = _directory()
    if d is None:
        return
    try:
        (d / key[:2]).mkdir(parents=True, exist_ok=True)
        tmp = d / key[:2] / f".{key}.{os.getpid()}"
        tmp.write_bytes(blob)
        os.replace(tmp, d / key[:2] / key)   # atomic: a concurrent reader sees all or nothing
    except OSError:
        pass   # a read-only or full disk: the memory entry still serves this process


def _remember(key: str, blob: bytes) -> None:
    _MEMORY[key] = blob
    while len(_MEMORY) > MEMORY_ENTRIES:
        _MEMORY.popitem(last=False)


def adopt_body(module: ModuleOp, compiled: ModuleOp) -> None:
    """Move the ops of `compiled` into `module`, replacing its own (callers holding `module`
    see them)."""
    body = module.body
    for op in list(body.ops):
        op.detach()
    for op in list(compiled.body.ops):
        op.detach()
        body.append(op)
