"""Perfect loop nests written in every order of their loops: the same statements over the same
iteration domain, the loop bounds of each order derived from the domain by isl (projection,
so a triangular `j <= i` becomes `i >= j` when `j` goes outside), each order kept only where
the compiler's dependence analysis says it is legal.

    for order, module in loop_orders(NESTS["syrk"], N=64, M=48):   # ("i", "j", "k"), ...

The question these answer is issue 31's "the schedule must not depend on how the loops were
written": `tests/accelsim/compile/test_loop_order.py` compiles every legal order and compares
the cycles; `bench/bench_loop_order.py` records them. Each nest is the 3-deep update of a
PolyBench/C 4.2.1 kernel (gemm, syrk, syr2k, trmm, symm, 2mm: `workloads/polybench/`) reduced
to its perfect part: PolyBench's scaling statements (`C *= beta`, `B = alpha * B`) and symm's
scalar `temp2` (kept here in a matrix `T`) sit outside the nest, where no order changes them.
A kernel of several nests (2mm) permutes them all alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.ir.ops import AffineForOp, ModuleOp
from compiler.text import parse_module


@dataclass(frozen=True, slots=True)
class Nest:
    """One perfect nest: its loops (names as written in the canonical order), its domain
    (isl constraints over the loop names and the size names) and its body (MLIR text using
    `%<loop>` for the IVs, `{SIZE}` for the sizes)."""

    loops: tuple[str, ...]
    domain: str
    body: str


@dataclass(frozen=True, slots=True)
class Kernel:
    """A function of one or more perfect nests over the same loop names."""

    func: str
    args: tuple[tuple[str, str], ...]        # (name, shape as "{N}x{M}")
    nests: tuple[Nest, ...]
    sizes: Mapping[str, int]                 # defaults

    def signature(self, sizes: Mapping[str, int]) -> str:
        return ", ".join(f"%{n}: memref<{shape.format(**sizes)}xf32>" for n, shape in self.args)


def _mac(out: str, a: str, b: str, shape_out: str, shape_a: str, shape_b: str, tag: str) -> str:
    """`out += alpha * a * b` as MLIR text (the loads, two multiplies, an add, a store)."""
    return (f"%{tag}a = affine.load {a} : memref<{shape_a}xf32>\n"
            f"%{tag}b = affine.load {b} : memref<{shape_b}xf32>\n"
            f"%{tag}p = arith.mulf %{tag}a, %{tag}b : f32\n"
            f"%{tag}q = arith.mulf %alpha, %{tag}p : f32\n"
            f"%{tag}c = affine.load {out} : memref<{shape_out}xf32>\n"
            f"%{tag}s = arith.addf %{tag}c, %{tag}q : f32\n"
            f"affine.store %{tag}s, {out} : memref<{shape_out}xf32>\n")


_BOX = "0 <= i < {NI} and 0 <= j < {NJ} and 0 <= k < {NK}"

NESTS: dict[str, Kernel] = {
    # C[i][j] += alpha * A[i][k] * B[k][j]
    "gemm": Kernel("gemm", (("C", "{NI}x{NJ}"), ("A", "{NI}x{NK}"), ("B", "{NK}x{NJ}")),
                   (Nest(("i", "j", "k"), _BOX,
                         _mac("%C[%i, %j]", "%A[%i, %k]", "%B[%k, %j]", "{NI}x{NJ}", "{NI}x{NK}",
                              "{NK}x{NJ}", "s")),),
                   {"NI": 60, "NJ": 70, "NK": 80}),
    # for i, j <= i, k: C[i][j] += alpha * A[i][k] * A[j][k]
    "syrk": Kernel("syrk", (("C", "{N}x{N}"), ("A", "{N}x{M}")),
                   (Nest(("i", "j", "k"), "0 <= i < {N} and 0 <= j <= i and 0 <= k < {M}",
                         _mac("%C[%i, %j]", "%A[%i, %k]", "%A[%j, %k]", "{N}x{N}", "{N}x{M}",
                              "{N}x{M}", "s")),),
                   {"N": 80, "M": 60}),
    # for i, j <= i, k: C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k]
    "syr2k": Kernel("syr2k", (("C", "{N}x{N}"), ("A", "{N}x{M}"), ("B", "{N}x{M}")),
                    (Nest(("i", "j", "k"), "0 <= i < {N} and 0 <= j <= i and 0 <= k < {M}",
                          _mac("%C[%i, %j]", "%A[%j, %k]", "%B[%i, %k]", "{N}x{N}", "{N}x{M}",
                               "{N}x{M}", "s")
                          + _mac("%C[%i, %j]", "%B[%j, %k]", "%A[%i, %k]", "{N}x{N}", "{N}x{M}",
                                 "{N}x{M}", "t")),),
                    {"N": 80, "M": 60}),
    # for i, j, k > i: B[i][j] += A[k][i] * B[k][j]
    "trmm": Kernel("trmm", (("A", "{M}x{M}"), ("B", "{M}x{N}")),
                   (Nest(("i", "j", "k"), "0 <= i < {M} and 0 <= j < {N} and i < k < {M}",
                         _mac("%B[%i, %j]", "%A[%k, %i]", "%B[%k, %j]", "{M}x{N}", "{M}x{M}",
                              "{M}x{N}", "s")),),
                   {"M": 60, "N": 80}),
    # for i, j, k < i: C[k][j] += alpha * B[i][j] * A[i][k]; temp2 (T[i][j]) += B[k][j] * A[i][k]
    "symm": Kernel("symm", (("C", "{M}x{N}"), ("A", "{M}x{M}"), ("B", "{M}x{N}"),
                            ("T", "{M}x{N}")),
                   (Nest(("i", "j", "k"), "0 <= i < {M} and 0 <= j < {N} and 0 <= k < i",
                         _mac("%C[%k, %j]", "%B[%i, %j]", "%A[%i, %k]", "{M}x{N}", "{M}x{N}",
                              "{M}x{M}", "s")
                         + _mac("%T[%i, %j]", "%B[%k, %j]", "%A[%i, %k]", "{M}x{N}", "{M}x{N}",
                                "{M}x{M}", "t")),),
                   {"M": 60, "N": 80}),
    # tmp[i][j] += alpha * A[i][k] * B[k][j]; then D[i][j] += tmp[i][k] * C[k][j]
    "2mm": Kernel("mm2", (("tmp", "{NI}x{NJ}"), ("A", "{NI}x{NK}"), ("B", "{NK}x{NJ}"),
                          ("C", "{NJ}x{NL}"), ("D", "{NI}x{NL}")),
                  (Nest(("i", "j", "k"), "0 <= i < {NI} and 0 <= j < {NJ} and 0 <= k < {NK}",
                        _mac("%tmp[%i, %j]", "%A[%i, %k]", "%B[%k, %j]", "{NI}x{NJ}", "{NI}x{NK}",
                             "{NK}x{NJ}", "s")),
                   Nest(("i", "j", "k"), "0 <= i < {NI} and 0 <= j < {NL} and 0 <= k < {NJ}",
                        _mac("%D[%i, %j]", "%tmp[%i, %k]", "%C[%k, %j]", "{NI}x{NL}", "{NI}x{NJ}",
                             "{NJ}x{NL}", "t"))),
                  {"NI": 40, "NJ": 50, "NK": 70, "NL": 80}),
}


def _bound(c: isl.Constraint, names: Sequence[str], p: int, lower: bool) -> str:
    """The bound on dim `p` that constraint `c` gives, as an affine expression of the dims
    before it (`d0`, `d1`, ...); unit coefficients only."""
    coef = c.get_coefficient_val(isl.dim_type.set, p).to_python()
    if abs(coef) != 1:
        raise ValueError(f"loop {names[p]}: coefficient {coef} in a bound (unit coefficients only)")
    sign = -1 if coef > 0 else 1       # coef*x + rest >= 0: x >= -rest (coef 1) or x <= rest
    terms = []
    for q in range(p):
        v = sign * c.get_coefficient_val(isl.dim_type.set, q).to_python()
        if v:
            terms.append(f"{v} * d{q}" if v != 1 else f"d{q}")
    const = sign * c.get_constant_val().to_python() + (0 if lower else 1)
    if const or not terms:
        terms.append(str(const))
    return " + ".join(terms).replace("+ -", "- ")


def _loop_header(dom: isl.BasicSet, names: Sequence[str], p: int) -> str:
    """`affine.for %x = LB to UB` for dim `p` of `dom` (dims in loop order)."""
    proj = dom.project_out(isl.dim_type.set, p + 1, len(names) - p - 1).remove_redundancies()
    lows: list[str] = []
    ups: list[str] = []
    for c in proj.get_constraints():
        coef = c.get_coefficient_val(isl.dim_type.set, p).to_python()
        if coef == 0:
            continue
        if c.is_equality():
            raise ValueError(f"loop {names[p]}: an equality in its bounds")
        (lows if coef > 0 else ups).append(_bound(c, names, p, coef > 0))
    outer = ", ".join(f"%{n}" for n in names[:p])
    dims = ", ".join(f"d{q}" for q in range(p))

    def side(exprs: list[str], kind: str) -> str:
        if len(exprs) == 1 and exprs[0].lstrip("-").isdigit():
            return exprs[0]
        return f"{kind}affine_map<({dims}) -> ({', '.join(exprs)})>({outer})"
    return (f"affine.for %{names[p]} = {side(lows, 'max ' if len(lows) > 1 else '')} to "
            f"{side(ups, 'min ' if len(ups) > 1 else '')}")


def nest_text(nest: Nest, order: Sequence[str], sizes: Mapping[str, int]) -> str:
    """The nest's loops in `order` (a permutation of its loop names) around its body."""
    names = list(order)
    if sorted(names) != sorted(nest.loops):
        raise ValueError(f"order {names}: expected a permutation of {list(nest.loops)}")
    dom = isl.BasicSet(f"{{ [{', '.join(names)}] : {nest.domain.format(**sizes)} }}")
    lines = [_loop_header(dom, names, p) + " {" for p in range(len(names))]
    return "\n".join(lines) + "\n" + nest.body.format(**sizes) + "}\n" * len(names)


