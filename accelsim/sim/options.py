"""How a simulation runs: `SimOptions`, one frozen value instead of boolean arguments."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SimOptions:
    """`functional`: move real data (DMAs copy, kernels run) or timing only;
    `outline`: outline loop nests left in the control program into kernels first
    (`outline-kernels`); `interpret_kernels`: run kernel bodies in the executor instead of
    natively on the host backend; `compiled`: run the control program compiled to Python
    with per-op specialized handlers, or op by op through the generic handlers (same
    results; for cross-checking); `keep_records`: keep every trace record (for timelines,
    trace files, record-level figures) or only the streaming summary the report needs
    (`accelsim.trace.summary`: the same figures, memory that does not grow with the run);
    `share_programs`: in a many-cluster run, clusters whose programs differ only in affine
    parameters run one IR with their own maps, its plans and generated code made once
    (`accelsim.sim.program_match`; the modules are matched as given and one copy of each
    distinct program outlined, the inputs left as they are), or each cluster its own, its
    module outlined in place (same results; for cross-checking)."""

    functional: bool = True
    outline: bool = True
    interpret_kernels: bool = False
    compiled: bool = True
    keep_records: bool = True
    share_programs: bool = True

    def updated(self, **flags: bool | None) -> SimOptions:
        """These options with the flags given (not None) replaced: what the keyword
        arguments of `simulate()` and `Executor()` (kept for callers of the old API) mean."""
        given = {k: v for k, v in flags.items() if v is not None}
        return dataclasses.replace(self, **given) if given else self
