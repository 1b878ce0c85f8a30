"""`affine-loop-interchange`: run one perfect loop nest of a function with its loops in another
order, where the dependences allow it.

    --affine-loop-interchange="func=syrk nest=0 permutation=1,2,0"

`nest` counts the top-level `affine.for` ops of the function `func` (every function when
omitted); `permutation[p]` is the index, in the nest's perfect band (outer to inner), of the
loop that goes to depth p. The band's bounds are rebuilt from its iteration domain by isl
(`rewrite/permute.py`: `for i, for j <= i` becomes `for j, for i >= j`), so triangular,
trapezoidal and skewed nests permute as rectangular ones do. The order must be legal for the
dependence analysis (`permute.legal_orders`); an illegal or unsupported one leaves the nest
alone with a remark saying why. Not an upstream mlir-opt pass (upstream has the utility,
`interchangeLoops`, not a pass): the accelerator pipeline uses it when the analytic estimate
says another loop order schedules faster (`accelsim/compile/accelerator.py`), so that the
schedule does not depend on how the loops were written.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.ops import AffineForOp, ModuleOp
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.permute import (
    legal_orders,
    perfect_band,
    permutable_band,
    permute_band,
)


@dataclass(frozen=True)
class Options:
    func: str | None = None
    nest: int = 0
    permutation: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.nest < 0:
            raise ValueError(f"nest must be >= 0, got {self.nest}")
        if sorted(self.permutation) != list(range(len(self.permutation))):
            raise ValueError(f"permutation must be a permutation of 0..n-1, got "
                             f"{','.join(map(str, self.permutation)) or 'nothing'}")


class AffineLoopInterchangePass(Pass):
    name = "affine-loop-interchange"
    summary = "run a perfect loop nest in another loop order (legal orders only)"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        opts = self.options
        if not opts.permutation:
            return
        for func in module.funcs:
            if func.is_declaration or (opts.func is not None and func.sym_name != opts.func):
                continue
            roots = [op for op in func.body.ops if isinstance(op, AffineForOp)]
            if opts.nest >= len(roots):
                self.remark(func.loc, f"no interchange: @{func.sym_name} has {len(roots)} top-level "
                                      f"loop nest(s), nest={opts.nest} asked")
                continue
            band = perfect_band(roots[opts.nest])[:len(opts.permutation)]
            if len(band) < len(opts.permutation) or not permutable_band(band):
                self.remark(roots[opts.nest].loc,
                            f"no interchange: not a perfect band of {len(opts.permutation)} loops "
                            "with unit steps, no iter_args and unit-coefficient bounds")
                continue
            if not legal_orders(band, [opts.permutation]):
                self.remark(roots[opts.nest].loc,
                            "no interchange: a dependence forbids the order "
                            f"{','.join(map(str, opts.permutation))}")
                continue
            if list(opts.permutation) != list(range(len(band))):
                try:
                    permute_band(band, opts.permutation)
                except ValueError as exc:   # checked before the IR changes
                    self.remark(roots[opts.nest].loc, f"no interchange: {exc}")
