"""Host backend: lower the affine IR to LLVM (llvmlite), JIT it, call it on numpy arrays.

    from compiler.backend import compile_module, run_host, random_inputs
    compiled = compile_module(module)              # cached by structural_hash(module)
    compiled.call("gemm", {"A": a, "B": b, "C": c})  # in place; checks dtype/shape/contiguity
    outputs = run_host(module, random_inputs(module.lookup("gemm"), seed=0))

Exact MLIR semantics (floordiv/ceildiv/mod, max/min bounds, iter_args, affine.if); memory
spaces are ignored (alloc = 64-byte aligned heap), dma_start is the copy it describes and
dma_wait a no-op. O3 with loop/SLP vectorization for the host CPU; no fast-math unless asked
(`compile_module(m, fast_math=True)`), so transformed and original programs compare
bit-for-bit. Set ACCELSIM_JIT_CACHE=<dir> to share machine code between processes.

Safety: `compile_module(m, bounds_check=True)` checks every access isl cannot prove in bounds
and raises OutOfBoundsError (file:line:col of the op, the index, its dimension and range)
instead of touching memory outside; integer division by zero or MIN / -1 always raises
IntegerDivisionError; recursion, nesting deeper than preflight.MAX_NESTING and integer
literals outside their type are refused before lowering (LoweringError). No check aborts
the process: a failed one returns to Python through a status record (checks.py).
"""

from compiler.backend.cache import CACHE, CompileCache, compile_module
from compiler.backend.errors import (
    ArgumentError,
    BackendError,
    HostRunError,
    IntegerDivisionError,
    JitError,
    LoweringError,
    OutOfBoundsError,
)
from compiler.backend.hashing import structural_hash
from compiler.backend.host import random_inputs, run_host
from compiler.backend.lower import LoweringOptions, lower_module
from compiler.backend.runtime import CompiledModule
from compiler.backend.signature import ArgSpec, Signature

__all__ = [
    "CACHE", "ArgSpec", "ArgumentError", "BackendError", "CompileCache", "CompiledModule",
    "HostRunError", "IntegerDivisionError", "JitError", "LoweringError", "LoweringOptions",
    "OutOfBoundsError", "Signature", "compile_module", "lower_module",
    "random_inputs", "run_host", "structural_hash",
]
