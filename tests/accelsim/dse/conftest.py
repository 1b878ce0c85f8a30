"""Make `toy_eval` (small closed-form evaluation functions) importable by the test modules and,
through PYTHONPATH, by worker processes and `accelsim dse run` subprocesses."""

import os
import sys
from pathlib import Path

import pytest

HERE = str(Path(__file__).parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture
def toy_env() -> dict[str, str]:
    """Environment for a subprocess that must import toy_eval."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [HERE, env.get("PYTHONPATH", "")]))
    return env
