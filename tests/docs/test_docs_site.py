"""The user guide builds with `mkdocs build --strict` (every page in the nav, every link and
anchor resolving), and its hook publishes the files that live outside docs/ correctly."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")

ROOT = Path(__file__).resolve().parents[2]


def _hook():
    spec = importlib.util.spec_from_file_location("docs_publish_hook", ROOT / "docs" / "hooks" / "publish.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_strict_build_has_every_page(tmp_path):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    assert cfg["strict"]
    build(cfg)  # strict: any warning (broken link, missing anchor, page not in nav) aborts
    site = tmp_path / "site"
    pages = {p.relative_to(site).parent.as_posix() for p in site.rglob("index.html")}
    for md in (ROOT / "docs").rglob("*.md"):
        rel = md.relative_to(ROOT / "docs").with_suffix("")
        want = "." if rel.as_posix() == "index" else rel.as_posix()
        assert want in pages, f"docs/{md.relative_to(ROOT / 'docs')} was not built"
    # the published pages carry their sources' text
    results = (tmp_path / "site" / "results" / "index.html").read_text(encoding="utf-8")
    first = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
    assert first in results
    tutorial = (tmp_path / "site" / "tutorial" / "index.html").read_text(encoding="utf-8")
    assert "accelsim tutorial" in tutorial and "dse.Sweep" in tutorial


def test_hook_rewrites_links_for_the_page(tmp_path):
    hook = _hook()
    src = ROOT / "examples" / "dse" / "README.md"
    text = ("see [dataflows](../../docs/dataflows.md#compute-dataflow), "
            "![front](resnet18_dram_pareto.png), [spec](gemm_memory.toml), [web](https://x.org)")
    out, images = hook.rewrite_links(text, src, "examples_dse.md")
    assert "[dataflows](dataflows.md#compute-dataflow)" in out
    assert "![front](examples_dse_files/resnet18_dram_pareto.png)" in out
    assert images == {"examples_dse_files/resnet18_dram_pareto.png": src.parent / "resnet18_dram_pareto.png"}
    assert "spec (`examples/dse/gemm_memory.toml`)" in out
    assert "[web](https://x.org)" in out
    with pytest.raises(ValueError, match="does not resolve"):
        hook.rewrite_links("[x](no_such_file.md)", src, "examples_dse.md")


def test_hook_turns_the_notebook_into_markdown():
    hook = _hook()
    md = hook.notebook_markdown(ROOT / "examples" / "tutorial.ipynb")
    assert md.startswith("# ")
    blocks = re.findall(r"^```python\n", md, re.M)
    assert len(blocks) >= 5  # chip, kernel, network, sweep, plot
