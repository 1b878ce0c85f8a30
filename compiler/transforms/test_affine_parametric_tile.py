"""`test-affine-parametric-tile`: upstream's test pass for parametric tiling
(mlir/test/lib/Dialect/Affine/TestAffineLoopParametricTiling.cpp), spelled as mlir-opt spells it.

Every outermost loop of a function heads a band (its perfectly nested loops); the band of
`n` loops is tiled with the function's first `n` arguments as tile sizes, which must be of
type `index` (upstream's test convention: tile sizes are passed before any other argument).
The bounds this builds are semi-affine in the tile sizes (`tiling/parametric.py`); the result
is exact for every tile size >= 1 (a tile size of 0 is a division by zero at run time).

Errors, located at the band's outermost loop, where upstream emits one: fewer function
arguments than loops in the band, a tile-size argument that is not an `index`, a band whose
bounds depend on its own IVs (not hyper-rectangular). A lower bound that is not a constant
(upstream asserts) is an error too. A band whose loops carry iter_args is left alone with a
remark (upstream's rewrite does not carry them).

Legality stays ours (upstream's test pass checks none): a band is tiled only when every
dependence has non-negative components in it (fully permutable: legal for every tile size),
and not when an op of unknown memory effect or an access proven out of bounds is inside;
otherwise it is left alone with a remark naming the reason.
"""

from __future__ import annotations

from compiler.analysis.bounds import first_out_of_bounds
from compiler.analysis.isl_bridge import AnalysisError
from compiler.analysis.legality import band_violation, opaque_memory_op
from compiler.diagnostics import PassError
from compiler.ir.ops import AffineForOp, ModuleOp
from compiler.ir.types import INDEX
from compiler.transforms.pass_base import Pass
from compiler.transforms.tiling.bands import is_hyper_rectangular, perfect_band
from compiler.transforms.tiling.parametric import tile_band_parametric


class TestAffineParametricTilePass(Pass):
    __test__ = False   # not a pytest class, whatever its name
    name = "test-affine-parametric-tile"
    summary = "Tile affine loops using SSA values as tile sizes"

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if func.is_declaration:
                continue
            roots = [op for op in func.body.ops if isinstance(op, AffineForOp)]
            for root in roots:
                if root.inits:
                    self.remark(root.loc, "band not tiled: its outermost loop carries iter_args")
                    continue
                band = perfect_band(root)
                args = func.args
                if len(args) < len(band):
                    raise PassError("too few tile sizes provided in the argument list of the function "
                                    f"which contains the current band (a band of {len(band)} loops, "
                                    f"@{func.sym_name} has {len(args)} argument(s))", root.loc)
                sizes = args[:len(band)]
                bad = next((k for k, v in enumerate(sizes) if v.type != INDEX), None)
                if bad is not None:
                    raise PassError("expected tiling parameters to be of index type (argument "
                                    f"#{bad} of @{func.sym_name} is {sizes[bad].type})", root.loc)
                if not is_hyper_rectangular(band):
                    raise PassError("tiled code generation unimplemented for the non-hyperrectangular "
                                    "case", root.loc)
                loose = next((lp for lp in band if lp.constant_lower is None), None)
                if loose is not None:
                    raise PassError("parametric tiling needs constant lower bounds; this loop's lower "
                                    "bound is not a constant", loose.loc)
                why = self._illegal(band)
                if why is not None:
                    self.remark(root.loc, f"band of {len(band)} loops not tiled: {why}")
                    continue
                tile_band_parametric(band, sizes)

    @staticmethod
    def _illegal(band: list[AffineForOp]) -> str | None:
        """Why tiling the band with some tile size could change the program, or None."""
        opaque = opaque_memory_op(band[0])
        if opaque is not None:
            return f"{opaque.NAME} at {opaque.loc} has unknown memory effects"
        oob = first_out_of_bounds(band[0])
        if oob is not None:
            return f"{oob.message()}; no dependence analysis vouches for reordering it"
        try:
            dep = band_violation(band)
        except AnalysisError as exc:
            return exc.message
        if dep is not None:
            return f"tiling would reverse the {dep} for some tile sizes"
        return None
