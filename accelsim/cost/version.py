"""`TIMING_MODEL_VERSION`: the version of everything that decides a design point's figures.

A stored DSE point is reused only while its row's version equals this one (and its config's
content hash equals the config's now: `accelsim.dse.staleness`). Bump it with any change that
moves a figure of some point: the cost model, the machine, the estimate, the accelerator
pipeline or its tile search, the report's formulas. Format: the date of the change, then a
counter for that day.
"""

TIMING_MODEL_VERSION = "2026.12.07.1"

# the package's own version (`accelsim --version`, stored with every DSE row); a leaf module,
# so the DSE workers read it without importing the package's API
PACKAGE_VERSION = "0.1.0"

__all__ = ["PACKAGE_VERSION", "TIMING_MODEL_VERSION"]
