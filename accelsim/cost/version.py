"""`TIMING_MODEL_VERSION`: the version of everything that decides a design point's figures.

A stored DSE point is reused only while its row's version equals this one (and its config's
content hash equals the config's now: `accelsim.dse.staleness`). Bump it with any change that
moves a figure of some point: the cost model, the machine, the estimate, the accelerator
pipeline or its tile search, the report's formulas. Format: the date of the change, then a
counter for that day.
"""

TIMING_MODEL_VERSION = "2026.12.07.1"

__all__ = ["TIMING_MODEL_VERSION"]
