"""Values, blocks and the operation base class.

Ops are plain mutable objects compared by identity. Each op subclass names its MLIR op
(`NAME`) and lists the attribute slots that `clone` copies (`ATTRS`); operands are one flat
list, as in MLIR, and typed accessors on the subclasses slice it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.types import Type


class Value:
    """An SSA value. `name_hint` is the name written in the source (`%A` -> "A"), if any."""

    __slots__ = ("type", "name_hint")

    def __init__(self, type: Type, name_hint: str | None = None):
        self.type = type
        self.name_hint = name_hint

    def __repr__(self) -> str:
        return f"<{type(self).__name__} %{self.name_hint or '?'} : {self.type}>"

    # Arithmetic sugar for the builder lives in compiler.ir.builder (installed there),
    # so that this module stays free of builder state.


class OpResult(Value):
    __slots__ = ("owner", "index")

    def __init__(self, type: Type, owner: Operation, index: int, name_hint: str | None = None):
        super().__init__(type, name_hint)
        self.owner = owner
        self.index = index


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: Block, index: int, name_hint: str | None = None):
        super().__init__(type, name_hint)
        self.block = block
        self.index = index


class Block:
    """A list of ops with arguments. Each region-holding op owns its blocks directly."""

    __slots__ = ("args", "ops", "parent_op")

    def __init__(self, arg_types: Sequence[Type] = (), arg_names: Sequence[str | None] = ()):
        self.args: list[BlockArgument] = []
        self.ops: list[Operation] = []
        self.parent_op: Operation | None = None
        names = list(arg_names) + [None] * (len(arg_types) - len(arg_names))
        for t, n in zip(arg_types, names, strict=True):
            self.add_arg(t, n)

    def add_arg(self, type: Type, name_hint: str | None = None) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.args), name_hint)
        self.args.append(arg)
        return arg

    def append(self, op: Operation) -> Operation:
        op.detach()
        op.parent_block = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Operation) -> Operation:
        op.detach()
        op.parent_block = self
        self.ops.insert(index, op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.index_of(anchor), op)

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.index_of(anchor) + 1, op)

    def index_of(self, op: Operation) -> int:
        for i, o in enumerate(self.ops):
            if o is op:
                return i
        raise ValueError(f"{op.NAME} is not in this block")

    @property
    def terminator(self) -> Operation | None:
        return self.ops[-1] if self.ops and self.ops[-1].IS_TERMINATOR else None

    def walk(self) -> Iterator[Operation]:
        for op in list(self.ops):
            yield from op.walk()

    def __iter__(self) -> Iterator[Operation]:
        return iter(self.ops)

    def __len__(self) -> int:
        return len(self.ops)


class Operation:
    """Base of every op. Subclasses set NAME and ATTRS and give typed accessors."""

    # `__weakref__`: analysis results are cached per op (`compiler.ir.analysis_cache`)
    __slots__ = ("operands", "results", "blocks", "loc", "parent_block", "__weakref__")

    NAME: ClassVar[str] = "<op>"
    ATTRS: ClassVar[tuple[str, ...]] = ()
    IS_TERMINATOR: ClassVar[bool] = False

    def __init__(self, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
                 blocks: Sequence[Block] = (), loc: Location = UNKNOWN_LOC,
                 result_names: Sequence[str | None] = ()):
        self.operands: list[Value] = list(operands)
        if result_names:
            names = list(result_names) + [None] * (len(result_types) - len(result_names))
            self.results: list[OpResult] = [
                OpResult(t, self, i, n)
                for i, (t, n) in enumerate(zip(result_types, names, strict=True))]
        else:
            self.results = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.blocks: list[Block] = []
        for b in blocks:
            self.add_block(b)
        self.loc = loc
        self.parent_block: Block | None = None

    # ---- structure -------------------------------------------------------------------
    def add_block(self, block: Block) -> Block:
        block.parent_op = self
        self.blocks.append(block)
        return block

    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"{self.NAME} has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def parent_op(self) -> Operation | None:
        return self.parent_block.parent_op if self.parent_block is not None else None

    def ancestors(self) -> Iterator[Operation]:
        op = self.parent_op
        while op is not None:
            yield op
            op = op.parent_op

    def is_ancestor_of(self, other: Operation) -> bool:
        return any(a is self for a in other.ancestors())

    def detach(self) -> None:
        if self.parent_block is not None:
            blk = self.parent_block
            blk.ops.pop(blk.index_of(self))
            self.parent_block = None

    def erase(self) -> None:
        self.detach()

    def walk(self) -> Iterator[Operation]:
        """Pre-order over this op and every op nested in it."""
        yield self
        for b in self.blocks:
            yield from b.walk()

    def replace_uses_of(self, old: Value, new: Value) -> None:
        """Within this op and every nested op."""
        for op in self.walk():
            op.operands = [new if v is old else v for v in op.operands]

    # ---- cloning ---------------------------------------------------------------------
    def clone(self, mapping: dict[Value, Value] | None = None) -> Operation:
        """Deep copy; `mapping` renames operands and receives the old->new result/arg pairs."""
        mapping = {} if mapping is None else mapping
        new = object.__new__(type(self))
        for attr in self.ATTRS:
            setattr(new, attr, getattr(self, attr))
        new.operands = [mapping.get(v, v) for v in self.operands]
        new.results = []
        for r in self.results:
            nr = OpResult(r.type, new, r.index, r.name_hint)
            new.results.append(nr)
            mapping[r] = nr
        new.loc = self.loc
        new.parent_block = None
        new.blocks = []
        for b in self.blocks:
            nb = Block()
            for a in b.args:
                mapping[a] = nb.add_arg(a.type, a.name_hint)
            new.add_block(nb)
            for op in b.ops:
                nb.append(op.clone(mapping))
        return new

    def __repr__(self) -> str:
        return f"<{self.NAME} at {self.loc}>"


def enclosing_ops(op: Operation) -> list[Operation]:
    """Ancestors from outermost to innermost."""
    return list(reversed(list(op.ancestors())))
