"""The onnx wheel's own backend test data as a measuring stick for the importer.

`backend_cases()` lists the node-free model cases the `onnx` package ships
(`onnx/backend/test/data/{pytorch-converted,pytorch-operator,simple}/*` with a
`test_data_set_0`); `run_case(dir)` imports one, runs it functionally on the simulator (or the
host) with the shipped inputs and compares every output with the shipped expected output at
ONNX's backend tolerances (rtol 1e-3, atol 1e-4). The outcome is `pass`, `wrong` (ran, differs),
`refused` (a clear `AccelsimError`: its message is the reason) or `crash` (any other exception,
or the importer's "internal error" for a node it misread).
`zoo_models()` lists the `light/` model-zoo graphs (timing only).
"""

from __future__ import annotations

import glob
import os
import re
import traceback
from dataclasses import dataclass

import numpy as np

SUITES = ("pytorch-converted", "pytorch-operator", "simple")
RTOL, ATOL = 1e-3, 1e-4


def data_dir() -> str | None:
    """`onnx/backend/test/data` of the installed onnx, or None when the wheel lacks it."""
    try:
        import onnx
    except ImportError:
        return None
    d = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    return d if os.path.isdir(d) else None


def backend_cases() -> list[str]:
    """Every case directory with a model and test data, sorted by suite then name."""
    root = data_dir()
    if root is None:
        return []
    out = []
    for suite in SUITES:
        for case in sorted(glob.glob(os.path.join(root, suite, "*"))):
            if os.path.isfile(os.path.join(case, "model.onnx")) and \
                    os.path.isdir(os.path.join(case, "test_data_set_0")):
                out.append(case)
    return out


def zoo_models() -> list[str]:
    root = data_dir()
    return sorted(glob.glob(os.path.join(root, "light", "*.onnx"))) if root else []


def case_name(case: str) -> str:
    return f"{os.path.basename(os.path.dirname(case))}/{os.path.basename(case)}"


@dataclass
class Outcome:
    case: str
    status: str          # pass | wrong | refused | crash
    reason: str = ""     # the refusal message, the crash's last line, or the mismatch
    layers: int = 0

    @property
    def group(self) -> str:
        """The reason without node and tensor names: what refusals have in common."""
        text = re.sub(r"^.*?: error: ", "", self.reason)
        text = re.sub(r"node '[^']*' ", "", text)
        text = re.sub(r"'[^']*'", "'…'", text)
        text = re.sub(r"\([^()]*\d[^()]*\)", "(…)", text)
        return text[:140]


def read_case(case: str) -> tuple[object, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The model, its inputs by name and its expected outputs by name."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(os.path.join(case, "model.onnx"))
    init = {i.name for i in model.graph.initializer}
    in_names = [i.name for i in model.graph.input if i.name not in init]
    out_names = [o.name for o in model.graph.output]
    data = os.path.join(case, "test_data_set_0")

    def load(prefix: str, names: list[str]) -> dict[str, np.ndarray]:
        out = {}
        for i, name in enumerate(names):
            path = os.path.join(data, f"{prefix}_{i}.pb")
            if not os.path.exists(path):
                continue
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            out[name] = numpy_helper.to_array(t)
        return out

    return model, load("input", in_names), load("output", out_names)


def run_case(case: str, target: str = "sim", config: str = "default") -> Outcome:
    from google.protobuf import json_format, message

    from accelsim.network.functional import run_functional
    from accelsim.network.onnx_import import import_model
    from compiler.diagnostics import AccelsimError

    try:
        model, inputs, expected = read_case(case)
    except (OSError, ValueError, message.Error, json_format.Error) as exc:
        # a case whose files cannot be read, or whose protobufs onnx itself cannot parse
        return Outcome(case, "refused", f"test data unreadable: {exc}")
    try:
        shapes = {k: tuple(v.shape) for k, v in inputs.items()}
        net = import_model(model, os.path.join(case, "model.onnx"), shapes=shapes)
        run = run_functional(net, target, config, progress=False, inputs=inputs)
    except AccelsimError as exc:
        from accelsim.network.onnx_import import INTERNAL

        status = "crash" if INTERNAL in str(exc) else "refused"
        return Outcome(case, status, str(exc).splitlines()[0])
    except Exception as exc:  # the measuring stick's purpose: any other exception is a crash
        # counted and named by its type and message (bench/onnx_backend.py lists them), so a
        # bug surfaces as `crash`, never as `refused`
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return Outcome(case, "crash", last)
    for name, want in expected.items():
        got = run.outputs.get(name)
        if got is None:
            return Outcome(case, "wrong", f"output {name!r} missing", len(net.layers))
        want = np.asarray(want)
        if got.shape != want.shape or not np.allclose(got.astype(np.float64), want.astype(np.float64),
                                                      rtol=RTOL, atol=ATOL, equal_nan=True):
            err = float(np.max(np.abs(got.astype(np.float64) - want))) if got.shape == want.shape else -1
            return Outcome(case, "wrong", f"output {name!r}: shape {got.shape} vs {want.shape}, "
                                          f"max abs error {err:.3g}", len(net.layers))
    return Outcome(case, "pass", "", len(net.layers))
