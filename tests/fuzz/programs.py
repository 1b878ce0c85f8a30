"""Random affine programs and a numpy interpreter of the IR, for the differential fuzzer
(`tests/fuzz/test_differential.py`).

A program is 1 to 3 loop nests over three 2-D f32 arguments: each nest 1 to 3 loops
(constant bounds, some triangular: a bound is an outer IV, steps 1 or 2), a body of loads at
affine subscripts (IV + constant, in bounds by construction), float arithmetic (add, sub,
mul, maximumf, minimumf, select on a compare) and a store, sometimes accumulating (C[i, j] =
C[i, j] + ...: a reduction over an inner loop); a later nest may read what an earlier one
wrote. Inputs are small integers, so every result is an exact float (no rounding: any legal
reordering of the reductions gives the same bits) and the three runs must agree exactly.

The interpreter walks the IR itself (loops, ifs, iter_args, affine maps through
`compiler.ir.affine_eval`, loads and stores on numpy arrays): nothing it shares with the host
backend or the simulator beyond the parser and the affine evaluator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np

from compiler.ir import ops as O
from compiler.ir.affine_eval import evaluate_map, set_contains
from compiler.ir.core import Block, Value

ARGS = ("A", "B", "C")


def random_program(seed: int) -> tuple[str, dict[str, tuple[int, int]]]:
    """MLIR text of a random program and the shapes of its arguments."""
    rng = random.Random(seed)
    n = rng.randint(4, 40)
    shapes = {a: (n + 4, n + 4) for a in ARGS}
    lines: list[str] = []
    counter = [0]

    def fresh(prefix: str = "v") -> str:
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    def mem(a: str) -> str:
        return f"memref<{shapes[a][0]}x{shapes[a][1]}xf32>"

    for _ in range(rng.randint(1, 3)):
        depth = rng.randint(1, 3)
        ivs: list[str] = []
        indent = "  "
        for _ in range(depth):
            iv = fresh("i")
            lo = 0
            hi = rng.randint(1, n)
            step = rng.choice([1, 1, 1, 2])
            if ivs and rng.random() < 0.3:   # triangular: from or to an outer IV
                outer = rng.choice(ivs)
                if rng.random() < 0.5:
                    lines.append(f"{indent}affine.for {iv} = affine_map<(d0) -> (d0)>({outer}) "
                                 f"to {n} step {step} {{")
                else:
                    lines.append(f"{indent}affine.for {iv} = 0 to affine_map<(d0) -> (d0 + 1)>({outer}) "
                                 f"step {step} {{")
            else:
                lines.append(f"{indent}affine.for {iv} = {lo} to {hi} step {step} {{")
            ivs.append(iv)
            indent += "  "

        def sub(ivs: list[str] = ivs) -> str:
            a, b = rng.choice(ivs), rng.choice(ivs)
            ca, cb = rng.randint(0, 3), rng.randint(0, 3)
            return f"{a} + {ca}, {b} + {cb}" if rng.random() < 0.7 else f"{a}, {b} + {cb}"

        vals: list[str] = []
        for _ in range(rng.randint(1, 3)):
            src = rng.choice(ARGS)
            v = fresh()
            lines.append(f"{indent}{v} = affine.load %{src}[{sub()}] : {mem(src)}")
            vals.append(v)
        for _ in range(rng.randint(0, 3)):
            x, y = rng.choice(vals), rng.choice(vals)
            v = fresh()
            kind = rng.choice(["addf", "subf", "mulf", "maximumf", "minimumf", "select"])
            if kind == "select":
                c = fresh("c")
                lines.append(f"{indent}{c} = arith.cmpf olt, {x}, {y} : f32")
                lines.append(f"{indent}{v} = arith.select {c}, {x}, {y} : f32")
            else:
                lines.append(f"{indent}{v} = arith.{kind} {x}, {y} : f32")
            vals.append(v)
        dst = rng.choice(["C", "C", "B"])
        i, j = ivs[0], ivs[-1] if len(ivs) > 1 else ivs[0]
        at = f"{i}, {j}" if rng.random() < 0.8 else f"{j}, {i}"
        out = vals[-1]
        if rng.random() < 0.5:   # accumulate: a reduction over the loops not in the subscript
            old, acc = fresh(), fresh()
            lines.append(f"{indent}{old} = affine.load %{dst}[{at}] : {mem(dst)}")
            lines.append(f"{indent}{acc} = arith.addf {old}, {out} : f32")
            out = acc
        lines.append(f"{indent}affine.store {out}, %{dst}[{at}] : {mem(dst)}")
        for _ in range(depth):
            indent = indent[:-2]
            lines.append(f"{indent}}}")
    head = ", ".join(f"%{a}: {mem(a)}" for a in ARGS)
    text = f"func.func @fuzz({head}) {{\n" + "\n".join(lines) + "\n  return\n}\n"
    return text, shapes


def random_inputs(shapes: Mapping[str, tuple[int, int]], seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {a: rng.integers(-3, 4, s).astype(np.float32) for a, s in shapes.items()}


# ---- the interpreter ---------------------------------------------------------------------

_BIN = {O.AddFOp: np.add, O.SubFOp: np.subtract, O.MulFOp: np.multiply,
        O.MaximumFOp: np.maximum, O.MinimumFOp: np.minimum}
_CMP = {"olt": np.less, "ogt": np.greater, "ole": np.less_equal, "oge": np.greater_equal,
        "oeq": np.equal, "one": np.not_equal}


def interpret(func: O.FuncOp, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run `func` on copies of `inputs` (by argument name); every argument after the run."""
    arrays = {a.name_hint: np.array(inputs[a.name_hint], copy=True) for a in func.body.args}
    env: dict[int, object] = {id(a): arrays[a.name_hint] for a in func.body.args}
    _block(func.body, env)
    return arrays


