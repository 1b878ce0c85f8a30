"""Shared by CLI commands that run a kernel: the request a target gets, its outcome, the config
from `--config`/`--set`. Loading programs and inputs lives in `accelsim.api.program` (the
Python API starts there too) and is re-exported here."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accelsim.api.program import (
    Program,
    check_figure_path,
    check_fits_in_memory,
    describe_array,
    load_inputs,
    load_program,
    match_inputs,
    pick_function,
)
from accelsim.config import HardwareConfig, load_config, parse_sets
from accelsim.errors import ConfigError


@dataclass(frozen=True)
class RunRequest:
    program: Program
    inputs: dict[str, np.ndarray]
    args: argparse.Namespace  # every option, for target-specific ones (e.g. --fast-math)


@dataclass(frozen=True)
class RunOutcome:
    """`arrays`: every memref argument after the run, by argument name. `extra` goes to --json."""

    arrays: dict[str, np.ndarray]
    wall_seconds: float
    compile_seconds: float
    outputs: tuple[str, ...]
    extra: dict[str, Any] = field(default_factory=dict)


def config_from_args(args: argparse.Namespace) -> HardwareConfig:
    """`--config` with every `--set` applied, validated as a config file is."""
    overrides = parse_sets(getattr(args, "set", None))
    try:
        return load_config(args.config, overrides)
    except ConfigError as exc:
        if overrides:
            raise ConfigError(f"--set: {exc}") from None
        raise


__all__ = ["Program", "RunOutcome", "RunRequest", "check_figure_path", "check_fits_in_memory",
           "config_from_args", "describe_array", "load_inputs", "load_program", "match_inputs",
           "pick_function"]
