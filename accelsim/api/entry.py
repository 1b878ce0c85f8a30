"""`accelsim.run`: what `accelsim run SOURCE --target sim` does, from Python.

    import accelsim
    r = accelsim.run("gemm:M=256,N=256,K=256")                  # a workload spec
    r = accelsim.run("kernel.mlir", config="server", fidelity="analytic")
    r = accelsim.run(module, config="mychip.toml", set={"dma.engines": 4})
    r = accelsim.run("resnet18", config="cluster4")             # a network (zoo, .onnx, .csv, .layers)
    print(r.cycles); print(r.report); r.to_dict()               # == `accelsim run ... --json`
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from accelsim.api.result import Result
from accelsim.errors import ConfigError, InputError

if TYPE_CHECKING:
    from accelsim.config import HardwareConfig
    from compiler.ir.ops import ModuleOp


def run(source: str | os.PathLike[str] | ModuleOp, config: str | HardwareConfig = "default", *,
        set: Mapping[str, Any] | None = None, fidelity: str = "event",
        timing_only: bool = False, check: bool = False,
        inputs: Mapping[str, np.ndarray] | str | None = None, seed: int | None = None,
        func: str | None = None, as_is: bool = False, passes: Sequence[str] = (),
        distribution: str = "auto", records: bool = True, workers: int | None = None,
        kernel_time_limit: float | None = None, conv_lowering: str = "auto",
        dtype: str | None = None, shape: Mapping[str, Sequence[int]] | None = None,
        progress: bool = True, mapping: str | None = None,
        tile_policy: str = "search", schedule: str | None = None) -> Result:
    """Compile `source` for the accelerator `config` and simulate it, exactly as
    `accelsim run SOURCE --target sim --config CONFIG` does (same pipeline, same tile search,
    same figures: `result.to_dict()` equals that command's `--json` object).

    `source`: a workload spec (`"gemm:M=256,N=256,K=256"`), an `.mlir` path, a compiler
    Module (`compiler.ir.ops.ModuleOp`, e.g. `workloads.get(spec).module()`; it is compiled
    in place), or a network: a zoo name (`accelsim networks`), an `.onnx`, `.csv` or `.layers`
    file. `config`: a preset name, a TOML path or a `HardwareConfig`.

    Options (each the `accelsim run` flag of that name): `set` — config overrides by dotted key
    (`{"sram.capacity_kib": 128}`; `--set`); `fidelity` — "event" (default), "analytic",
    "both"; `timing_only` — no data; `check` — compare the outputs with the workload's numpy
    reference (ONNX: onnx's reference) and put it in `result.check`; `inputs` — argument
    arrays by name, or an `.npz` path; `seed` — generated inputs' seed (default 0); `func` —
    the function to run; `as_is` — no accelerator pipeline; `passes` — mlir-opt pass flags
    that replace the pipeline (`["--affine-loop-tile=tile-size=16", ...]`); `distribution` —
    with clusters > 1; `mapping` — an explicit mapping (Timeloop's loop nest per level,
    `--mapping`); `tile_policy` — "search" (default) or "gemmini" (`--tile-policy`);
    networks: `workers`, `kernel_time_limit`, `conv_lowering`, `dtype` (the precision,
    `"int8"`, `"bf16"`, ...: `--dtype`), `shape` (an ONNX model's symbolic input dimensions,
    `{"input_ids": (1, 128)}`: `--shape`), `progress` (a bar of the kernels or layers on
    stderr, as the CLI shows without --json), `schedule` ("layer-by-layer", "fused",
    "pipelined", "auto": `--schedule`, default auto).
    `records`: keep every trace record, for `result.timeline()` / `result.trace()` (the
    figures are the same without; `records=False` is faster on long runs)."""
    from accelsim.network.zoo import is_network_input

    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if isinstance(source, str) and is_network_input(source):
        return _run_network(source, config, set, fidelity=fidelity, timing_only=timing_only,
                            check=check, inputs=inputs, seed=seed, workers=workers,
                            kernel_time_limit=kernel_time_limit, conv_lowering=conv_lowering,
                            dtype=dtype, shape=shape, progress=progress, schedule=schedule or "auto",
                            others={"func": func, "as_is": as_is, "passes": tuple(passes),
                                    "mapping": mapping,
                                    "tile_policy": tile_policy if tile_policy != "search" else None})
    if schedule is not None:
        raise InputError(f"schedule {schedule!r}: a network option (how its layers run)")
    if dtype is not None or shape is not None:
        raise InputError("dtype, shape: network options (a kernel's precision is in its spec, "
                         "e.g. gemm:M=64,dtype=i8)")
    return _run_program(source, config, set, fidelity=fidelity, timing_only=timing_only,
                        check=check, inputs=inputs, seed=seed, func=func, as_is=as_is,
                        passes=tuple(passes), distribution=distribution, records=records,
                        mapping=mapping, tile_policy=tile_policy)


def _config(config: str | HardwareConfig, overrides: Mapping[str, Any] | None) -> HardwareConfig:
    from accelsim.config import HardwareConfig, load_config

    try:
        if isinstance(config, HardwareConfig):
            return config.with_overrides(dict(overrides)) if overrides else config
        if not isinstance(config, str | os.PathLike):
            raise InputError(f"config: expected a preset name, a TOML path or a HardwareConfig, "
                             f"found {type(config).__name__}")
        return load_config(os.fspath(config), dict(overrides) if overrides else None)
    except ConfigError as exc:
        if overrides:
            raise ConfigError(f"set: {exc}") from None
        raise


def _run_program(source: str | ModuleOp, config: str | HardwareConfig,
                 overrides: Mapping[str, Any] | None, *, fidelity: str, timing_only: bool,
                 check: bool, inputs: Mapping[str, np.ndarray] | str | None, seed: int | None,
                 func: str | None, as_is: bool, passes: tuple[str, ...], distribution: str,
                 records: bool, mapping: str | None = None, tile_policy: str = "search") -> Result:
    from accelsim.api.program import (
        check_outputs,
        load_inputs,
        load_program,
        match_inputs,
        program_of_module,
    )
    from accelsim.api.program_run import RunOptions, run_program
    from compiler.ir.ops import ModuleOp

    opts = RunOptions(fidelity=fidelity, timing_only=timing_only, as_is=as_is,
                      passes_given=bool(passes), distribution=distribution, keep_records=records,
                      mapping=mapping, tile_policy=tile_policy)
    cfg = _config(config, overrides)
    if isinstance(source, ModuleOp):
        program = program_of_module(source, func)
    elif isinstance(source, str):
        program = load_program(source, func)
    else:
        raise InputError(f"source: expected a workload spec, an .mlir path, a Module or a network, "
                         f"found {type(source).__name__}")
    if passes:
        from accelsim.compile.accelerator import check_input_program
        from compiler.transforms.registry import PassManager, is_pass_flag

        flags = [p if p.startswith("--") else "--" + p for p in passes]
        unknown = [f for f in flags if not is_pass_flag(f)]
        if unknown:
            raise InputError(f"passes: not passes: {' '.join(unknown)}")
        check_input_program(program.module)
        PassManager.from_flags(flags).run(program.module)
    moves_data = opts.functional
    if isinstance(inputs, Mapping):
        if seed is not None:
            raise InputError("give either inputs or seed, not both")
        arrays = match_inputs(program.func, {k: np.asarray(v) for k, v in inputs.items()}, "inputs")
    else:
        arrays = load_inputs(program, inputs, seed, data=moves_data or check)
    run = run_program(program, cfg, arrays, opts)
    result = Result(program.source, program=run)
    if check:
        if not run.arrays:
            raise InputError("check needs output data: drop timing_only / fidelity='analytic'")
        result.check, _ = check_outputs(program, arrays, run.arrays)
    return result


def _run_network(source: str, config: str | HardwareConfig, overrides: Mapping[str, Any] | None,
                 *, fidelity: str, timing_only: bool, check: bool,
                 inputs: Mapping[str, np.ndarray] | str | None, seed: int | None,
                 workers: int | None, kernel_time_limit: float | None, conv_lowering: str,
                 dtype: str | None, shape: Mapping[str, Sequence[int]] | None, progress: bool,
                 schedule: str, others: Mapping[str, Any]) -> Result:
    from accelsim.api.network_run import NetworkOptions, load_network, run_network

    given = [k for k, v in others.items() if v]
    if given:
        raise InputError(f"{', '.join(given)}: not available for a network run ({source} is a "
                         "network; run one of its kernels as a workload spec instead)")
    if not isinstance(config, str):
        raise InputError("config: a network run takes a preset name or a TOML path")
    _config(config, overrides)  # a bad config or override is refused before anything runs
    shapes = {k: tuple(int(d) for d in v) for k, v in (shape or {}).items()}
    network, skipped = load_network(source, conv_lowering, shapes, dtype)
    opts = NetworkOptions(target="sim", fidelity=fidelity, timing_only=timing_only,
                          hardware=dict(overrides or {}), workers=workers,
                          kernel_time_limit=kernel_time_limit, check=check, seed=seed,
                          inputs_npz=inputs if isinstance(inputs, str) else None,
                          inputs=inputs if isinstance(inputs, Mapping) else None,
                          progress=progress, schedule=schedule)
    run = run_network(network, config, opts, source)
    run.dtype, run.dtype_skipped = dtype, tuple(skipped)
    check_result = run.functional.check if run.functional is not None else None
    return Result(source, network=run, check=check_result)


class UncompiledModuleWarning(UserWarning):
    """`accelsim.simulate` was given a module never compiled for the machine."""


def simulate(module: ModuleOp, config: str | HardwareConfig = "default", *args: Any,
             compile: bool = False, **kwargs: Any) -> Any:
    """`accelsim.sim.simulate.simulate` (same arguments, a `SimResult`) on a module that is
    already compiled for the machine: tiled, its data copied into the fast memory by DMA.

    `compile=True` first compiles `module` in place with the accelerator pipeline for
    `config` (the tile search of `accelsim run --target sim`). A module with no DMA whose
    kernels read and write the slow memory (DRAM) directly is simulated as given, but warns
    (`UncompiledModuleWarning`): every access then pays DRAM's latency, which is rarely what was
    meant. `accelsim.run(module, config)` does the whole `accelsim run --target sim` (compile,
    simulate, report)."""
    from accelsim.config import HardwareConfig, load_config
    from accelsim.sim.simulate import simulate as simulate_compiled

    cfg = config if isinstance(config, HardwareConfig) else load_config(config)
    func = args[1] if len(args) > 1 else kwargs.get("func")
    if cfg.clusters > 1:
        raise InputError(f"simulate() runs one cluster's program; config {cfg.name!r} has "
                         f"clusters = {cfg.clusters}: accelsim.run(module, config) compiles and "
                         "simulates every cluster's share (or set={'clusters': 1})")
    if compile:
        from accelsim.compile.accelerator import compile_for_accelerator

        compile_for_accelerator(cfg, module, func)
    elif reads_slow_memory_directly(module, cfg):
        import warnings

        warnings.warn("accelsim.simulate: the module was never compiled for the machine (no DMA; "
                      f"its kernels access memory space {cfg.spaces.dram}, the slow memory, "
                      "directly), so every access pays DRAM latency: use accelsim.run(module, "
                      "config) for what `accelsim run --target sim` does, or "
                      "accelsim.simulate(module, config, compile=True)",
                      UncompiledModuleWarning, stacklevel=2)
    return simulate_compiled(module, cfg, *args, **kwargs)


def reads_slow_memory_directly(module: ModuleOp, config: HardwareConfig) -> bool:
    """No DMA anywhere in `module`, and some load or store reaches the slow memory: a program
    the accelerator pipeline has not compiled (it copies every accessed region into the fast
    memory with DMA)."""
    from compiler.ir.ops import AffineDmaStartOp, AffineLoadOp, AffineStoreOp
    from compiler.ir.types import MemRefType

    slow = False
    for op in module.walk():
        if isinstance(op, AffineDmaStartOp):
            return False
        if isinstance(op, AffineLoadOp | AffineStoreOp):
            t = op.memref.type
            slow = slow or (isinstance(t, MemRefType) and t.memory_space == config.spaces.dram)
    return slow


__all__ = ["UncompiledModuleWarning", "reads_slow_memory_directly", "run", "simulate"]
