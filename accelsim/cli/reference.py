"""Generate the reference pages from their sources: docs/reference/hardware.md from the config
schema (`accelsim.config_schema`) and docs/reference/cli.md from the argument parser
(`accelsim.cli.build_parser`). Tests fail when a page differs from what this writes.

    python -m accelsim.cli.reference           # rewrite both pages
    python -m accelsim.cli.reference --check   # exit 1 naming the pages that are out of date
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"hardware": ROOT / "docs" / "reference" / "hardware.md",
         "cli": ROOT / "docs" / "reference" / "cli.md"}
HELP_COLUMNS = 100  # the width argparse wraps the help at, whatever the terminal


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def cli_reference() -> str:
    """docs/reference/cli.md: every command's `--help`, as argparse prints it."""
    from accelsim.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(HELP_COLUMNS)
    try:
        parsers = list(_parsers(build_parser()))
        helps = [(p.prog, p.format_help().rstrip()) for p in parsers]
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    lines = ["# Command-line reference", "",
             "<!-- Generated from the argument parser (accelsim/cli) by",
             "     `python -m accelsim.cli.reference`; do not edit. -->", "",
             "Options are never abbreviated (`--schedule` is not `--scheduler`). Every error is "
             "one line on stderr (`error: ...`, or `file:line:col: error: ...`) and exit status "
             "1; a usage error exits 2.", ""]
    lines += [f"- [`{prog}`](#{prog.replace(' ', '-')})" for prog, _ in helps]
    lines.append("")
    for prog, text in helps:
        lines += [f"## {prog}", "", "```text", text, "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def hardware_reference() -> str:
    from accelsim.config_schema import hardware_reference as page

    return page()


def generated() -> dict[str, str]:
    return {"hardware": hardware_reference(), "cli": cli_reference()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if out of date")
    args = ap.parse_args(argv)
    stale = []
    for name, text in generated().items():
        path = PAGES[name]
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(str(path.relative_to(ROOT)))
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print(f"out of date: {', '.join(stale)} (run python -m accelsim.cli.reference)",
              file=sys.stderr)
        return 1
    for path in stale:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
