"""MLIR textual syntax for the subset accelsim supports: parser and printer.

    parse_module(text, filename="<string>") -> ModuleOp     # raises ParseError (file:line:col)
    parse_file(path) -> ModuleOp                            # "-" reads stdin
    print_module(module, debug_locs=False) -> str           # mlir-opt-19 accepts it
    print_op(op) -> str                                     # one op, maps inlined
    parse_affine_map(text) / parse_integer_set(text)        # "affine_map<...>" / "affine_set<...>"
    module_diff(a, b, compare_locs=False, semantic_maps=False) -> str | None   # None if equal
    format_float(value, element_type) -> str                # exact float literal
"""

from compiler.text.equivalence import module_diff
from compiler.text.parser import parse_affine_map, parse_file, parse_integer_set, parse_module
from compiler.text.printer import format_float, print_module, print_op

__all__ = ["format_float", "module_diff", "parse_affine_map", "parse_file",
           "parse_integer_set", "parse_module", "print_module", "print_op"]
