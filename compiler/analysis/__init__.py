"""Polyhedral analysis over the affine IR with islpy (read-only: never mutates IR).

Iteration domains, access relations, memref regions and footprints, dependences, and the
legality queries the loop transforms ask. See CONTRACTS.md for the agreed API.
"""

from compiler.analysis.access import Access, access_relation, accesses_in, op_accesses
from compiler.analysis.domain import enclosing_loops, iteration_domain
from compiler.analysis.isl_bridge import AnalysisError, isl_name
from compiler.analysis.region import MemRefRegion, memref_regions

__all__ = [
    "Access", "AnalysisError", "MemRefRegion", "access_relation", "accesses_in",
    "enclosing_loops", "isl_name", "iteration_domain", "memref_regions", "op_accesses",
]
