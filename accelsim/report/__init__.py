"""What a run means: `Report` (every figure derived from the trace and the config), the
comparison of two runs, and the Perfetto / Chrome trace export."""

from accelsim.report.figures import (
    UNIT_ORDER,
    BufferRow,
    Energy,
    Report,
    Roofline,
    UnitRow,
    compare,
    compare_rows,
    expected_units,
    metrics,
    unit_group,
    unit_sort_key,
)

__all__ = ["UNIT_ORDER", "BufferRow", "Energy", "Report", "Roofline", "UnitRow", "compare",
           "compare_rows", "expected_units", "metrics", "unit_group", "unit_sort_key"]
