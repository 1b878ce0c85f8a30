"""The C fast path of the DRAM timing model (`dram_kernel.c`): the channel controller's
policy as `accelsim.hw.dram_controller.ChannelController` (the reference) and the address
mapping as `accelsim.cost.dram_timing.DramTiming.split` (the reference), bit for bit
(tests/accelsim/hw/test_dram_native.py serves random request streams, maps random patterns and
runs whole programs on both).

Two entry points into the same C: `channels` (when the Python headers are there, the kernel
is built as an extension module too): one object for a machine's channels, whose `reserve`
does a DMA's whole DRAM side in one call (`accelsim.hw.dram.Dram._timed`'s work: mapping,
every channel's controller, the trace records, the end in accelerator cycles); and
`controller`: one channel's controller through ctypes (`NativeController`), what `Dram` uses
when the extension is not there.

`dram_kernel.c` is compiled once with the system C compiler (`cc`, or `$CC`) into
`$ACCELSIM_CACHE_DIR` (default `~/.cache/accelsim`), the file named by the hash of the source
and the build; the build writes a temporary file and renames it into place, so parallel test
workers never load a half-written library. No compiler, a failed build or
`ACCELSIM_DRAM_NATIVE=0`: the Python controller is used (a failure says so in one warning
line).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import weakref
from collections.abc import Callable
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from typing import Any

from accelsim.cost.dram_timing import DramTiming, Request

_SRC = Path(__file__).with_name("dram_kernel.c")
_MODULE = "accelsim_dram_kernel"  # the extension's name (PyInit_accelsim_dram_kernel)
_lib: Any = None
_ext: Any = None
_tried = False
# the mapping's field names as the kernel numbers them (dram_kernel.c F_CH ... F_RO)
_FIELDS = {"ch": 0, "ra": 1, "bg": 2, "ba": 3, "co": 4, "ro": 5}


def _cache_dir() -> Path:
    env = os.environ.get("ACCELSIM_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "accelsim"


def _variants() -> list[tuple[list[str], str]]:
    """The builds to try, best first, as (extra compiler flags, file suffix): the extension
    module when this Python's headers are there, then the plain library (ctypes only; no
    flags)."""
    out: list[tuple[list[str], str]] = []
    inc = sysconfig.get_paths().get("include")
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if inc and (Path(inc) / "Python.h").exists():
        flags = ["-DACCELSIM_PYEXT", f"-I{inc}"]
        if sys.platform == "darwin":
            flags += ["-undefined", "dynamic_lookup"]
        out.append((flags, suffix))
    out.append(([], ".so"))
    return out


def _build() -> tuple[Path, bool] | None:
    """The compiled kernel's path (built if missing) and whether it is the extension module
    too, or None with a one-line warning."""
    src = _SRC.read_bytes()
    cc = os.environ.get("CC") or shutil.which("cc")
    first_error = ""
    for flags, suffix in _variants():
        digest = hashlib.sha256(src + " ".join(flags).encode()).hexdigest()[:16]
        out = _cache_dir() / f"dram_kernel-{digest}{suffix}"
        if out.exists():
            return out, bool(flags)
        if not cc:
            return None
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
            os.close(fd)
            # no contraction into fused multiply-adds: the same doubles as Python's arithmetic
            cmd = [cc, "-O2", "-ffp-contract=off", "-shared", "-fPIC", *flags, "-o", tmp,
                   str(_SRC), "-lm"]
            res = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if res.returncode == 0:
                os.replace(tmp, out)  # atomic: a parallel worker sees the whole file or none
                return out, bool(flags)
            os.unlink(tmp)
            first_error = first_error or (res.stderr.strip().splitlines() or ["no message"])[0]
        except OSError as e:
            first_error = first_error or str(e)
    print(f"accelsim: warning: the DRAM kernel did not build ({first_error}); using the "
          f"Python controller", file=sys.stderr)
    return None


def _load_extension(path: Path) -> Any:
    """The kernel built as an extension module at `path`, imported."""
    loader = ExtensionFileLoader(_MODULE, str(path))
    spec = spec_from_loader(_MODULE, loader)
    if spec is None:
        return None
    mod = module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def library() -> Any:
    """The loaded kernel (ctypes), or None (no compiler, a failed build,
    ACCELSIM_DRAM_NATIVE=0)."""
    global _lib, _ext, _tried
    if os.environ.get("ACCELSIM_DRAM_NATIVE", "1") == "0":
        return None
    if not _tried:
        _tried = True
        built = _build()
        if built is not None:
            path, is_ext = built
            try:
                lib = ctypes.CDLL(str(path))
                ext = _load_extension(path) if is_ext else None
            except (OSError, ImportError) as e:
                print(f"accelsim: warning: the DRAM kernel did not load ({e}); using the "
                      f"Python controller", file=sys.stderr)
                return None
            p = ctypes.c_void_p
            lib.ctl_new.restype = p
            lib.ctl_new.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double)]
            lib.ctl_free.argtypes = [p]
            lib.ctl_free.restype = None
            lib.ctl_stats.argtypes = [p, ctypes.POINTER(ctypes.c_double)]
            lib.ctl_stats.restype = None
            lib.ctl_access.restype = ctypes.c_double
            lib.ctl_access.argtypes = [p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_double,
                                       ctypes.c_int64, ctypes.POINTER(ctypes.c_double)]
            _lib, _ext = lib, ext
    return _lib


def extension() -> Any:
    """The kernel as an extension module (`Channels`), or None (no Python headers, or
    `library()` is None)."""
    return _ext if library() is not None else None


def _params(t: DramTiming) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """A controller's parameters as `ctl_new` takes them (dram_kernel.c)."""
    return ((t.ranks, t.bank_groups, t.banks_per_group, int(t.open_page), t.read_queue,
             t.write_queue, t.write_high, t.write_low),
            tuple(float(x) for x in (t.tRP, t.tRRD_L, t.tRRD_S, t.tFAW, t.tRCD, t.tRC, t.tRAS,
                                     t.tBURST, t.tCCD_L, t.tCL, t.tCWL, t.tWR, t.tWTR, t.tRTW,
                                     t.tRTP, t.tREFI, t.tRFC)))


