"""Make `toy_eval` (small closed-form evaluation functions) importable by the test modules and
by worker processes (forkserver and Dask workers inherit sys.path)."""

import sys
from pathlib import Path

HERE = str(Path(__file__).parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
