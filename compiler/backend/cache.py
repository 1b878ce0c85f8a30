"""Compile once per structurally-equal module: a sweep rebuilding the same kernel reuses it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from compiler.backend.hashing import structural_hash
from compiler.backend.lower import LoweringOptions
from compiler.backend.runtime import CompiledModule
from compiler.ir.ops import ModuleOp


@dataclass(frozen=True, slots=True)
class CacheInfo:
    hits: int
    misses: int
    size: int


class CompileCache:
    """LRU map from (structural hash, options) to CompiledModule."""

    def __init__(self, capacity: int = 256):
        self.capacity = capacity
        self._entries: OrderedDict[tuple[str, LoweringOptions], CompiledModule] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, module: ModuleOp, options: LoweringOptions) -> CompiledModule:
        key = (structural_hash(module), options)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found.for_module(module)
            self.misses += 1
        compiled = CompiledModule(module, key[0], options)
        with self._lock:
            self._entries[key] = compiled
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return compiled

    def info(self) -> CacheInfo:
        return CacheInfo(self.hits, self.misses, len(self._entries))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0


CACHE = CompileCache()


def compile_module(module: ModuleOp, *, fast_math: bool = False, noalias: bool = True,
                   interchange: bool = True, bounds_check: bool = False) -> CompiledModule:
    """Native code for `module`, from the cache when an equal module was compiled before.

    `fast_math` lets LLVM reassociate float math (faster reductions, different bits); off by
    default so that differential tests can demand bit-identical results. `interchange` lets
    the backend reorder provably permutable loop bands for vectorization (bit-identical).
    `bounds_check` checks every access against its memref's extents (what isl cannot prove
    in bounds) and raises an OutOfBoundsError at the op instead of reading or writing outside;
    results are bit-identical to the unchecked code's. The options are part of the cache key."""
    return CACHE.get(module, LoweringOptions(noalias=noalias, fast_math=fast_math, interchange=interchange,
                                             bounds_check=bounds_check))
