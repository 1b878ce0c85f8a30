"""The committed zoo (workloads/networks/) is what its generator writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import workloads

ZOO = Path(workloads.__file__).resolve().parent / "networks"


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("zoo_generate", ZOO / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_zoo_matches_the_generator(tmp_path: Path) -> None:
    gen = _generator()
    assert gen.main(["--out", str(tmp_path)]) == 0
    for name in gen.ZOO:
        assert (ZOO / name).read_text() == (tmp_path / name).read_text(), f"{name} is stale"
    assert gen.main(["--check"]) == 0
    (tmp_path / "gpt2.layers").write_text("x")
    assert gen.main(["--check", "--out", str(tmp_path)]) == 1
