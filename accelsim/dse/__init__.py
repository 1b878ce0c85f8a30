"""Design-space exploration: sweep specs, local/Dask runners, the SQLite store, Pareto fronts.

    from accelsim import dse
    sweep = dse.Sweep(workloads=["gemm:M=128,N=128,K=128"],
                      hardware={"sram.capacity_kib": [64, 128, 256]})
    # defaults as `accelsim run --target sim`: the tile search's tiles (tile_sizes="search");
    # fidelity "analytic" (cycles and energy; "event" for every report figure)
    dse.run_sweep(sweep, "results.sqlite")          # local processes, one per core, a progress bar
    df = dse.load("results.sqlite")                 # pandas DataFrame, one row per point
    front = dse.pareto_front(df, ["cycles", "energy_pj"])
    own = dse.Sweep(workloads=["gemm:M=128,N=128,K=128"],   # a tiling of one's own: stages too
                    compiler={"tile_sizes": "auto", "stages": [1, 2]})
    best = dse.autotune("gemm:M=256,N=256,K=256", "default")   # tile sizes x stages
"""

from accelsim.dse.autotune import TuneResult, autotune
from accelsim.dse.constraints import Constraint, ConstraintError
from accelsim.dse.evaluate import evaluate_point
from accelsim.dse.pareto import non_dominated_sort, pareto_front, pareto_mask
from accelsim.dse.runners import SweepSummary, run_point, run_sweep
from accelsim.dse.spec import COMPILER_OPTIONS, FIDELITIES, Point, Sweep, from_dict, load_spec
from accelsim.dse.store import Outcome, ResultStore, load

__all__ = [
    "COMPILER_OPTIONS", "FIDELITIES", "Constraint", "ConstraintError", "Outcome", "Point",
    "ResultStore", "Sweep", "SweepSummary", "TuneResult", "autotune", "evaluate_point", "from_dict",
    "load", "load_spec", "non_dominated_sort", "pareto_front", "pareto_mask", "run_point", "run_sweep",
]
