"""The band tree of a loop nest: the loops `affine-loop-tile` tiles together, and the groups
of statements between them.

A perfect band is a chain of loops. An imperfect nest is a tree: a loop's body holds, in
order, child loops (tiled too: tree nodes) and runs of other ops (leaf groups, e.g. syrk's
`C[i][j] *= beta` loop beside its `k` loop, or atax's `tmp[i] = 0`). Every leaf group runs
at the band iterations of the loops above it (its path), as one atomic statement.

A loop joins the tree when it has no iter_args and its bounds use only values defined outside
the root or IVs of the loops above it in the tree. Bounds using those IVs ("dependent", e.g.
syrk's `j < i + 1`) must be linear in them; a dependent lower bound also needs a unit step,
and the tile grid of such a loop is aligned on multiples of the tile size (see `tile_tree`). A loop whose
children exchange SSA values (a value defined by one child used by another) keeps its body
as one leaf group: the children cannot be given separate intra-tile loops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from compiler.ir.core import BlockArgument, Operation, OpResult, Value
from compiler.ir.ops import AffineForOp


@dataclass(eq=False, slots=True)
class LeafGroup:
    """Consecutive non-tiled ops of one tree loop's body (in program order)."""

    ops: list[Operation]
    parent: BandNode


@dataclass(eq=False, slots=True)
class BandNode:
    loop: AffineForOp
    depth: int                                  # 0 for the root
    parent: BandNode | None
    lower_dependent: bool                       # the lower bound uses IVs of the loops above
    upper_dependent: bool                       # the upper bound does
    children: list[BandNode | LeafGroup] = field(default_factory=list)

    @property
    def dependent(self) -> bool:
        return self.lower_dependent or self.upper_dependent

    @property
    def path(self) -> list[BandNode]:
        """The nodes from the root down to this one."""
        out: list[BandNode] = []
        cur: BandNode | None = self
        while cur is not None:
            out.append(cur)
            cur = cur.parent
        return out[::-1]

    def nodes(self) -> Iterator[BandNode]:
        """Pre-order: this node, then each child node's subtree in program order."""
        yield self
        for c in self.children:
            if isinstance(c, BandNode):
                yield from c.nodes()

    def leaves(self) -> Iterator[LeafGroup]:
        for c in self.children:
            if isinstance(c, BandNode):
                yield from c.leaves()
            else:
                yield c

    @property
    def is_chain(self) -> bool:
        """A perfect band: every node has exactly one child, the last one a leaf group."""
        node = self
        while True:
            if len(node.children) != 1:
                return False
            child = node.children[0]
            if isinstance(child, LeafGroup):
                return True
            node = child

    @property
    def is_imperfect(self) -> bool:
        return not self.is_chain

    @property
    def is_rectangular(self) -> bool:
        return not any(n.dependent for n in self.nodes())

    def chain(self) -> list[AffineForOp]:
        """The loops of a chain, outer to inner."""
        return [n.loop for n in self.nodes()]


def _owner(v: Value) -> Operation | None:
    if isinstance(v, OpResult):
        return v.owner
    if isinstance(v, BlockArgument):
        return v.block.parent_op
    return None


def _inside(v: Value, root: Operation) -> bool:
    owner = _owner(v)
    return owner is not None and (owner is root or root.is_ancestor_of(owner))


def linear_in_dims(lp: AffineForOp) -> bool:
    """Every bound result is a plain linear form of its dims and symbols."""
    for m in (lp.lower_map, lp.upper_map):
        for r in m.results:
            if r.linear_coeffs(m.num_dims, m.num_symbols) is None:
                return False
    return True


def _joins(lp: AffineForOp, root: AffineForOp, above: Sequence[BandNode]
           ) -> tuple[bool, bool] | None:
    """None when `lp` cannot be a tree node under `above`; else whether its lower and its
    upper bound are dependent."""
    if lp.inits:
        return None
    ivs = {id(n.loop.iv) for n in above}

    def dependent(operands: Sequence[Value]) -> bool | None:
        dep = False
        for v in operands:
            if id(v) in ivs:
                dep = True
            elif _inside(v, root):
                return None
        return dep

    lower, upper = dependent(lp.lower_operands), dependent(lp.upper_operands)
    if lower is None or upper is None:
        return None
    if (lower or upper) and not linear_in_dims(lp):
        return None
    if lower and lp.step != 1:
        return None
    return lower, upper


def _defined_values(op: Operation) -> set[int]:
    out: set[int] = set()
    for o in op.walk():
        out.update(id(r) for r in o.results)
        for b in o.blocks:
            out.update(id(a) for a in b.args)
    return out


def _children_exchange_values(parts: Sequence[Sequence[Operation]]) -> bool:
    """A value defined in one part is used in another."""
    defined = [set().union(*(_defined_values(op) for op in part)) for part in parts]
    for k, part in enumerate(parts):
        for op in part:
            for o in op.walk():
                for v in o.operands:
                    if any(j != k and id(v) in d for j, d in enumerate(defined)):
                        return True
    return False


def prune_whole(tree: BandNode, covers: Callable[[BandNode], bool]) -> None:
    """Untile the loops (below the root) that `covers` says one tile spans whole and whose
    children are all leaf groups (bottom-up): such a loop joins its parent's leaf group, so
    siblings stay in one intra-tile nest (one kernel) instead of a tile loop of one trip."""
    for c in tree.children:
        if isinstance(c, BandNode):
            prune_whole(c, covers)
    merged: list[BandNode | LeafGroup] = []
    for c in tree.children:
        if isinstance(c, BandNode) and all(isinstance(g, LeafGroup) for g in c.children) \
                and covers(c):
            c = LeafGroup([c.loop], tree)
        if isinstance(c, LeafGroup) and merged and isinstance(merged[-1], LeafGroup):
            merged[-1].ops.extend(c.ops)
        else:
            merged.append(c)
    tree.children = merged


def band_tree(root: AffineForOp, imperfect: bool) -> BandNode | None:
    """The tree of `root` (None when `root` itself cannot be tiled: iter_args). Without
    `imperfect`, only the perfect band at the root (a chain)."""
    if root.inits:
        return None
    node = BandNode(root, 0, None, False, False)
    _grow(node, root, imperfect)
    return node


def _grow(node: BandNode, root: AffineForOp, imperfect: bool) -> None:
    body = [op for op in node.loop.body.ops if not op.IS_TERMINATOR]
    above = node.path
    kinds: list[tuple[bool, bool] | None] = [
        _joins(op, root, above) if isinstance(op, AffineForOp) else None for op in body]
    if not body or (not imperfect and not (len(body) == 1 and kinds[0] is not None)):
        node.children = [LeafGroup(body, node)]
        return
    # (dependent flags of a child loop, or None for a run of other ops, its ops)
    parts: list[tuple[tuple[bool, bool] | None, list[Operation]]] = []
    for op, kind in zip(body, kinds, strict=True):
        if kind is None and parts and parts[-1][0] is None:
            parts[-1][1].append(op)
        else:
            parts.append((kind, [op]))
    if len(parts) > 1 and _children_exchange_values([p for _, p in parts]):
        node.children = [LeafGroup(body, node)]
        return
    for kind, part in parts:
        first = part[0]
        if kind is not None and isinstance(first, AffineForOp):
            child = BandNode(first, node.depth + 1, node, *kind)
            node.children.append(child)
            _grow(child, root, imperfect)
        else:
            node.children.append(LeafGroup(part, node))
