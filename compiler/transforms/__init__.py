"""Passes with mlir-opt's names, and the pass manager."""

from compiler.transforms.pass_base import Pass, format_options, parse_options
from compiler.transforms.registry import PASSES, PassManager, create_pass, parse_pass_flag, register

__all__ = ["PASSES", "Pass", "PassManager", "create_pass", "format_options", "parse_options",
           "parse_pass_flag", "register"]
