"""`compiler.ir.analysis_cache.ObjectCache`: entries live as long as their object, and the pass
manager drops the entries of a module it ran passes on."""

from __future__ import annotations

import gc

import workloads
from compiler.ir.affine_map import AffineMap
from compiler.ir.analysis_cache import ObjectCache, clear_all, invalidate
from compiler.transforms.registry import PassManager


def _module():  # type: ignore[no-untyped-def]
    return workloads.get("gemm:M=32,N=32,K=32").module()


def test_an_entry_dies_with_its_object():
    cache: ObjectCache[int] = ObjectCache("test")
    mod = _module()
    ops = list(mod.walk())
    for k, op in enumerate(ops):
        cache.put(op, k)
    assert len(cache) == len(ops)
    assert cache.get(id(ops[3])) == 3
    keep = _module()
    cache.put(keep, -1)
    del op, ops, mod
    gc.collect()
    assert dict(cache) == {id(keep): -1}  # the module's entries went with it


def test_an_id_reused_by_a_new_object_never_sees_the_old_entry():
    cache: ObjectCache[str] = ObjectCache("test")
    seen = 0
    for _ in range(200):
        m = AffineMap.identity(2)
        assert cache.get(id(m)) is None
        cache.put(m, "x")
        seen += 1
        del m
    assert seen == 200 and len(cache) <= 1


def test_table_gives_one_dict_per_object():
    cache: ObjectCache[dict] = ObjectCache("test")  # type: ignore[type-arg]
    mod = _module()
    f = mod.funcs[0]
    cache.table(f)["a"] = 1
    assert cache.table(f) == {"a": 1}
    assert cache.table(mod) == {}


def test_invalidate_drops_the_entries_of_every_op_of_the_module():
    cache: ObjectCache[int] = ObjectCache("test")
    mod, other = _module(), _module()
    for op in mod.walk():
        cache.put(op, 1)
    keep = other.funcs[0]
    cache.put(keep, 2)
    invalidate(mod)
    assert dict(cache) == {id(keep): 2}
    clear_all()
    assert len(cache) == 0


def test_the_pass_manager_invalidates_what_was_cached_on_the_module():
    cache: ObjectCache[str] = ObjectCache("test")
    mod, other = _module(), _module()
    cache.put(mod.funcs[0], "before the pass")
    cache.put(other.funcs[0], "another module")
    PassManager.from_flags(["affine-loop-tile=tile-size=8"]).run(mod)
    assert cache.get(id(mod.funcs[0])) is None
    assert cache.get(id(other.funcs[0])) == "another module"
    PassManager([]).run(other)  # no pass ran: nothing changed
    assert cache.get(id(other.funcs[0])) == "another module"
