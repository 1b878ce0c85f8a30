"""`accelsim.sim.codegen.specialize`: a handler made from its own syntax tree — literals
written in, the branches they decide dropped, splices and inlined methods, unused bound
objects no parameters — and the code kept on disk between processes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from accelsim.sim import codegen
from accelsim.sim.codegen import specialize


def _template(vals: list, flag: bool, n: int, obj: object, add: object) -> None:  # type: ignore[type-arg]
    if flag:
        vals.append(n)
    else:
        vals.append(obj)
    x = add(vals)  # noqa: F841  (a splice point)


class _Owner:
    def __init__(self, k: int):
        self.k = k
        self.seen: list[object] = []

    def note(self, value: object) -> None:
        if self.k:
            self.seen.append(value)


def _calls(vals: list, owner_note: object) -> None:  # type: ignore[type-arg]
    vals.append(1)
    owner_note(vals[0])  # type: ignore[operator]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ACCELSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(codegen, "_SPECIALIZED", {})


def test_literals_decide_branches_and_unused_objects_are_dropped() -> None:
    obj = object()
    splice = {"add": lambda: ast.parse("vals.append('spliced')").body}
    on = specialize(_template, {"flag": True, "n": 3, "obj": obj, "add": None}, splice, "s")
    off = specialize(_template, {"flag": False, "n": 3, "obj": obj, "add": None}, splice, "s")
    a: list[object] = []
    b: list[object] = []
    on(a)
    off(b)
    assert a == [3, "spliced"] and b == [obj, "spliced"]
    assert "obj" not in on.__code__.co_varnames  # folded away: no parameter
    assert "obj" in off.__code__.co_varnames
    assert on.__code__.co_filename == __file__  # tracebacks and coverage: this file's lines


def test_an_inlined_method_reads_its_objects_attributes_when_made() -> None:
    owner = _Owner(1)
    fn = specialize(_calls, {"owner_note": owner.note}, inline={"owner_note": owner.note})
    vals: list[object] = []
    fn(vals)
    assert owner.seen == [1]
    assert "owner_note" not in fn.__code__.co_varnames  # its body, not a call of it
    silent = _Owner(0)
    specialize(_calls, {"owner_note": silent.note}, inline={"owner_note": silent.note})([])
    assert silent.seen == []  # `if self.k:` decided by the literal 0


def test_the_code_comes_back_from_disk_and_a_damaged_file_is_made_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bound = {"flag": True, "n": 5, "obj": None, "add": None}
    splice = {"add": lambda: []}
    first = specialize(_template, bound, splice, "k")
    files = list(Path(tmp_path, "handlers").glob("*.marshal"))
    assert len(files) == 1
    codegen._SPECIALIZED.clear()
    calls = []
    real = codegen._specialized_code
    codegen._specialized_code = lambda *a: calls.append(a) or real(*a)  # type: ignore[assignment]
    try:
        again = specialize(_template, bound, splice, "k")
        assert not calls and again.__code__ == first.__code__  # from disk
        codegen._SPECIALIZED.clear()
        files[0].write_bytes(b"\x00garbage")
        made = specialize(_template, bound, splice, "k")
        assert len(calls) == 1  # made again
    finally:
        codegen._specialized_code = real  # type: ignore[assignment]
    v: list[object] = []
    made(v)
    assert v == [5]