def module_text(kernel: Kernel, order: Sequence[str], sizes: Mapping[str, int] | None = None) -> str:
    """The kernel's function with every nest's loops in `order`."""
    sz = {**kernel.sizes, **(sizes or {})}
    nests = "".join(nest_text(n, order, sz) for n in kernel.nests)
    return (f"func.func @{kernel.func}({kernel.signature(sz)}) {{\n"
            "%alpha = arith.constant 1.5 : f32\n" + nests + "return\n}\n")


def legal(canonical: ModuleOp, order: Sequence[str], loop_names: Sequence[str]) -> bool:
    """Is running every nest of `canonical` (written in `loop_names` order) in `order` legal?
    The compiler's dependence analysis decides (`analysis.tiling_order`: each nest one
    statement, tile size 1 aligned at 0, so an iteration's key is its IVs in the new order;
    the nests keep their order, so each is checked against its own dependences)."""
    from compiler.analysis.dependence import all_dependences
    from compiler.analysis.tiling_order import TiledStatement, TileGrid, reversed_dependence

    perm = [list(loop_names).index(n) for n in order]
    for root in (op for op in canonical.funcs[0].body.ops if isinstance(op, AffineForOp)):
        band = [root]
        while isinstance(band[-1].body.ops[0], AffineForOp):
            band.append(band[-1].body.ops[0])  # type: ignore[arg-type]
        if len(band) != len(loop_names):
            raise ValueError(f"the nest at {root.loc} is not a perfect {len(loop_names)}-deep nest")
        body = tuple(o for o in band[-1].body.ops if not o.IS_TERMINATOR)
        st = TiledStatement(body, tuple(TileGrid(band[q], 1, True) for q in perm), (0,) * len(perm))
        if reversed_dependence(all_dependences(root), [st]) is not None:
            return False
    return True


def loop_orders(kernel: Kernel, **sizes: int) -> Iterator[tuple[tuple[str, ...], ModuleOp]]:
    """(order, module) for every legal order of the kernel's loops, the canonical one first."""
    loops = kernel.nests[0].loops
    canonical = parse_module(module_text(kernel, loops, sizes), filename=f"{kernel.func}.mlir")
    for order in itertools.permutations(loops):
        if legal(canonical, order, loops):
            text = module_text(kernel, order, sizes)
            yield order, parse_module(text, filename=f"{kernel.func}_{''.join(order)}.mlir")
