"""MLIR textual syntax for the subset accelsim supports: parser and printer."""

from compiler.text.equivalence import module_diff, modules_equivalent
from compiler.text.parser import parse_affine_map, parse_file, parse_integer_set, parse_module
from compiler.text.printer import format_float, print_module, print_op

__all__ = ["format_float", "module_diff", "modules_equivalent", "parse_affine_map", "parse_file",
           "parse_integer_set", "parse_module", "print_module", "print_op"]
