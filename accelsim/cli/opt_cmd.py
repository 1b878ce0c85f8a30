"""`accelsim opt INPUT.mlir [-o OUTPUT] [--pass-flag ...]`: parse, verify, transform, print.

Pass flags use mlir-opt's spelling (`--affine-loop-tile="tile-sizes=32,32"`) and run in the
order given. Remarks go to stderr; the module goes to OUTPUT or stdout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from compiler.diagnostics import DiagnosticError, OptionError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "opt", allow_abbrev=False, help="parse, verify, transform and print an affine .mlir file",
        description="Parse and verify INPUT (an affine-dialect .mlir file, '-' for stdin), run "
                    "the given passes in order (mlir-opt names, e.g. "
                    "--affine-loop-tile=\"tile-sizes=32,32\"), and print the result.")
    p.add_argument("input", nargs="?", help="input .mlir file, or '-' for standard input")
    p.add_argument("-o", "--output", default="-", help="output file (default: standard output)")
    p.add_argument("--debug-locs", "--mlir-print-debuginfo", action="store_true",
                   dest="debug_locs", help="print loc(\"file\":line:col) after every op")
    p.add_argument("--no-verify", action="store_true",
                   help="skip verification of the input (passes still verify their output)")
    p.add_argument("--list-passes", action="store_true",
                   help="list the available passes and their options, then exit")
    p.set_defaults(handler=run, accepts_extra=True)


def list_passes() -> str:
    """One line per registered pass: its flag, its options with defaults, its summary."""
    import dataclasses

    from compiler.transforms.registry import PASSES

    lines = []
    for name in sorted(PASSES):
        cls = PASSES[name]
        opts = []
        for f in dataclasses.fields(cls.Options):
            default = f.default if f.default is not dataclasses.MISSING else None
            opts.append(f"{f.name.replace('_', '-')}={default}")
        lines.append(f"--{name}" + (f"  [{' '.join(opts)}]" if opts else ""))
        if cls.summary:
            lines.append(f"    {cls.summary}")
    return "\n".join(lines)


def split_pass_flags(extra: Sequence[str]) -> list[str]:
    """Every extra argument must be a `--pass[=options]` flag; anything else is refused."""
    flags: list[str] = []
    for arg in extra:
        if not arg.startswith("--") or len(arg) <= 2:
            raise OptionError(f"unrecognized argument '{arg}' (pass flags look like "
                              f"--affine-loop-tile=\"tile-sizes=32,32\")")
        flags.append(arg)
    return flags


def run(args: argparse.Namespace, extra: Sequence[str]) -> int:
    from compiler.ir.verifier import verify
    from compiler.text import parse_module, print_module
    from compiler.transforms.registry import PassManager

    if args.list_passes:
        print(list_passes())
        return 0
    if args.input is None:
        raise OptionError("missing INPUT (a .mlir file, or '-' for standard input)")
    flags = split_pass_flags(extra)
    # Like mlir-opt, an error in the input is reported before a bad pass option (so that an
    # option we do not take never hides what is wrong with the file).
    pm: PassManager | None = None
    option_error: OptionError | None = None
    try:
        pm = PassManager.from_flags(flags)
    except OptionError as exc:
        option_error = exc
    if args.input == "-":
        text, filename = sys.stdin.read(), "<stdin>"
    else:
        try:
            with open(args.input, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise OptionError(f"cannot read '{args.input}': {exc.strerror}") from None
        except UnicodeDecodeError:
            raise OptionError(f"'{args.input}' is not UTF-8 text") from None
        filename = args.input
    try:
        module = parse_module(text, filename)
        if not args.no_verify:
            verify(module)
        if option_error is not None:
            raise option_error
        assert pm is not None
        pm.run(module)
    except DiagnosticError as exc:
        _attach_source_line(exc, text, filename)
        raise
    finally:
        for remark in pm.remarks if pm is not None else ():
            print(remark, file=sys.stderr)
    out = print_module(module, debug_locs=args.debug_locs)
    if args.output == "-":
        sys.stdout.write(out)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(out)
        except OSError as exc:
            raise OptionError(f"cannot write '{args.output}': {exc.strerror}") from None
    return 0


def _attach_source_line(exc: DiagnosticError, text: str, filename: str) -> None:
    """Errors located in the input (stdin included) show its line even without a file."""
    if exc.source_line is None and exc.loc.file == filename and exc.loc.line > 0:
        lines = text.split("\n")
        if exc.loc.line <= len(lines):
            exc.source_line = lines[exc.loc.line - 1]
