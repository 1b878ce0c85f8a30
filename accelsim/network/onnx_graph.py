"""The state an ONNX import shares with the op lowerings: tensor shapes, constants, uses."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from accelsim.network.model import NetworkError
from compiler.diagnostics import Location


@dataclass
class Graph:
    """What the op lowerings read and extend while the nodes are walked."""

    path: str
    shapes: dict[str, tuple[int, ...]]
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    uses: dict[str, int] = field(default_factory=dict)

    def shape(self, name: str, node: object) -> tuple[int, ...]:
        if name in self.constants:
            return tuple(self.constants[name].shape)
        if name not in self.shapes:
            raise self.error(node, f"the shape of tensor {name!r} is unknown after shape inference "
                                   "(a dynamic dimension?); give the model static shapes")
        return self.shapes[name]

    def is_constant(self, name: str) -> bool:
        return name in self.constants

    def add_constant(self, name: str, value: np.ndarray) -> None:
        self.constants[name] = np.ascontiguousarray(value, dtype=np.float32)

    def constant(self, name: str) -> np.ndarray:
        return self.constants[name]

    def error(self, node: object, message: str) -> NetworkError:
        return NetworkError(f"node {node_name(node)!r} ({node.op_type}): {message}",  # type: ignore[attr-defined]
                            Location(self.path, 0, 0))


def node_name(node: object) -> str:
    name = getattr(node, "name", "") or ""
    outputs = list(getattr(node, "output", ()))
    return name or (outputs[0] if outputs else "?")
