"""What a run means: `Report` (every figure derived from the trace, the config and the
program's compulsory traffic), the honest roofline and I/O bounds, the comparison of two runs,
and the Perfetto / Chrome trace export."""

from accelsim.report.compare import compare, compare_rows
from accelsim.report.figures import (
    UNIT_ORDER,
    BufferRow,
    Energy,
    Report,
    UnitRow,
    expected_units,
    metrics,
    unit_group,
    unit_sort_key,
)
from accelsim.report.roofline import IoLowerBound, Roofline, input_traffic, io_lower_bound

__all__ = ["UNIT_ORDER", "BufferRow", "Energy", "IoLowerBound", "Report", "Roofline", "UnitRow",
           "compare", "compare_rows", "expected_units", "input_traffic", "io_lower_bound", "metrics",
           "unit_group", "unit_sort_key"]
