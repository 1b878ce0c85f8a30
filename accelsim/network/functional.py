"""A network run with data flowing: layer by layer, in order, each kernel fed the tensors its
bindings name (`accelsim.network.model.Kernel`), on the simulator (`target="sim"`: compiled
once per distinct kernel with the `--target sim` tile search, simulated functionally) or
natively (`target="host"`: the host backend, compiled once per kernel).

A tensor is a flat buffer in DRAM: a kernel argument reads it under the argument's shape
(same element count), and a view layer renames it. `check=True` runs onnx's
`ReferenceEvaluator` on the same inputs and compares every graph output.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accelsim.network.model import Kernel, Network, NetworkError
from accelsim.network.results import NetworkResult
from compiler.diagnostics import AccelsimError, DiagnosticError, Location

CHECK_RTOL = 1e-4


@dataclass
class FunctionalRun:
    network: Network
    target: str
    outputs: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray]
    wall_seconds: float
    result: NetworkResult | None = None       # per-layer figures (target sim)
    check: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def check_ok(self) -> bool | None:
        return None if self.check is None else bool(self.check["ok"])

    def report(self) -> dict[str, Any]:
        """The --json object: the network figures (target sim), outputs, and the check."""
        base: dict[str, Any] = self.result.to_dict() if self.result is not None else {
            "network": self.network.name, "source": self.network.source,
            "layer_count": len(self.network.layers)}
        base.update(self.meta)
        base["wall_seconds"] = self.wall_seconds
        base["functional"] = True
        base["outputs"] = {k: _describe(v) for k, v in self.outputs.items()}
        if self.check is not None:
            base["check"] = self.check
        return base


def _describe(a: np.ndarray) -> dict[str, Any]:
    import hashlib

    return {"shape": list(a.shape), "dtype": str(a.dtype), "sum": float(np.sum(a, dtype=np.float64)),
            "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()}




def network_inputs(network: Network, seed: int | None = None,
                   npz: str | None = None) -> dict[str, np.ndarray]:
    """Arrays for the graph inputs: from `npz` (keys: input names) or uniform [-1, 1) from `seed`."""
    if npz is not None:
        from accelsim.errors import InputError

        with np.load(npz, allow_pickle=False) as data:
            raw = {k: data[k] for k in data.files}
        missing = [n for n in network.inputs if n not in raw]
        extra = [n for n in raw if n not in network.inputs]
        if missing or extra:
            raise InputError(f"{npz}: the model's inputs are {', '.join(network.inputs)}"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unexpected {', '.join(extra)}" if extra else ""))
        for n, shape in network.inputs.items():
            if tuple(raw[n].shape) != shape:
                raise InputError(f"{npz}: input {n!r} has shape {raw[n].shape}, the model wants {shape}")
        return {n: np.ascontiguousarray(raw[n], dtype=_dtype(network.input_dtypes.get(n, "float32")))
                for n in network.inputs}
    rng = np.random.default_rng(0 if seed is None else seed)
    out: dict[str, np.ndarray] = {}
    for n, shape in network.inputs.items():
        dtype = _dtype(network.input_dtypes.get(n, "float32"))
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            out[n] = rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)
        else:
            out[n] = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    return out


def _as_declared(a: np.ndarray, dtype: str | None) -> np.ndarray:
    """uint8 outputs come back from the kernels as the same bits in int8."""
    if dtype == "uint8" and a.dtype == np.int8:
        return a.view(np.uint8)
    return a


def _dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


class _Runner:
    """Runs one kernel on its argument arrays; compiled once per distinct workload spec."""

    def __init__(self, target: str, config: str):
        self.target = target
        self.config_name = config
        self._host: dict[str, Any] = {}
        self.figures: dict[str, dict[str, Any]] = {}
        if target == "sim":
            from accelsim.config import load_config

            self.config = load_config(config)

    def run(self, spec: str, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        import workloads

        w = workloads.get(spec)
        if self.target == "host":
            from compiler.backend import compile_module

            compiled = self._host.get(spec)
            if compiled is None:
                compiled = self._host[spec] = compile_module(w.module())
            compiled.call(w.func_name, arrays)
            return arrays
        from accelsim.api.program import Program, pick_function
        from accelsim.api.program_run import RunOptions, run_program
        from accelsim.dse.evaluate import compiled_module, report_figures, workload_traffic
        from accelsim.dse.spec import Point

        point = Point(workload=spec, config=self.config_name, compiler=(("tile_sizes", "search"),),
                      fidelity="event", functional=True)
        module = compiled_module(point, self.config)
        run = run_program(Program(spec, module, pick_function(module, w.func_name), w), self.config,
                          arrays, RunOptions(estimate=False), compiled=module,
                          compulsory=workload_traffic(spec, self.config))
        if spec not in self.figures:
            self.figures[spec] = report_figures(run.report)
        result = run.sim
        assert result is not None
        return dict(result.outputs or {})


def run_functional(network: Network, target: str = "sim", config: str = "default",
                   seed: int | None = None, inputs_npz: str | None = None, check: bool = False,
                   progress: bool = True, inputs: dict[str, np.ndarray] | None = None,
                   schedule: str = "layer-by-layer") -> FunctionalRun:
    """`schedule` "fused" (target sim): the groups the fused schedule's timing plan chooses run
    as one program each, data flowing through their on-chip intermediates
    (`accelsim.network.fused.FusedData`); the other layers as layer by layer runs them."""
    if not network.functional:
        raise NetworkError(f"{network.source} describes layer shapes only: a functional run needs a "
                           "model with data (ONNX)", Location(network.source, 0, 0))
    feeds = inputs if inputs is not None else network_inputs(network, seed, inputs_npz)
    tensors: dict[str, np.ndarray] = {**network.constants, **feeds}
    runner = _Runner(target, config)
    fused = None
    if schedule == "fused" and target == "sim":
        from accelsim.network.fused import FusedData

        fused = FusedData(network, config)
    bar = _bar(len(network.layers), progress, network.name)
    start = time.perf_counter()
    index = 0
    while index < len(network.layers):
        layer = network.layers[index]
        group = fused.group_at(index) if fused is not None else None
        try:
            if group is not None:
                fused.run(group, tensors)  # type: ignore[union-attr]
            else:
                for kernel in layer.kernels:
                    _run_kernel(kernel, tensors, runner)
        except AccelsimError as exc:
            if bar is not None:
                bar.close()
            raise _layer_failed(network, index, exc, runner, config, start) from None
        for member in (network.layers[index:group.last + 1] if group is not None else (layer,)):
            for new, old in member.views:
                if old in tensors:  # a view of an intermediate kept on chip: never read
                    tensors[new] = tensors[old]
        if bar is not None:
            bar.update(1 if group is None else group.last + 1 - index)
        index = index + 1 if group is None else group.last + 1
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - start
    outputs = {n: _as_declared(tensors[n], network.input_dtypes.get(n)).reshape(shape)
               for n, shape in network.outputs.items()}
    run = FunctionalRun(network, target, outputs, feeds, wall,
                        meta={"distinct_kernels": len(network.distinct_workloads())})
    if target == "sim":
        from accelsim.config import load_config

        cfg = load_config(config)
        meta = {"target": "sim", "timing_only": False, "distinct_kernels": len(runner.figures),
                "wall_seconds": wall}
        if fused is not None:
            run.result = fused.result(runner.figures, meta)
        else:
            run.result = NetworkResult.build(network, runner.figures, cfg.name, "event", cfg.clock_ghz,
                                             meta)
    if check:
        run.check = compare_with_reference(network, feeds, outputs)
    return run


def _layer_failed(network: Network, index: int, exc: AccelsimError, runner: _Runner, config: str,
                  start: float) -> Exception:
    """The error of layer `index`, with the result of the layers before it (`NetworkRunError`)."""
    from dataclasses import replace

    from accelsim.network.timing import NetworkRunError

    layer = network.layers[index]
    done = replace(network, layers=network.layers[:index])
    partial = None
    if runner.target == "sim":
        cfg = runner.config
        partial = NetworkResult.build(done, runner.figures, cfg.name, "event", cfg.clock_ghz,
                                      {"target": "sim", "timing_only": False,
                                       "distinct_kernels": len(done.distinct_workloads()),
                                       "wall_seconds": time.perf_counter() - start})
    why = exc.message if isinstance(exc, DiagnosticError) else str(exc)
    return NetworkRunError(f"layer {index + 1} of {len(network.layers)}, {layer.name!r} failed: "
                           f"{why}; {index} layer{'s' if index != 1 else ''} before it finished",
                           Location(network.source, 0, 0), layer.name, index, partial,
                           tuple(lr.name for lr in done.layers))


def _run_kernel(kernel: Kernel, tensors: dict[str, np.ndarray], runner: _Runner) -> None:
    import workloads

    w = workloads.get(kernel.workload)
    reads = dict(kernel.reads)
    arrays: dict[str, np.ndarray] = {}
    for arg, t in w.arg_types().items():
        shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
        if arg in reads:
            src = tensors[reads[arg]]
            if src.size != int(np.prod(shape)):
                raise NetworkError(f"kernel {kernel.workload}: argument {arg} {shape} is fed tensor "
                                   f"{reads[arg]!r} of shape {src.shape}", Location("<network>", 0, 0))
            arrays[arg] = np.array(src, dtype=t.element.numpy_dtype, copy=True).reshape(shape)
        else:
            arrays[arg] = np.zeros(shape, dtype=t.element.numpy_dtype)
    out = runner.run(kernel.workload, arrays)
    for arg, t in kernel.writes:
        tensors[t] = out[arg]


def compare_with_reference(network: Network, feeds: dict[str, np.ndarray],
                           outputs: dict[str, np.ndarray]) -> dict[str, Any]:
    """Every graph output against `onnx.reference.ReferenceEvaluator` on the same inputs:
    |ours - ref| <= rtol·|ref| + atol with atol = rtol·max|ref| (float32 on both sides; the
    summation orders differ)."""
    import onnx
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(network.source)
    ref = ReferenceEvaluator(model)
    values = ref.run(None, feeds)
    names = [o.name for o in model.graph.output]
    worst: dict[str, float] = {}
    ok = True
    for name, want in zip(names, values, strict=True):
        got = outputs[name].astype(np.float64)
        want64 = np.asarray(want, dtype=np.float64)
        atol = CHECK_RTOL * float(np.max(np.abs(want64), initial=0.0))
        worst[name] = float(np.max(np.abs(got - want64), initial=0.0))
        ok &= bool(got.shape == want64.shape and np.allclose(got, want64, rtol=CHECK_RTOL, atol=atol))
    return {"ok": ok, "rtol": CHECK_RTOL, "atol": CHECK_RTOL, "max_abs_error": worst,
            "reference": "onnx.reference.ReferenceEvaluator"}


def _bar(total: int, progress: bool, name: str) -> Any:
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"{name}: layers", unit="layer", leave=False, disable=None)
