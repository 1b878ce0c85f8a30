import os
import shutil

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
