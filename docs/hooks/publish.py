"""MkDocs hook: publish files that live outside docs/ as pages, so each has one source.

bench/RESULTS.md (the measured results), workloads/README.md, examples/dse/README.md and the
tutorial notebook (examples/tutorial.ipynb, its cells as Markdown and code blocks) become pages
of the site at build time; nothing is copied into docs/. A relative link in such a file is
rewritten for the page's place: to a docs page it stays a link, an image beside the file is
published with the page, any other file becomes its repository path in code.

A docs page may also link a repository file outside docs/ (`../examples/dse/plot.png`, which
renders on the forge as written): the file is published under `_repo/` and the link rewritten
to it, so the site shows it too. A link to a file that does not exist stays as written, and the
strict build reports it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# page in the site -> its source in the repository
PAGES = {
    "results.md": "bench/RESULTS.md",
    "workloads.md": "workloads/README.md",
    "examples_dse.md": "examples/dse/README.md",
    "tutorial.md": "examples/tutorial.ipynb",
}

_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#|/)")


def notebook_markdown(path: Path) -> str:
    """A notebook as Markdown: markdown cells as they are, code cells as Python blocks."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        text = "".join(cell["source"]).rstrip()
        if not text:
            continue
        parts.append(text if cell["cell_type"] == "markdown" else f"```python\n{text}\n```")
    return "\n\n".join(parts) + "\n"


def rewrite_links(text: str, source: Path, page: str) -> tuple[str, dict[str, Path]]:
    """`text` (from `source`) with its relative links fit for the site page `page`, and the
    images to publish beside it ({site path: file})."""
    images: dict[str, Path] = {}
    depth = page.count("/")

    def sub(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        if _EXTERNAL.match(target):
            return m.group(0)
        path_part, _, anchor = target.partition("#")
        path = (source.parent / path_part).resolve()
        if not path.exists():
            raise ValueError(f"{source.relative_to(ROOT)}: link {target!r} does not resolve")
        if path.is_relative_to(DOCS):
            rel = "../" * depth + path.relative_to(DOCS).as_posix()
            return f"{bang}[{label}]({rel}{'#' + anchor if anchor else ''})"
        if bang:
            site = f"{Path(page).stem}_files/{path.name}"
            images[site] = path
            return f"![{label}]({'../' * depth}{site})"
        return f"{label} (`{path.relative_to(ROOT).as_posix()}`)"

    return _LINK.sub(sub, text), images


def page_source(page: str) -> tuple[str, dict[str, Path]]:
    """The Markdown of one published page and the images it needs."""
    source = ROOT / PAGES[page]
    text = (notebook_markdown(source) if source.suffix == ".ipynb"
            else source.read_text(encoding="utf-8"))
    return rewrite_links(text, source, page)


REPO_DIR = "_repo"


def outside_target(page_src: Path, target: str) -> Path | None:
    """The repository file outside docs/ that a relative link of a docs page names, if any."""
    if _EXTERNAL.match(target):
        return None
    path = (page_src.parent / target.partition("#")[0]).resolve()
    if path.is_relative_to(DOCS) or not path.is_relative_to(ROOT) or not path.is_file():
        return None
    return path


def outside_links(page_src: Path, text: str) -> dict[str, Path]:
    """{link target as written: file} for the links of a docs page that leave docs/."""
    found = {}
    for m in _LINK.finditer(text):
        path = outside_target(page_src, m.group(3))
        if path is not None:
            found[m.group(3)] = path
    return found


def on_files(files: Files, config: Any) -> Files:
    for page in PAGES:
        text, images = page_source(page)
        files.append(File.generated(config, page, content=text))
        for site, path in images.items():
            files.append(File.generated(config, site, content=path.read_bytes()))
    published: set[Path] = set()
    for md in sorted(DOCS.rglob("*.md")):
        for path in outside_links(md, md.read_text(encoding="utf-8")).values():
            if path not in published:
                published.add(path)
                site = f"{REPO_DIR}/{path.relative_to(ROOT).as_posix()}"
                files.append(File.generated(config, site, content=path.read_bytes()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """A docs page's links to repository files outside docs/ point at their published copies."""
    if page.file.abs_src_path is None:  # a generated page: its links were rewritten already
        return markdown
    src = Path(page.file.abs_src_path)
    links = outside_links(src, markdown)
    if not links:
        return markdown

    def sub(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        path = links.get(target)
        if path is None:
            return m.group(0)
        published = DOCS / REPO_DIR / path.relative_to(ROOT)
        rel = os.path.relpath(published, src.parent).replace(os.sep, "/")
        anchor = target.partition("#")[2]
        return f"{bang}[{label}]({rel}{'#' + anchor if anchor else ''})"

    return _LINK.sub(sub, markdown)
