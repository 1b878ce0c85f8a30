"""The structure of a file: top level (aliases, `module`, `func.func`), function signatures,
regions, and the generic line of an operation (`%r:2 = name ...`), which dispatches on the op
name to the dialect parsers in `ops` (set by compiler.text.parser)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from compiler.diagnostics import Location
from compiler.ir.core import Block, Operation
from compiler.ir.ops import AffineYieldOp, FuncOp, ModuleOp
from compiler.ir.types import FunctionType, Type
from compiler.text.lexer import Token, source_location
from compiler.text.parsing.cursor import MAX_REGION_NESTING
from compiler.text.parsing.locations import LocationParser


class OpParser(LocationParser):
    """Parses a whole file; `ops` maps an op name to the function that parses the rest of its
    line (after the name) and inserts the op."""

    ops: ClassVar[Mapping[str, Callable[[OpParser, Location], Operation]]] = {}
    # ops allowed beside functions at module level (`memref.global`), and registered ops whose
    # custom parser keeps them opaque, so that their generic form reads back too
    module_ops: ClassVar[frozenset[str]] = frozenset()
    generic: ClassVar[Callable[[OpParser, Location], Operation] | None] = None
    opaque_names: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        self.block: Block | None = None
        # the function being parsed: its block labels (name -> (block index, token)) and the
        # branches to resolve once every label is known
        self.labels: dict[str, tuple[int, Token]] = {}
        self.branches: list[tuple[Operation, list[str], Token]] = []

    # ---- module ----------------------------------------------------------------------
    def parse_module(self) -> ModuleOp:
        module: ModuleOp | None = None
        implicit: ModuleOp | None = None
        while self.kind() != "eof":
            t = self.tok
            if t[0] == "hash":
                self.parse_alias_definition()
            elif self.at("module") or self.at("builtin.module"):
                if module is not None or implicit is not None:
                    raise self.error("only one top-level module is supported")
                module = self.parse_module_op()
            elif t[0] == "bare" and t[1] in ("func.func", "func"):
                if module is not None:
                    raise self.error("a function after the top-level module must be inside it")
                if implicit is None:
                    implicit = ModuleOp(loc=self.location(t))
                self.block = implicit.body
                self.parse_func()
            elif self.at_module_level_op():
                if module is not None:
                    raise self.error("an op after the top-level module must be inside it")
                if implicit is None:
                    implicit = ModuleOp(loc=self.location(t))
                self.block = implicit.body
                self.parse_operation()
            else:
                raise self.error(f"expected 'module', 'func.func' or an alias definition at top "
                                 f"level, found {self.describe()}")
        result = module or implicit or ModuleOp(loc=self.src.location(0))
        self.resolve_pending_locs()
        return result

    def parse_module_op(self) -> ModuleOp:
        t = self.advance()  # `module` or `builtin.module`
        module = ModuleOp(loc=self.location(t))
        if self.kind() == "at":
            self.advance()  # module @name: the name carries no meaning for us
        if self.accept("attributes"):
            self.skip_attr_dict()
        self.expect("{", "to open the module body")
        self.block = module.body
        while not self.at("}"):
            tk = self.tok
            if tk[0] == "bare" and tk[1] in ("func.func", "func"):
                self.parse_func()
            elif self.at_module_level_op():
                self.parse_operation()
            elif tk[0] == "eof":
                raise self.error("expected '}' to close the module, found end of file")
            else:
                raise self.error(f"expected 'func.func' inside module, found {self.describe()}")
        self.advance()
        self.parse_trailing_loc(module)
        return module

    def at_module_level_op(self) -> bool:
        t = self.tok
        name = t[1][1:-1] if t[0] == "str" else t[1] if t[0] == "bare" else ""
        return name in self.module_ops

    def parse_alias_definition(self) -> None:
        name_tok = self.advance()
        name = name_tok[1]
        self.expect("=", f"after alias name '{name}'")
        if name in self.map_aliases or name in self.set_aliases or name in self.loc_aliases:
            raise self.error(f"redefinition of alias '{name}'", name_tok)
        if self.at("affine_map"):
            self.map_aliases[name] = self.parse_affine_map_attr()
        elif self.at("affine_set"):
            self.set_aliases[name] = self.parse_affine_set_attr()
        elif self.at("loc"):
            self.loc_aliases[name] = self.parse_loc_body(None)
        else:
            raise self.error(f"expected 'affine_map<', 'affine_set<' or 'loc(' after '{name} =', "
                             f"found {self.describe()}")

    # ---- functions ------------------------------------------------------------------------
    def parse_func(self) -> None:
        start = self.advance()
        if start[1] == "func":
            raise self.error("expected 'func.func' (the bare 'func' form is not supported)", start)
        private = False
        if self.tok[0] == "bare" and self.tok[1] in ("private", "public", "nested"):
            private = self.advance()[1] == "private"
        name_tok = self.expect_kind("at", "a function name ('@name')")
        name = name_tok[1][1:].strip('"')
        self.expect("(", "to open the argument list")
        arg_toks: list[Token | None] = []
        arg_types: list[Type] = []
        if not self.at(")"):
            while True:
                if self.kind() == "pct":
                    arg_toks.append(self.advance())
                    self.expect(":", "after the argument name")
                else:
                    arg_toks.append(None)
                arg_types.append(self.parse_type())
                if self.at("{"):
                    self.skip_attr_dict()
                if self.at("loc"):
                    self.parse_loc_body(None)
                if not self.accept(","):
                    break
        self.expect(")", "to close the argument list")
        results: list[Type] = []
        if self.accept("->"):
            results = self.parse_result_types()
        if self.accept("attributes"):
            self.skip_attr_dict()
        ftype = FunctionType(tuple(arg_types), tuple(results))
        has_body = self.at("{")
        named = [t for t in arg_toks if t is not None]
        if has_body and len(named) != len(arg_toks):
            bad = next(i for i, t in enumerate(arg_toks) if t is None)
            raise self.error(f"function '@{name}' has a body, so argument #{bad} needs a name "
                             f"('%name: type')", name_tok)
        names = [t[1][1:] if t is not None and not t[1][1].isdigit() else None for t in arg_toks]
        f = FuncOp(name, ftype, names, loc=self.location(start), private=private,
                   declaration=not has_body)
        assert self.block is not None
        outer_block = self.block
        outer_block.append(f)
        if has_body:
            saved_scopes = self.scopes
            self.scopes = [{}]
            for t, a in zip(arg_toks, f.args, strict=True):
                assert t is not None
                self.define(t, [a])
            saved_labels = self.labels, self.branches
            self.labels, self.branches = {}, []
            self.parse_region_body(f.body, "func.return")
            self.resolve_branches(f)
            self.labels, self.branches = saved_labels
            self.scopes = saved_scopes
            self.block = outer_block
        self.parse_trailing_loc(f)

    def parse_region_body(self, block: Block, terminator: str) -> None:
        """`{ ops }` into `block`; a missing affine.yield is added as MLIR does."""
        if self.region_depth >= MAX_REGION_NESTING:
            raise self.error(f"regions nested more than {MAX_REGION_NESTING} deep (a limit of "
                             "accelsim)")
        self.expect("{", "to open a region")
        if self.tok[0] == "punct" and self.tok[1] == "^":
            raise self.error("block labels are not supported (accelsim regions have one block)")
        saved = self.block
        self.block = block
        self.region_depth += 1
        while not self.at("}"):
            if self.kind() == "eof":
                raise self.error("expected '}' to close the region, found end of file")
            if self.tok[0] == "punct" and self.tok[1] == "^":
                if terminator != "func.return" or self.region_depth != 1:
                    raise self.error("block labels are supported in function bodies only (an "
                                     "affine region has one block)")
                if not self.block.ops or not self.block.ops[-1].IS_TERMINATOR:
                    raise self.error("the block before this label must end with a terminator "
                                     "(cf.br, cf.cond_br or return)")
                self.block = self.parse_block_label(block.parent_op)
                continue
            self.parse_operation()
        self.region_depth -= 1
        close = self.advance()
        if terminator == "affine.yield" and (not block.ops or not block.ops[-1].IS_TERMINATOR):
            block.append(AffineYieldOp(loc=self.location(close)))
        elif terminator == "func.return" and (not self.block.ops
                                              or not self.block.ops[-1].IS_TERMINATOR):
            raise self.error("function body must end with 'return' (func.return)", close)
        self.block = saved

    # ---- blocks of a function (cf.br / cf.cond_br) --------------------------------------
    def parse_block_label(self, owner: Operation | None) -> Block:
        """`^bb1(%x: f32, ...):` opens a new block of the function; its arguments are defined."""
        assert owner is not None
        self.expect("^")
        name_tok = self.expect_kind("bare", "a block label")
        if name_tok[1] in self.labels:
            raise self.error(f"redefinition of block '^{name_tok[1]}'", name_tok)
        toks: list[Token] = []
        types: list[Type] = []
        if self.accept("("):
            while not self.at(")"):
                toks.append(self.expect_kind("pct", "a block argument ('%name')"))
                self.expect(":", "after the block argument's name")
                types.append(self.parse_type())
                if not self.accept(","):
                    break
            self.expect(")", "to close the block arguments")
        self.expect(":", "after the block label")
        b = Block(types, [t[1][1:] if not t[1][1].isdigit() else None for t in toks])
        owner.add_block(b)
        for t, a in zip(toks, b.args, strict=True):
            self.define(t, [a])
        self.labels[name_tok[1]] = (len(owner.blocks) - 1, name_tok)
        return b

    def branch_labels(self, op: Operation, names: list[str]) -> None:
        self.branches.append((op, names, self.toks[self.i - 1]))

    def resolve_branches(self, f: Operation) -> None:
        """Each branch's successors by block index; an unknown label, a successor given the
        wrong operands, or the entry block as a successor is an error."""
        for op, names, tok in self.branches:
            dests = []
            for name, (_, n) in zip(names, op.dests, strict=True):  # type: ignore[attr-defined]
                if name not in self.labels:
                    raise self.error(f"reference to an undefined block '^{name}'", tok)
                k = self.labels[name][0]
                args = f.blocks[k].args
                dests.append((k, n))
                if n != len(args):
                    raise self.error(f"branch to '^{name}' passes {n} operand(s), the block takes "
                                     f"{len(args)}", tok)
            op.dests = dests  # type: ignore[attr-defined]

    # ---- operations ---------------------------------------------------------------------
    def parse_operation(self) -> None:
        toks = self.toks
        first = toks[self.i]
        result_toks: list[Token] = []
        group = 0
        if first[0] == "pct":
            if toks[self.i + 1][1] == "=":  # the common `%x = ...`
                result_toks.append(first)
                self.i += 2
            else:
                while True:
                    result_toks.append(self.parse_value_def())
                    if self.accept(":"):
                        group = self.expect_int("a result count")
                    if not self.accept(","):
                        break
                self.expect("=", "after the result names")
        name_tok = toks[self.i]
        loc = source_location(self.src, first[2])
        if name_tok[0] == "str":
            op = self.parse_generic_op(loc)
        else:
            if name_tok[0] != "bare":
                raise self.error(f"expected an operation name, found {self.describe()}")
            handler = self.ops.get(name_tok[1])
            if handler is None:
                raise self.error(f"unknown op '{name_tok[1]}' (an op of a dialect accelsim does "
                                 "not model must be written in the generic form, '\"name\"(...)')")
            self.i += 1
            op = handler(self, loc)
        n_expected = len(op.results)
        n_given = group if group else len(result_toks)
        if group and len(result_toks) != 1:
            raise self.error("a result group ('%x:N') must be the only result name", first)
        if n_given != n_expected and n_given:  # results may go unnamed (`affine.load %A[%i] ...`)
            raise self.error(f"'{name_tok[1]}' defines {n_expected} result(s) but {n_given} "
                             f"name(s) were given", first)
        if group:
            self.define(result_toks[0], list(op.results))
        elif result_toks:
            for t, r in zip(result_toks, op.results, strict=True):
                self.define(t, [r])
        if self.toks[self.i][1] == "loc":
            self.parse_loc_body(op)

    def parse_generic_op(self, loc: Location) -> Operation:
        """`"name"(...) : (...) -> ...`: the generic form (compiler.text.parsing.generic_ops,
        set as `generic` by compiler.text.parser)."""
        if self.generic is None:
            raise self.error(f"unknown op {self.text()} (the generic op form is not enabled)")
        return self.generic(self, loc)

    def insert(self, op: Operation) -> Operation:
        assert self.block is not None
        self.block.append(op)
        return op


OpParseFn = Callable[[OpParser, Location], Operation]
