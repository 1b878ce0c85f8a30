"""Polyhedral analysis over the affine IR with islpy (read-only: never mutates IR).

Iteration domains, access relations, memref regions and footprints, dependences, and the
legality queries the loop transforms ask. See CONTRACTS.md for the agreed API.
"""

from compiler.analysis.access import Access, access_relation, accesses_in, op_accesses
from compiler.analysis.dependence import (
    Dependence,
    all_dependences,
    common_loops,
    dependence_list,
    dependences,
    loop_depth,
)
from compiler.analysis.domain import enclosing_loops, iteration_domain
from compiler.analysis.footprint import footprint_bytes
from compiler.analysis.isl_bridge import AnalysisError, isl_name
from compiler.analysis.legality import (
    band_violation,
    is_band_permutable,
    is_parallel,
    is_valid_shift,
    shift_violation,
    tiling_violation,
)
from compiler.analysis.region import MemRefRegion, memref_regions

__all__ = [
    "Access", "AnalysisError", "Dependence", "MemRefRegion", "access_relation", "accesses_in",
    "all_dependences", "band_violation", "common_loops", "dependence_list", "dependences",
    "enclosing_loops", "footprint_bytes", "is_band_permutable", "is_parallel", "is_valid_shift",
    "isl_name", "iteration_domain", "loop_depth", "memref_regions", "op_accesses",
    "shift_violation", "tiling_violation",
]
