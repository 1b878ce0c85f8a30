"""MkDocs hook: publish files that live outside docs/ as pages, so each has one source.

bench/RESULTS.md (the measured results), workloads/README.md, examples/dse/README.md and the
tutorial notebook (examples/tutorial.ipynb, its cells as Markdown and code blocks) become pages
of the site at build time; nothing is copied into docs/. A relative link in such a file is
rewritten for the page's place: to a docs page it stays a link, an image beside the file is
published with the page, any other file becomes its repository path in code.
"""

from __future__ import annotations

import json
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


def on_files(files: Files, config: Any) -> Files:
    for page in PAGES:
        text, images = page_source(page)
        files.append(File.generated(config, page, content=text))
        for site, path in images.items():
            files.append(File.generated(config, site, content=path.read_bytes()))
    return files
