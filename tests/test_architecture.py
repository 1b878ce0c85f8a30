"""The layout promised by docs/architecture.md, read from the code's imports (ast; nothing is
imported): no import circles, the packages' "must not import" rules, small top level, no
file over 900 lines.

Every import that runs counts, including those inside functions: a circle through a
function-level import is still a circle a reader has to untangle. Imports under
`if TYPE_CHECKING:` only name types for annotations and are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("compiler", "accelsim", "workloads", "plots")
MAX_LINES = 900
MAX_TOP_LEVEL_MODULES = 8


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imported_names(path: Path, module: str) -> Iterator[str]:
    """Every module name an import statement in `path` names (relative imports resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # imports under `if TYPE_CHECKING:` never run: they are annotations, not dependencies
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and _is_type_checking(block.test) for stmt in block.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield base
            yield from (f"{base}.{a.name}" for a in node.names)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@cache
def _graph() -> dict[str, frozenset[str]]:
    """module -> the project modules it imports (a name resolves to its longest module prefix)."""
    mods = _modules()
    graph: dict[str, frozenset[str]] = {}
    for m, p in mods.items():
        deps = set()
        for name in _imported_names(p, m):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != m:
                deps.add(name)
        graph[m] = frozenset(deps)
    return graph


@cache
def _external_imports() -> dict[str, frozenset[str]]:
    """module -> top-level names of everything it imports (project or not)."""
    return {m: frozenset(n.split(".")[0] for n in _imported_names(p, m))
            for m, p in _modules().items()}


def _circles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (a package's `__init__` importing
    its own submodules, which import nothing back, is not a circle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_no_import_circles() -> None:
    circles = _circles(_graph())
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle() -> None:
    """The check can fail: a two-module and a three-module circle are both reported."""
    g = {"a": frozenset({"b"}), "b": frozenset({"a"}), "c": frozenset({"d"}),
         "d": frozenset({"e"}), "e": frozenset({"c"}), "f": frozenset({"a"})}
    assert sorted(_circles(g)) == [["a", "b"], ["c", "d", "e"]]


# (package, what it must not import: project packages or third-party top-level names)
MUST_NOT_IMPORT: list[tuple[str, tuple[str, ...]]] = [
    ("compiler", ("accelsim", "plots", "workloads", "simpy", "matplotlib")),
    ("compiler.text", ("compiler.transforms", "compiler.backend")),
    ("compiler.ir", ("compiler.transforms", "compiler.analysis", "compiler.backend")),
    ("workloads", ("accelsim", "plots", "simpy")),
    ("accelsim.cost", ("simpy", "accelsim.hw", "accelsim.sim", "accelsim.estimate",
                       "accelsim.compile", "accelsim.report", "accelsim.dse")),
    ("accelsim.hw", ("accelsim.sim", "accelsim.estimate", "accelsim.compile", "accelsim.report",
                     "accelsim.dse", "compiler.text", "compiler.transforms")),
    ("accelsim.sim", ("accelsim.compile", "accelsim.estimate", "accelsim.report", "accelsim.dse",
                      "plots")),
    ("accelsim.estimate", ("simpy", "accelsim.hw", "accelsim.sim", "accelsim.compile",
                           "accelsim.report", "accelsim.dse", "plots")),
    ("accelsim.compile", ("simpy", "accelsim.hw", "accelsim.sim", "accelsim.report",
                          "accelsim.dse", "plots", "matplotlib")),
    ("accelsim.trace", ("accelsim.sim", "accelsim.hw", "accelsim.report", "accelsim.estimate")),
    ("accelsim.report", ("accelsim.sim", "accelsim.estimate", "accelsim.compile", "accelsim.hw",
                         "accelsim.dse", "simpy")),
    ("accelsim.network", ("accelsim.cli", "simpy", "accelsim.hw", "plots", "matplotlib")),
    ("accelsim.dse", ("accelsim.cli", "accelsim.network")),
    ("accelsim.api", ("accelsim.cli",)),
]


@pytest.mark.parametrize(("package", "banned"), MUST_NOT_IMPORT, ids=[p for p, _ in MUST_NOT_IMPORT])
def test_package_does_not_import(package: str, banned: tuple[str, ...]) -> None:
    graph, external = _graph(), _external_imports()
    bad = []
    for m in graph:
        if not _within(m, package):
            continue
        for b in banned:
            hits = sorted(d for d in graph[m] if _within(d, b))
            if b not in PACKAGES and "." not in b and b in external[m]:
                hits = [b]  # a third-party package
            bad += [f"{m} imports {h} ({package} must not import {b})" for h in hits]
    assert not bad, "\n".join(bad)


def test_library_code_never_imports_the_cli() -> None:
    graph = _graph()
    bad = [f"{m} imports {d}" for m, deps in graph.items()
           if not _within(m, "accelsim.cli") and m != "accelsim.__main__"
           for d in deps if _within(d, "accelsim.cli")]
    assert not bad, "\n".join(bad)


def test_accelsim_top_level_is_small() -> None:
    top = sorted(p.name for p in (ROOT / "accelsim").glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"accelsim/ holds {len(top)} modules: {top}"


def test_no_file_over_the_line_budget() -> None:
    long = []
    for folder in (*PACKAGES, "tests", "bench"):
        for p in (ROOT / folder).rglob("*.py"):
            if any(part.startswith(".venv") for part in p.parts):  # peers' venvs (bench/peers/.venv-*)
                continue
            n = sum(1 for _ in p.open(encoding="utf-8"))
            if n > MAX_LINES:
                long.append(f"{p.relative_to(ROOT)}: {n} lines")
    assert not long, f"files over {MAX_LINES} lines:\n" + "\n".join(long)


def test_architecture_doc_names_every_package() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = sorted({str(p.parent.relative_to(ROOT)) for pkg in PACKAGES
                       for p in (ROOT / pkg).rglob("__init__.py")})
    missing = [p for p in packages if f"`{p}/`" not in doc]
    assert not missing, f"docs/architecture.md does not name: {missing}"
