"""Where a network comes from: a file (`.csv` SCALE-Sim topology, `.layers` layer list,
`.onnx` model) or the name of a zoo network shipped in `workloads/networks/`."""

from __future__ import annotations

import os
from pathlib import Path

import workloads
from accelsim.network.model import Network

ZOO_DIR = Path(workloads.__file__).resolve().parent / "networks"
SUFFIXES = (".csv", ".layers", ".onnx")


def zoo() -> dict[str, Path]:
    """Zoo name -> file, sorted by name."""
    if not ZOO_DIR.is_dir():
        return {}
    found = {p.stem: p for p in ZOO_DIR.iterdir() if p.suffix in (".csv", ".layers")}
    return dict(sorted(found.items()))


def is_network_input(source: str) -> bool:
    """Whether `accelsim run SOURCE` names a network (by suffix or zoo name)."""
    return source.lower().endswith(SUFFIXES) or source in zoo()


def describe(path: Path) -> str:
    """The first comment line of a layer list, or the layer count of a topology."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".layers":
        for line in text.splitlines():
            if line.startswith("#"):
                return line.lstrip("# ").strip()
    rows = [ln for ln in text.splitlines()[1:] if ln.strip()]
    return f"SCALE-Sim topology, {len(rows)} rows"


def load_network(source: str, choice: str = "auto",
                 shapes: dict[str, tuple[int, ...]] | None = None) -> Network:
    """Read SOURCE (a file or a zoo name); `choice` is the convolution lowering (`auto`, ...);
    `shapes` binds ONNX inputs' symbolic dimensions (`--shape NAME=DIMS`)."""
    path = str(zoo().get(source, source))
    if source not in zoo() and not os.path.exists(path):
        from accelsim.errors import InputError

        raise InputError(f"{source}: no such file, and not a zoo network (zoo: {', '.join(zoo())})")
    lower = path.lower()
    if lower.endswith(".csv"):
        from accelsim.network.topology import read_topology

        return read_topology(path, choice)
    if lower.endswith(".onnx"):
        from accelsim.network.onnx_import import read_onnx

        return read_onnx(path, choice, shapes)
    if shapes:
        from accelsim.errors import InputError

        raise InputError(f"--shape: only ONNX models have inputs to bind ({source} is not .onnx)")
    from accelsim.network.layerlist import read_layer_list

    return read_layer_list(path, choice)
