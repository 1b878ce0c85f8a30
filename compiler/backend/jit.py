"""LLVM side: target machine for the host CPU, O3 pipeline with vectorizers, MCJIT engines."""

from __future__ import annotations

import functools
import threading

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


def parse_and_verify(module: ir.Module) -> llvm.ModuleRef:
    tm = target_machine()
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    text = str(module)
    try:
        ref = llvm.parse_assembly(text)
        ref.verify()
    except RuntimeError as exc:
        raise JitError(f"LLVM rejected the lowered module {module.name!r}: {exc}") from exc
    return ref


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

    def __init__(self, ref: llvm.ModuleRef):
        with _LOCK:
            self._engine = llvm.create_mcjit_compiler(ref, new_target_machine())
            self._engine.finalize_object()
            self._engine.run_static_constructors()
        self.module = ref

    @property
    def optimized_ir(self) -> str:
        return str(self.module)

    def address(self, name: str) -> int:
        addr = self._engine.get_function_address(name)
        if not addr:
            raise JitError(f"no compiled function {name!r}")
        return addr


def jit(module: ir.Module, speed_level: int = 3) -> Engine:
    """Verify, optimize and compile."""
    with _LOCK:
        ref = parse_and_verify(module)
        optimize(ref, speed_level)
        return Engine(ref)
