"""Which target `accelsim run` means when `--target` is not given.

An option only the simulator reads (`--config`, `--set`, `--fidelity`, `--timing-only`,
`--as-is`, a figure or trace) means `--target sim`: given without `--target`, the run used to
go to the host, ignore the hardware and exit 0. So does a network that describes layer shapes
only (a `.csv` / `.layers` topology or a zoo name: only the simulator runs it). Otherwise the
target is the host.
`--config` and `--fidelity` have defaults, so whether they were given is recorded by their
action (`StoreGiven`) in `args.given_options`.
"""

from __future__ import annotations

import argparse
from typing import Any

# the destinations of the options only `--target sim` reads
SIM_OPTIONS = ("config", "set", "fidelity", "as_is", "timing_only", "distribution", "timeline",
               "window", "roofline", "trace", "compare")


class StoreGiven(argparse._StoreAction):
    """`store`, and the option's dest added to `namespace.given_options`."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        given = set(getattr(namespace, "given_options", ()) or ())
        given.add(self.dest)
        namespace.given_options = given


def given_sim_options(args: argparse.Namespace) -> list[str]:
    """The simulator-only options on the command line, as `--name`."""
    given = set(getattr(args, "given_options", ()) or ())
    out = []
    for dest in SIM_OPTIONS:
        value = getattr(args, dest, None)
        if dest in ("config", "fidelity", "distribution"):
            hit = dest in given
        else:
            hit = bool(value)
        if hit:
            out.append(f"--{dest.replace('_', '-')}")
    return out


def choose_target(args: argparse.Namespace, network: bool = False) -> str:
    """`args.target` as given, else "sim" when a simulator-only option was given or INPUT is a
    network of layer shapes only (`network`: INPUT is a network), else "host"."""
    if getattr(args, "target", None) is None:
        shapes_only = network and not str(args.input).lower().endswith(".onnx")
        args.target = "sim" if given_sim_options(args) or shapes_only else "host"
    return str(args.target)
