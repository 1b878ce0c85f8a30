"""LLVM side: target machine for the host CPU, O3 pipeline with vectorizers, MCJIT engines.

Optional on-disk object cache: with `ACCELSIM_JIT_CACHE=<dir>` set, machine code is stored
under a hash of the lowered LLVM IR, the host CPU and the LLVM version, so worker processes of
a sweep (and later runs) skip optimization and code generation for a module seen before.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import threading
from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir

from compiler.backend.errors import JitError

# LLVM's global context is not thread-safe: parse, optimize and JIT one module at a time.
_LOCK = threading.RLock()


@functools.cache
def _host() -> tuple[str, str]:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def new_target_machine() -> llvm.TargetMachine:
    """The host CPU with all its features (what gcc -march=native targets). A fresh one each
    time: an MCJIT engine takes ownership of (and frees) the machine it is given."""
    cpu, features = _host()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=cpu, features=features, opt=3, codemodel="jitdefault")


@functools.cache
def target_machine() -> llvm.TargetMachine:
    """Shared machine for data layout and the optimization pipeline (never given to an engine)."""
    return new_target_machine()


def _parse(module: ir.Module) -> tuple[llvm.ModuleRef, str]:
    tm = target_machine()
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    text = str(module)
    try:
        ref = llvm.parse_assembly(text)
        ref.verify()
    except RuntimeError as exc:
        raise JitError(f"LLVM rejected the lowered module {module.name!r}: {exc}") from exc
    return ref, text


@functools.cache
def _llvm_version() -> str:
    return ".".join(map(str, llvm.llvm_version_info))


class DiskCache:
    """Object files by key in one directory; writes are atomic (temp file + rename)."""

    def __init__(self, directory: str):
        self.directory = directory
        self.hits = 0
        self.stores = 0

    def key(self, llvm_ir: str, speed_level: int) -> str:
        cpu, features = _host()
        h = hashlib.sha256()
        for part in (llvm_ir, cpu, features, _llvm_version(), str(speed_level)):
            h.update(part.encode())
            h.update(b"\x00")
        return h.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, f"{key}.o")

    def load(self, key: str) -> bytes | None:
        try:
            with open(self._path(key), "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        self.hits += 1
        return data or None

    def store(self, key: str, data: bytes) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, self._path(key))
            self.stores += 1
        except OSError:
            pass  # a cache that cannot be written only costs time


_DISK: dict[str, DiskCache] = {}


def disk_cache() -> DiskCache | None:
    """The cache named by ACCELSIM_JIT_CACHE, or None when unset."""
    directory = os.environ.get("ACCELSIM_JIT_CACHE")
    if not directory:
        return None
    if directory not in _DISK:
        _DISK[directory] = DiskCache(directory)
    return _DISK[directory]


def optimize(ref: llvm.ModuleRef, speed_level: int = 3) -> None:
    """LLVM's default per-module pipeline at O3 with loop and SLP vectorization."""
    tm = target_machine()
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pto.loop_interleaving = True
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    mpm.run(ref, pb)


class Engine:
    """One MCJIT engine owning one optimized module; addresses stay valid while it lives."""

    def __init__(self, ref: llvm.ModuleRef, cached_object: bytes | None = None,
                 on_compiled: Callable[[bytes], None] | None = None):
        with _LOCK:
            self._engine = llvm.create_mcjit_compiler(ref, new_target_machine())
            if cached_object is not None or on_compiled is not None:
                self._engine.set_object_cache(
                    (lambda _m, buf: on_compiled(buf)) if on_compiled is not None else None,
                    lambda _m: cached_object)
            self._engine.finalize_object()
            self._engine.run_static_constructors()
        self.module = ref
        self.from_cache = cached_object is not None

    @property
    def optimized_ir(self) -> str:
        """The module after O3 (before it when the machine code came from the disk cache)."""
        return str(self.module)

    def address(self, name: str) -> int:
        addr = self._engine.get_function_address(name)
        if not addr:
            raise JitError(f"no compiled function {name!r}")
        return addr


def jit(module: ir.Module, speed_level: int = 3) -> Engine:
    """Verify, optimize and compile."""
    with _LOCK:
        ref, text = _parse(module)
        cache = disk_cache()
        if cache is None:
            optimize(ref, speed_level)
            return Engine(ref)
        key = cache.key(text, speed_level)
        cached = cache.load(key)
        if cached is not None:  # machine code of the optimized module; skip the pipeline
            return Engine(ref, cached_object=cached)
        optimize(ref, speed_level)
        return Engine(ref, on_compiled=lambda buf: cache.store(key, buf))
