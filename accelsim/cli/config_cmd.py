"""`accelsim config show NAME|FILE [--set KEY=VALUE ...]`: a hardware config resolved.

    accelsim config show default
    accelsim config show mychip.toml --set dram.bandwidth="25.6 GB/s"

Prints the config as TOML after presets and overrides, with every key (defaults included) and
its unit and meaning as a comment (`accelsim.config_schema`; the reference of every key is
docs/reference/hardware.md). The output loads back as the same config (the same content hash).
The DRAM timing model's keys left to the technology are shown commented out, with its value.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from accelsim.config import HardwareConfig


def register(sub: Any) -> None:
    p = sub.add_parser("config", allow_abbrev=False, help="show a hardware config resolved",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    csub = p.add_subparsers(dest="config_command", required=True)
    s = csub.add_parser("show", allow_abbrev=False,
                        help="print a preset or TOML file resolved: every key, default and unit")
    s.add_argument("config", metavar="NAME|FILE", help="hardware preset or a TOML file")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                   help="override one config key, dotted as in the TOML (repeatable)")
    s.add_argument("--json", action="store_true",
                   help="print the resolved keys as one JSON object (no comments)")
    s.set_defaults(handler=cmd_show)


def cmd_show(args: argparse.Namespace, extra: list[str]) -> int:
    from accelsim.cli.common import config_from_args

    cfg = config_from_args(args)
    if args.json:
        print(json.dumps({"name": cfg.name, **cfg.to_dict(), "content_hash": cfg.hash()}))
    else:
        print(show_toml(cfg, args.config, args.set), end="")
    return 0


def _value(v: Any) -> str:
    if isinstance(v, dict) or (isinstance(v, tuple | list) and v
                               and all(isinstance(x, tuple | list) and len(x) == 2 for x in v)):
        # a rate table (compute.macs_rate): a TOML inline table
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in dict(v).items()) + " }"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    return json.dumps(str(v))


def _comment(key: str, extra: str = "") -> str:
    from accelsim.config_schema import doc_of

    f = doc_of(key)
    if f is None:
        return ""
    parts = [p for p in (f.unit, f.meaning) if p]
    text = ": ".join(parts)
    if extra:
        text = f"{text} ({extra})" if text else extra
    return f"  # {text}" if text else ""


def _line(key: str, name: str, value: Any, extra: str = "") -> str:
    return f"{name} = {_value(value)}{_comment(key, extra)}"


def _dram_lines(cfg: HardwareConfig) -> list[str]:
    from accelsim.cost.dram_tech import ORGANIZATION_KEYS, TIMING_KEYS
    from accelsim.report.roofline import peak_dram_bytes_per_cycle

    d = cfg.dram
    out = []
    for f in dataclasses.fields(d):
        v = getattr(d, f.name)
        key = f"dram.{f.name}"
        if v is None:  # the technology's value
            tech = d.timing_value(f.name)
            note = f"the {d.technology} value" + ("" if d.model == "timing" else
                                                  "; read only with dram.model = \"timing\"")
            out.append(f"# {f.name} = {_value(tech)}{_comment(key, note)}")
            continue
        extra = ""
        if f.name == "bandwidth_bytes_per_cycle":
            if d.model == "timing":
                peak = peak_dram_bytes_per_cycle(cfg) / d.channels
                extra = (f"not read by the timing model: {d.technology}'s effective peak is "
                         f"{peak:g} B/cycle per channel")
            else:
                extra = f"= {v * cfg.clock_ghz:g} GB/s per channel at {cfg.clock_ghz:g} GHz"
        elif f.name in TIMING_KEYS or f.name in ORGANIZATION_KEYS:
            extra = "overrides the technology's"
        out.append(_line(key, f.name, v, extra))
    return out


def show_toml(cfg: HardwareConfig, source: str, sets: list[str] | None = None) -> str:
    """The resolved config as commented TOML (loads back as `cfg`)."""
    lines = [f"# hardware config {cfg.name!r} from {source}"
             + (f" with --set {' --set '.join(sets)}" if sets else "")
             + ", resolved: every key with its unit and meaning",
             f"# content hash {cfg.hash()}; reference: docs/reference/hardware.md",
             _line("name", "name", cfg.name), _line("clock_ghz", "clock_ghz", cfg.clock_ghz),
             _line("clusters", "clusters", cfg.clusters)]
    data = cfg.to_dict()
    for sec in ("dram", "sram", "dma", "compute", "energy", "spaces", "control", "hierarchy",
                "interconnect"):
        lines.append("")
        if sec == "sram" and cfg.memory:
            lines.append("# [sram]: the last [[memory]] level (a config with levels has no [sram])")
            continue
        lines.append(f"[{sec}]")
        if sec == "dram":
            lines += _dram_lines(cfg)
            continue
        table = dataclasses.asdict(getattr(cfg, sec))
        table.update(data.get(sec, {}))
        for k, v in table.items():
            if v is None:
                lines.append(f"# {k} = (unset){_comment(f'{sec}.{k}')}")
            else:
                lines.append(_line(f"{sec}.{k}", k, v))
    for lv in data.get("memory", []):
        lines += ["", "[[memory]]"]
        lines += [_line(f"memory.{k}", k, v) for k, v in lv.items() if v is not None]
    given = {lk.dst for lk in cfg.link}
    for lk in cfg.links() if cfg.memory else ():
        table = dataclasses.asdict(lk)
        if lk.dst in given:
            lines += ["", "[[link]]"]
            lines += [_line(f"link.{k}", k, v) for k, v in table.items()]
        else:
            lines += ["", f"# [[link]] {lk.src} -> {lk.dst}: no table, [dma]'s figures "
                          f"(engines {lk.engines}, queue_depth {lk.queue_depth}, setup_cycles "
                          f"{lk.setup_cycles}, max_outstanding {lk.max_outstanding})"]
    return "\n".join(lines) + "\n"
