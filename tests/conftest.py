import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

MLIR_OPT = shutil.which("mlir-opt-19")


@pytest.fixture
def mlir_opt() -> str:
    if MLIR_OPT is None:
        pytest.skip("upstream mlir-opt-19 not installed (apt-get install -y mlir-19-tools)")
    return MLIR_OPT


SLOW_CASES = frozenset(
    line.strip() for line in (Path(__file__).parent / "slow_cases.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The cases `slow_cases.txt` names get the `slow` mark (before `-m` deselects)."""
    for item in items:
        if item.nodeid in SLOW_CASES:
            item.add_marker(pytest.mark.slow)
