"""The C fast path of the DRAM timing model's channel controller (`dram_kernel.c`): the
same policy as `accelsim.hw.dram_controller.ChannelController` (the reference), bit for bit
(tests/accelsim/hw/test_dram_native.py serves random request streams and whole runs on both).

`dram_kernel.c` is compiled once with the system C compiler (`cc`, or `$CC`) into
`$ACCELSIM_CACHE_DIR` (default `~/.cache/accelsim`), the file named by the source's hash;
the build writes a temporary file and renames it into place, so parallel test workers never
load a half-written library. No compiler, a failed build or `ACCELSIM_DRAM_NATIVE=0`: the
Python controller is used (a failure says so in one warning line).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path
from typing import Any

from accelsim.cost.dram_timing import DramTiming, Request

_SRC = Path(__file__).with_name("dram_kernel.c")
_lib: Any = None
_tried = False


def _cache_dir() -> Path:
    env = os.environ.get("ACCELSIM_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "accelsim"


def _build() -> Path | None:
    """The compiled kernel's path (built if missing), or None with a one-line warning."""
    src = _SRC.read_bytes()
    digest = hashlib.sha256(src).hexdigest()[:16]
    out = _cache_dir() / f"dram_kernel-{digest}.so"
    if out.exists():
        return out
    cc = os.environ.get("CC") or shutil.which("cc")
    if not cc:
        return None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
        os.close(fd)
        res = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", tmp, str(_SRC), "-lm"],
                             capture_output=True, text=True, check=False)
        if res.returncode != 0:
            os.unlink(tmp)
            first = (res.stderr.strip().splitlines() or ["no message"])[0]
            print(f"accelsim: warning: the DRAM kernel did not build ({first}); using the "
                  f"Python controller", file=sys.stderr)
            return None
        os.replace(tmp, out)  # atomic: a parallel worker sees the whole file or none
    except OSError as e:
        print(f"accelsim: warning: the DRAM kernel did not build ({e}); using the Python "
              f"controller", file=sys.stderr)
        return None
    return out


def library() -> Any:
    """The loaded kernel, or None (no compiler, a failed build, ACCELSIM_DRAM_NATIVE=0)."""
    global _lib, _tried
    if os.environ.get("ACCELSIM_DRAM_NATIVE", "1") == "0":
        return None
    if not _tried:
        _tried = True
        path = _build()
        if path is not None:
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as e:
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
            _lib = lib
    return _lib


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
        t = self.t = timing
        ints = (ctypes.c_int64 * 8)(t.ranks, t.bank_groups, t.banks_per_group, int(t.open_page),
                                    t.read_queue, t.write_queue, t.write_high, t.write_low)
        dbl = (ctypes.c_double * 17)(t.tRP, t.tRRD_L, t.tRRD_S, t.tFAW, t.tRCD, t.tRC, t.tRAS,
                                     t.tBURST, t.tCCD_L, t.tCL, t.tCWL, t.tWR, t.tWTR, t.tRTW,
                                     t.tRTP, t.tREFI, t.tRFC)
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