def _get(env: dict[int, object], v: Value) -> object:
    return env[id(v)]


def _block(block: Block, env: dict[int, object]) -> list[object]:
    for op in block.ops:
        if isinstance(op, O.AffineYieldOp):
            return [_get(env, v) for v in op.operands]
        if isinstance(op, O.ReturnOp):
            return []
        _op(op, env)
    return []


def _idx(env: dict[int, object], m: object, operands: list[Value]) -> tuple[int, ...]:
    vals = [int(_get(env, v)) for v in operands]  # type: ignore[call-overload]
    nd = m.num_dims  # type: ignore[attr-defined]
    return evaluate_map(m, vals[:nd], vals[nd:])  # type: ignore[arg-type]


def _op(op: object, env: dict[int, object]) -> None:
    if isinstance(op, O.ConstantOp):
        env[id(op.result)] = op.value
    elif isinstance(op, O.AffineForOp):
        lo = max(_idx(env, op.lower_map, op.lower_operands))
        hi = min(_idx(env, op.upper_map, op.upper_operands))
        carried = [_get(env, v) for v in op.inits]
        for i in range(lo, hi, op.step):
            env[id(op.iv)] = i
            for a, c in zip(op.body.args[1:], carried, strict=True):
                env[id(a)] = c
            carried = _block(op.body, env)
        for r, c in zip(op.results, carried, strict=True):
            env[id(r)] = c
    elif isinstance(op, O.AffineIfOp):
        pt = [int(_get(env, v)) for v in op.operands]
        nd = op.condition.num_dims
        inside = set_contains(op.condition, pt[:nd], pt[nd:])
        _block(op.then_block if inside else op.else_block, env)
    elif isinstance(op, O.AffineApplyOp):
        env[id(op.result)] = _idx(env, op.map, op.operands)[0]
    elif isinstance(op, O.AffineLoadOp):
        arr = _get(env, op.memref)
        env[id(op.result)] = arr[_idx(env, op.map, op.indices)]  # type: ignore[index]
    elif isinstance(op, O.AffineStoreOp):
        arr = _get(env, op.memref)
        arr[_idx(env, op.map, op.indices)] = _get(env, op.value)  # type: ignore[index]
    elif type(op) in _BIN:
        a, b = (_get(env, v) for v in op.operands)  # type: ignore[attr-defined]
        env[id(op.result)] = np.float32(_BIN[type(op)](np.float32(a), np.float32(b)))  # type: ignore[attr-defined]
    elif isinstance(op, O.CmpFOp):
        a, b = (_get(env, v) for v in op.operands)
        env[id(op.result)] = bool(_CMP[op.predicate](a, b))
    elif isinstance(op, O.SelectOp):
        c, a, b = (_get(env, v) for v in op.operands)
        env[id(op.result)] = a if c else b
    else:
        raise NotImplementedError(f"the fuzz interpreter does not run {op.NAME}")  # type: ignore[attr-defined]
