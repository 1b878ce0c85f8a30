"""Pass registry and the mlir-opt style command line (`--affine-loop-tile="tile-size=32"`)."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import OptionError, Remark
from compiler.ir.ops import ModuleOp
from compiler.transforms.pass_base import Pass

PASSES: dict[str, type[Pass]] = {}


def register(cls: type[Pass]) -> type[Pass]:
    PASSES[cls.name] = cls
    return cls


def _load_builtin_passes() -> None:
    # Importing the pass modules registers them.
    import compiler.transforms.passes  # noqa: F401


def create_pass(name: str, options: str = "") -> Pass:
    _load_builtin_passes()
    if name not in PASSES:
        known = ", ".join(sorted(PASSES))
        raise OptionError(f"unknown pass '--{name}' (known passes: {known})")
    return PASSES[name](options)


def parse_pass_flag(flag: str) -> Pass:
    """`--name` or `--name=options` (the shell already removed the quotes)."""
    body = flag[2:] if flag.startswith("--") else flag.lstrip("-")
    name, _, options = body.partition("=")
    options = options.strip()
    if len(options) >= 2 and options[0] == options[-1] and options[0] in "\"'":
        options = options[1:-1]
    return create_pass(name, options)


def is_pass_flag(flag: str) -> bool:
    _load_builtin_passes()
    body = flag[2:] if flag.startswith("--") else ""
    return body.partition("=")[0] in PASSES


class PassManager:
    """Runs passes in order; verifies after each so a broken pass is caught where it broke."""

    def __init__(self, passes: Sequence[Pass], verify_each: bool = True):
        self.passes = list(passes)
        self.verify_each = verify_each
        self.remarks: list[Remark] = []

    @staticmethod
    def from_flags(flags: Sequence[str]) -> PassManager:
        return PassManager([parse_pass_flag(f) for f in flags])

    def run(self, module: ModuleOp) -> ModuleOp:
        from compiler.ir.verifier import verify

        for p in self.passes:
            p.run(module)
            self.remarks.extend(p.remarks)
            if self.verify_each:
                verify(module)
        return module
