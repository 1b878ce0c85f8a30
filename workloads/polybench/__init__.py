"""PolyBench/C 4.2.1, all 30 kernels, by PolyBench's categories (see docs/polybench.md).

jacobi-2d is `workloads.stencil`'s (the same nest; `T` counts sweeps, PolyBench's TSTEPS is
T/2); PolyBench's gemm is `pb_gemm` here, since the library's `gemm` is C += A·B in i, j, k.
"""

from workloads.polybench import blas, datamining, kernels, medley, solvers, stencils

WORKLOADS = (*kernels.WORKLOADS, *blas.WORKLOADS, *solvers.WORKLOADS, *datamining.WORKLOADS,
             *medley.WORKLOADS, *stencils.WORKLOADS)
