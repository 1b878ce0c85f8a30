"""lit configuration of accelsim's FileCheck tests (`make test` runs them through
tests/lit/test_lit_suite.py; by hand: `.venv/bin/lit tests/lit`).

Substitutions: `accelsim opt` is this tree's `python -m accelsim opt`, `filecheck` is the PyPI
FileCheck beside the interpreter; `%mlir-opt` is upstream mlir-opt-19 where installed (feature
`mlir-opt`: `// RUN: %if mlir-opt %{ ... %}` lines check upstream against the same CHECKs).
"""

# ruff: noqa: F821  (lit provides `config`)
import hashlib
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = "accelsim"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# outputs (%t files, lit's timing record) go outside the tree, one folder per checkout
_tag = hashlib.sha256(config.test_source_root.encode()).hexdigest()[:12]
config.test_exec_root = os.path.join(tempfile.gettempdir(), f"accelsim-lit-{_tag}")

_root = os.path.dirname(os.path.dirname(config.test_source_root))
config.environment["PYTHONPATH"] = _root
_python = sys.executable
_bin = os.path.dirname(_python)
_filecheck = shutil.which("filecheck", path=_bin) or shutil.which("filecheck")
if _filecheck is None:
    lit_config.fatal("filecheck not found: pip install filecheck (the 'test' extra)")

config.substitutions.append((r"\baccelsim opt\b", f"{_python} -m accelsim opt"))
config.substitutions.append((r"\bfilecheck\b", _filecheck))

_mlir_opt = shutil.which("mlir-opt-19")
if _mlir_opt is not None:
    config.available_features.add("mlir-opt")
    config.substitutions.append(("%mlir-opt", _mlir_opt))
