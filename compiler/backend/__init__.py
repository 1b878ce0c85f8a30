"""Host backend: lower the affine IR to LLVM (llvmlite), JIT it, call it on numpy arrays."""

from compiler.backend.cache import CACHE, CompileCache, compile_module
from compiler.backend.errors import ArgumentError, BackendError, JitError, LoweringError
from compiler.backend.hashing import structural_hash
from compiler.backend.host import random_inputs, run_host
from compiler.backend.lower import LoweringOptions, lower_module
from compiler.backend.runtime import CompiledModule
from compiler.backend.signature import ArgSpec, Signature

__all__ = [
    "CACHE", "ArgSpec", "ArgumentError", "BackendError", "CompileCache", "CompiledModule",
    "JitError", "LoweringError", "LoweringOptions", "Signature", "compile_module", "lower_module",
    "random_inputs", "run_host", "structural_hash",
]
