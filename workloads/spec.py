"""The workload spec syntax: `name` or `name:key=value,key=value` (e.g. `gemm:M=512,K=64`)."""

from __future__ import annotations

import re

from workloads.model import WorkloadError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec into the workload name and the raw parameter texts (parsed later, by type)."""
    if not isinstance(spec, str):
        raise WorkloadError(f"a workload spec must be a string, got {type(spec).__name__}")
    name, colon, rest = spec.strip().partition(":")
    name = name.strip()
    if not _NAME.match(name):
        raise WorkloadError(f"malformed workload spec '{spec}': expected name[:key=value,...], "
                            f"and the name '{name}' is not a workload name")
    values: dict[str, str] = {}
    if not colon:
        return name, values
    if not rest.strip():
        raise WorkloadError(f"malformed workload spec '{spec}': nothing after ':' "
                            f"(write '{name}' alone for the defaults)")
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not _KEY.match(key) or not value:
            raise WorkloadError(f"malformed workload spec '{spec}': expected key=value, got '{item.strip()}'")
        if key in values:
            raise WorkloadError(f"malformed workload spec '{spec}': '{key}' is given twice")
        values[key] = value
    return name, values