def channels(timing: DramTiming, names: tuple[str, ...], records: list[Any],
             missing: Callable[[Any, int], None]) -> Any:
    """Every channel of `timing` in C, or None when the extension is not there. `Channels`:
    `reserve(ready, dram_bytes, hold, xfer)` is `accelsim.hw.dram.Dram`'s reserve: it appends
    a `TraceRecord` per channel piece of `xfer.dram_patterns()`, named by `names`, to
    `records` and returns the transfer's end; `missing(xfer, dram_bytes)` raises for a
    transfer without DRAM sides."""
    ext = extension()
    if ext is None:
        return None
    from accelsim.trace import TraceRecord

    t = timing
    ints, dbls = _params(t)
    return ext.Channels(ints, dbls, tuple(_FIELDS[f] for f, _ in t.radices),
                        tuple(r for _, r in t.radices),
                        (t.channels, t.burst_bytes, t.bank_groups, t.banks_per_group, t.rows),
                        t.ratio, tuple(names), records, TraceRecord, missing)


# requests (one DMA side's on one channel) as packed int64 arrays, by the identity of the
# (memoized, hence long-lived) request tuple; the tuple is kept so its id is not reused
_packed: dict[int, tuple[tuple[Request, ...], Any]] = {}


def _pack(reqs: tuple[Request, ...]) -> Any:
    hit = _packed.get(id(reqs))
    if hit is not None and hit[0] is reqs:
        return hit[1]
    arr = (ctypes.c_int64 * (5 * len(reqs)))(*[v for r in reqs for v in r])
    if len(_packed) > 50_000:
        _packed.clear()
    _packed[id(reqs)] = (reqs, arr)
    return arr


class NativeController:
    """`ChannelController`'s interface (`read`, `write`, `bus`, `pending`, the counters) on
    the C state."""

    __slots__ = ("__weakref__", "_access", "_before", "_ctl", "_lib", "t")

    def __init__(self, timing: DramTiming, lib: Any):
        self.t = timing
        ip, dp = _params(timing)
        ints, dbl = (ctypes.c_int64 * 8)(*ip), (ctypes.c_double * 17)(*dp)
        self._lib = lib
        self._ctl = lib.ctl_new(ints, dbl)
        weakref.finalize(self, lib.ctl_free, self._ctl)
        self._before = ctypes.c_double()
        self._access = lib.ctl_access

    def access(self, reqs: tuple[Request, ...], now: float, write: bool) -> tuple[float, float]:
        """(the end `read`/`write` returns, the bus's free time before the call)."""
        b = self._before
        e = self._access(self._ctl, _pack(reqs), len(reqs), now, write, ctypes.byref(b))
        return e, b.value

    def read(self, reqs: tuple[Request, ...], now: float) -> float:
        return self.access(tuple(reqs), now, False)[0]

    def write(self, reqs: tuple[Request, ...], now: float) -> float:
        return self.access(tuple(reqs), now, True)[0]

    def _stats(self) -> list[float]:
        out = (ctypes.c_double * 8)()
        self._lib.ctl_stats(self._ctl, out)
        return list(out)

    @property
    def bus(self) -> float:
        return self._stats()[0]

    @property
    def pending(self) -> int:
        return int(self._stats()[3])

    @property
    def hits(self) -> int:
        return int(self._stats()[4])

    @property
    def misses(self) -> int:
        return int(self._stats()[5])

    @property
    def conflicts(self) -> int:
        return int(self._stats()[6])

    @property
    def refreshes(self) -> int:
        return int(self._stats()[7])


def controller(timing: DramTiming) -> Any:
    """A channel controller for `timing`: the C one when the kernel is available, else the
    Python reference."""
    lib = library()
    if lib is None:
        from accelsim.hw.dram_controller import ChannelController
        return ChannelController(timing)
    return NativeController(timing, lib)
