"""The README a new user meets: short, every command in it a valid invocation of the real
argument parser (or a Makefile target), every relative link resolving, its Python example
running; the same command check for the user guide's `accelsim` lines."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from accelsim.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 200

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEREDOC = re.compile(r"<<-?\s*'?\"?(\w+)'?\"?")
SHELL_LANGS = {"sh", "bash", "shell", "console"}


def code_blocks(text: str, langs: set[str]) -> list[str]:
    return [body for lang, body in _FENCE.findall(text) if lang in langs]


def shell_commands(block: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, heredoc bodies and comments
    dropped, `$ ` prompts stripped."""
    commands: list[str] = []
    lines = iter(block.splitlines())
    for line in lines:
        while line.rstrip().endswith("\\"):
            line = line.rstrip()[:-1] + " " + next(lines, "")
        stripped = line.strip().removeprefix("$ ")
        if not stripped or stripped.startswith("#"):
            continue
        heredoc = _HEREDOC.search(stripped)
        if heredoc:
            for body in lines:
                if body.strip() == heredoc.group(1):
                    break
        commands.append(stripped)
    return commands


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"^([A-Za-z][\w-]*):(?!=)", text, re.M)}


def check_accelsim(argv: list[str]) -> str | None:
    """None if the real parser takes `argv` (pass flags checked by the pass registry), else why not."""
    parser = build_parser()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args, extra = parser.parse_known_args(argv)
    except SystemExit:
        return err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else "argparse exit"
    if extra:
        if not getattr(args, "accepts_extra", False):
            return f"unrecognized arguments: {extra}"
        from compiler.transforms.registry import PassManager

        try:
            PassManager.from_flags([a for a in extra])
        except Exception as exc:  # an unknown pass or option: the message says which
            return f"pass flags {extra}: {exc}"
    return None


def check_command(command: str, targets: set[str]) -> str | None:
    # one command per line; a pipe or `&&` chain is checked command by command
    for part in re.split(r"\s*(?:&&|\|\||\|)\s*", command):
        words = shlex.split(part, comments=True)
        if not words:
            continue
        prog, rest = words[0], words[1:]
        if prog in ("accelsim", ".venv/bin/accelsim"):
            why = check_accelsim(rest)
            if why:
                return why
        elif prog == "make":
            unknown = [t for t in rest if not t.startswith("-") and t not in targets]
            if unknown:
                return f"no Makefile target {unknown}"
        elif prog == "cat" and _HEREDOC.search(part):
            continue
        else:
            return f"{prog!r} is not a command the README may show (accelsim, make, cat <<EOF)"
    return None


def test_readme_is_short():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"README.md has {n} lines (at most {MAX_LINES}): move detail to docs/"


def test_readme_commands_are_valid_invocations():
    text = README.read_text(encoding="utf-8")
    targets = make_targets()
    commands = [c for block in code_blocks(text, SHELL_LANGS) for c in shell_commands(block)]
    assert any(c.startswith("make demo") for c in commands)
    assert any(c.startswith("make test") for c in commands)
    bad = {c: why for c in commands if (why := check_command(c, targets))}
    assert not bad, bad


def test_docs_accelsim_commands_are_valid_invocations():
    """Every `accelsim ...` line in a shell block of the user guide parses too."""
    bad = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for block in code_blocks(page.read_text(encoding="utf-8"), SHELL_LANGS):
            for c in shell_commands(block):
                if c.startswith("accelsim ") and (why := check_command(c, set())):
                    bad[f"{page.relative_to(ROOT)}: {c}"] = why
    assert not bad, bad


def test_checker_rejects_what_the_parser_rejects():
    """The command check is the real parser's: a misspelt option, subcommand or pass fails."""
    targets = make_targets()
    assert check_command("accelsim run gemm --target sim --no-such-option", targets)
    assert check_command("accelsim runn gemm", targets)
    assert check_command("accelsim opt x.mlir --affine-loop-tyle=tile-sizes=4", targets)
    assert check_command("make no-such-target", targets)
    assert check_command("rm -rf /", targets)
    assert check_command("accelsim run gemm:M=64 --target sim --set sram.capacity_kib=128", targets) is None
    assert shell_commands("cat > a.toml <<'EOF'\nx = 1\nEOF\nmake demo  # comment\n") == [
        "cat > a.toml <<'EOF'", "make demo  # comment"]


def test_readme_relative_links_resolve():
    text = README.read_text(encoding="utf-8")
    links = [t for t in _LINK.findall(text) if not re.match(r"^([a-z][a-z0-9+.-]*:|#)", t)]
    assert links
    missing = [t for t in links if not (ROOT / t.partition("#")[0]).exists()]
    assert not missing, missing


def test_readme_python_example_runs(tmp_path, monkeypatch):
    import accelsim

    if not hasattr(accelsim, "run"):
        pytest.skip("accelsim.run is not on this tree yet (issue 34 item 1)")
    blocks = code_blocks(README.read_text(encoding="utf-8"), {"python"})
    assert blocks
    monkeypatch.chdir(tmp_path)  # the example writes its timeline into the current directory
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, str(README), "exec"), namespace)
    res = namespace["res"]
    assert res.cycles == res.to_dict()["cycles"] > 0
    assert (tmp_path / "gemm.png").stat().st_size > 0


def _toml_blocks() -> list[tuple[str, str]]:
    """Every TOML the README and the user guide show: ```toml blocks and the README's heredoc."""
    out = []
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        out += [(page.name, body) for body in code_blocks(text, {"toml"})]
        for block in code_blocks(text, SHELL_LANGS):
            for m in re.finditer(r"<<-?\s*'?(\w+)'?\n(.*?)^\1$", block, re.M | re.S):
                out.append((page.name, m.group(2)))
    return out


def test_docs_toml_examples_load(tmp_path, monkeypatch):
    """Each hardware description the docs show loads as `--config FILE` does, and each sweep
    spec as `accelsim dse run` reads it (next to the docs' mychip.toml)."""
    import tomllib

    import accelsim
    from accelsim import dse

    blocks = _toml_blocks()
    chips = [body for _, body in blocks if 'name = "mychip"' in body]
    assert chips, "the docs' 4-cluster chip"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mychip.toml").write_text(chips[0], encoding="utf-8")
    specs = 0
    for where, body in blocks:
        data = tomllib.loads(body)
        if "workloads" in data:
            dse.from_dict(data)
            specs += 1
        else:
            path = tmp_path / "config.toml"
            path.write_text(body, encoding="utf-8")
            cfg = accelsim.load_config(str(path))
            assert cfg.clusters >= 1, where
    assert specs >= 1
    four = accelsim.load_config("mychip.toml")
    assert (four.clusters, four.sram.capacity_kib) == (4, 512)


def test_readme_picture_is_the_demo_run():
    """plots/readme_figures.py draws the README's picture from `make demo`'s own command."""
    from plots.readme_figures import DEMO

    recipe = re.search(r"^demo:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
    demo = shlex.split(recipe.group(1).replace("\\\n", " ").split("\n\t")[-1].strip().lstrip("\t"))
    assert demo[0].endswith("accelsim") and demo[1:len(DEMO) + 1] == DEMO
    assert "docs/img/demo_timeline.png" in README.read_text(encoding="utf-8")
