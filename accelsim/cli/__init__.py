"""`accelsim` command line. Each subcommand lives in its own module with `register(sub)`.

Every AccelsimError becomes `file:line:col: error: ...` (or the config key) on stderr and
exit status 1; nothing else is printed, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from compiler.diagnostics import AccelsimError, DiagnosticError

SUBCOMMANDS = ("opt", "run", "dse", "networks", "config")


def build_parser() -> argparse.ArgumentParser:
    from accelsim.cost.version import PACKAGE_VERSION as __version__

    parser = argparse.ArgumentParser(allow_abbrev=False, prog="accelsim", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"accelsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        modname = f"accelsim.cli.{name}_cmd"
        if importlib.util.find_spec(modname) is not None:
            importlib.import_module(modname).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "accepts_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.handler(args, extra) or 0)
    except DiagnosticError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except AccelsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # A file that cannot be read or written: name it, no traceback.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except RecursionError:
        # the parser limits nesting; a structure deeper than any other stage handles ends here
        print("error: the program nests too deeply for accelsim (Python's recursion limit); "
              "flatten its regions or expressions", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
