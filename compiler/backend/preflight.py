"""What the host backend refuses before it lowers anything: each a located `LoweringError`.

- **Recursion.** A cycle in the call graph (a function calling itself, directly or through
  others) is refused, naming the cycle: natively it would run forever (LLVM turns a tail call
  into a loop) or overflow the native stack and kill the process.
- **Nesting deeper than `MAX_NESTING`** affine.for / affine.if regions inside one function (a
  documented limit: the lowering recurses once per region level).
- **Integer literals outside their type**: an `arith.constant` of iN outside [-2^(N-1), 2^N - 1]
  (index: 64 bits), a constant in an affine map or integer set outside the signed 64-bit range
  of `index`, a loop step that does not fit. LLVM would wrap them silently.

- **Vector element types** (`memref<8xvector<4xf32>>`, a `vector<...>` value): the host
  target does not run them (the passes do: to them a vector is one element of its bytes).

Every walk here is iterative, so a module too deep for the lowering still gets its error.
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler.backend.errors import LoweringError
from compiler.ir.affine_expr import AffineExpr, Binary, Const
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Operation
from compiler.ir.ops import AffineForOp, CallOp, ConstantOp, FuncOp, ModuleOp
from compiler.ir.types import ElementType, has_vector_element

MAX_NESTING = 128
INDEX_MIN, INDEX_MAX = -(1 << 63), (1 << 63) - 1


def check_module(module: ModuleOp) -> None:
    """Raise a LoweringError at the first op the host backend refuses (see the module doc)."""
    calls: dict[str, list[CallOp]] = {}
    for func in module.funcs:
        if func.is_declaration:
            continue  # the lowering refuses it, by name
        sites = calls.setdefault(func.sym_name, [])
        for t in (*func.function_type.inputs, *func.function_type.results):
            if has_vector_element(t):
                raise LoweringError(f"@{func.sym_name} takes or returns {t}: vector element "
                                    "types are not supported on the host target", func.loc)
        for op, depth in walk_with_depth(func):
            for v in op.results:
                if has_vector_element(v.type):
                    raise LoweringError(f"'{op.NAME}' makes a {v.type}: vector element types are "
                                        "not supported on the host target", op.loc)
            if op.blocks and depth >= MAX_NESTING:
                raise LoweringError(
                    f"'{op.NAME}' nests regions {depth + 1} deep in @{func.sym_name}; the host "
                    f"backend lowers at most {MAX_NESTING} nested affine.for/affine.if regions "
                    "(a documented limit)", op.loc)
            check_literals(op)
            if isinstance(op, CallOp):
                sites.append(op)
    cycle = find_call_cycle(calls)
    if cycle is not None:
        path = " -> ".join("@" + c.callee for c in cycle)
        first = cycle[-1].callee
        raise LoweringError(
            f"recursive call: @{first} -> {path}; the host backend refuses recursion (a call "
            "cycle would run forever or overflow the native stack)", cycle[-1].loc)


def walk_with_depth(func: FuncOp) -> Iterator[tuple[Operation, int]]:
    """Pre-order over the ops inside `func`, with the number of region-holding ops around each
    (not counting the function): an op directly in the body is at depth 0."""
    stack: list[tuple[Operation, int]] = [(op, 0) for op in reversed(func.body.ops)]
    while stack:
        op, depth = stack.pop()
        yield op, depth
        for block in reversed(op.blocks):
            stack.extend((inner, depth + 1) for inner in reversed(block.ops))


def check_literals(op: Operation) -> None:
    if isinstance(op, ConstantOp):
        t = op.result.type
        if isinstance(t, ElementType) and not t.is_float and isinstance(op.value, int):
            bits = 64 if t.is_index else t.bitwidth
            lo, hi = (0, 1) if bits == 1 else (-(1 << (bits - 1)), (1 << bits) - 1)
            if not lo <= op.value <= hi:
                raise LoweringError(f"integer constant {op.value} does not fit in {t} "
                                    f"([{lo}, {hi}])", op.loc)
        return
    if isinstance(op, AffineForOp) and not 1 <= op.step <= INDEX_MAX:
        raise LoweringError(f"affine.for step {op.step} does not fit in index", op.loc)
    for attr in op.ATTRS:
        value = getattr(op, attr)
        if isinstance(value, AffineMap):
            exprs: tuple[AffineExpr, ...] = tuple(value.results)
        elif isinstance(value, IntegerSet):
            exprs = tuple(value.constraints)
        else:
            continue
        bad = next((c for c in _constants(exprs) if not INDEX_MIN <= c <= INDEX_MAX), None)
        if bad is not None:
            raise LoweringError(f"integer literal {bad} in the {attr.replace('_', ' ')} of "
                                f"'{op.NAME}' does not fit in index ([{INDEX_MIN}, {INDEX_MAX}]); "
                                "it would wrap silently", op.loc)


def _constants(exprs: tuple[AffineExpr, ...]) -> Iterator[int]:
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if isinstance(e, Const):
            yield e.value
        elif isinstance(e, Binary):
            stack.append(e.lhs)
            stack.append(e.rhs)


def find_call_cycle(calls: dict[str, list[CallOp]]) -> list[CallOp] | None:
    """The call ops along one cycle of the call graph (the last one closes it), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for root in calls:
        if state.get(root):
            continue
        path: list[CallOp] = []
        stack: list[tuple[str, Iterator[CallOp]]] = [(root, iter(calls[root]))]
        state[root] = 1
        while stack:
            name, pending = stack[-1]
            call = next(pending, None)
            if call is None:
                state[name] = 2
                stack.pop()
                if path:
                    path.pop()
                continue
            callee = call.callee
            if callee not in calls:  # unknown or declared-only: the lowering says so
                continue
            if state.get(callee) == 1:
                start = next(k for k, (n, _) in enumerate(stack) if n == callee)
                return [*path[start:], call]
            if not state.get(callee):
                state[callee] = 1
                path.append(call)
                stack.append((callee, iter(calls[callee])))
    return None
