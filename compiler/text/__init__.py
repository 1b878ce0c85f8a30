"""MLIR textual syntax for the subset accelsim supports: parser and printer."""

from compiler.text.parser import parse_file, parse_module
from compiler.text.printer import format_float, print_module, print_op

__all__ = ["format_float", "parse_file", "parse_module", "print_module", "print_op"]
