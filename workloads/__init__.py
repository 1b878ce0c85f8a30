"""The kernel library: one builder per kernel family, each with a numpy reference.

    import workloads
    w = workloads.get("gemm:M=64,N=48,K=32")      # defaults for omitted sizes, dtype=f32|f64
    module = w.module()                             # verified ModuleOp with func @gemm
    inputs = w.random_inputs(seed=0)                # {"A": ..., "B": ..., "C": ...}
    expected = w.reference(inputs)                  # every argument after the math
"""

from workloads.model import BoundWorkload, Param, Workload, WorkloadError
from workloads.registry import catalog, get, is_workload_spec, lookup, names
from workloads.spec import parse_spec

__all__ = [
    "BoundWorkload", "Param", "Workload", "WorkloadError", "catalog", "get", "is_workload_spec",
    "lookup", "names", "parse_spec",
]
