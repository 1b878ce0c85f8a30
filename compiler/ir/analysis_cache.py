"""Analysis results cached per IR object: the one cache facility of the analyses and the cost
model.

`ObjectCache(name)` is a dict keyed by `id(obj)` of an IR object (an `Operation` such as a
kernel's `FuncOp`, or an immutable `AffineMap`), filled through `put(obj, value)`, which
holds a weak reference to `obj` whose callback drops the entry when `obj` is collected. So:

- a lookup is one dict probe, `cache.get(id(obj))` (no hashing of the object by value, no
  identity check: an entry exists only while its object is alive, and a later object can
  only reuse an id once the entry is gone);
- no entry keeps a module alive, and no table needs "clear when large": it holds what is
  alive;
- `invalidate(root)`, which the pass manager calls after running passes on a module
  (`compiler.transforms.registry.PassManager.run`), drops every entry keyed by an op of that
  module from every table: a pass may have changed what the results were computed from.

Immutable objects (maps, sets) are never invalidated; their entries still die with them.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

# every table, by id (a dict is unhashable): for `invalidate` and `clear_all`
_TABLES: weakref.WeakValueDictionary[int, ObjectCache[Any]] = weakref.WeakValueDictionary()


class ObjectCache(dict[int, V], Generic[V]):
    """Results per live object (module docstring). Read with `get(id(obj))`; write with
    `put`; `table(obj)` is a per-object dict for results with further key parts."""

    __slots__ = ("__weakref__", "_refs", "name")

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self._refs: dict[int, weakref.ref[Any]] = {}
        _TABLES[id(self)] = self

    def put(self, obj: object, value: V) -> V:
        """Store `value` for `obj` (alive as long as `obj` is, or until invalidated)."""
        i = id(obj)
        if i not in self._refs:
            self._refs[i] = weakref.ref(obj, _dropper(self, i))
        self[i] = value
        return value

    def table(self, obj: object) -> V:
        """The per-object dict of `obj` (made empty on first use): for results keyed by the
        object and further hashable parts, e.g. a kernel and its call's arguments."""
        hit = self.get(id(obj))
        if hit is None:
            hit = self.put(obj, {})  # type: ignore[arg-type]
        return hit

    def drop(self, i: int) -> None:
        """Forget the entry of the object with id `i` (if any)."""
        self.pop(i, None)
        self._refs.pop(i, None)

    def clear(self) -> None:
        super().clear()
        self._refs.clear()


def _dropper(cache: ObjectCache[Any], i: int) -> Callable[[object], None]:
    table = weakref.ref(cache)

    def drop(_ref: object) -> None:  # `obj` is being collected
        t = table()
        if t is not None:
            t.drop(i)

    return drop


def invalidate(root: Any) -> None:
    """Drop, from every `ObjectCache`, the entries of `root` and of every op nested in it."""
    tables = [t for t in list(_TABLES.values()) if t]
    if not tables:
        return
    ids = {id(op) for op in root.walk()}
    ids.add(id(root))
    for t in tables:
        for i in list(t.keys() & ids):
            t.drop(i)


def clear_all() -> None:
    """Forget every table's entries (benchmarks of cold runs)."""
    for t in list(_TABLES.values()):
        t.clear()
