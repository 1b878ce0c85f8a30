"""The catalog of workloads and `get(spec)`, the one entry point callers need."""

from __future__ import annotations

import importlib
from functools import cache

from workloads.model import BoundWorkload, Workload, WorkloadError
from workloads.spec import parse_spec

# Kernel-family modules; each exposes WORKLOADS: tuple[Workload, ...].
FAMILIES = ("gemm", "vector", "reduction", "softmax", "conv", "stencil", "polybench", "layers", "generic")


@cache
def catalog() -> dict[str, Workload]:
    """Every workload by name, in a stable (sorted) order."""
    found: dict[str, Workload] = {}
    for family in FAMILIES:
        module = importlib.import_module(f"workloads.{family}")
        for w in module.WORKLOADS:
            if w.name in found:
                raise RuntimeError(f"workload '{w.name}' is defined twice")
            found[w.name] = w
    return dict(sorted(found.items()))


def names() -> list[str]:
    return list(catalog())


def lookup(name: str) -> Workload:
    """By name (`2mm`, `jacobi-2d`) or by function name (`mm2`, `jacobi_2d`)."""
    table = catalog()
    if name in table:
        return table[name]
    for w in table.values():
        if w.func_name == name:
            return w
    raise WorkloadError(f"unknown workload '{name}'; known: {', '.join(table)}")


def get(spec: str) -> BoundWorkload:
    """`get("gemm:M=512,N=512,K=512")`; omitted parameters take their defaults."""
    name, values = parse_spec(spec)
    return lookup(name).bind(values)


def is_workload_spec(text: str) -> bool:
    """Whether `text` names a workload (for CLIs that take a `.mlir` path or a spec)."""
    try:
        name, _ = parse_spec(text)
        lookup(name)
    except WorkloadError:
        return False
    return True
