"""Locations: `loc("file":line:col)` trailers, named, fused and call-site locations, and
`#loc` aliases, resolved once the whole file is read."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation
from compiler.text.parsing.index_lists import IndexListParser

# A parsed location: resolved, unknown (None), ("alias", "#name", offset) until the end, or the
# parts of a fused location that still contains aliases.
LocRef = Location | tuple[str, str, int] | list["LocRef"] | None


class LocationParser(IndexListParser):
    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        self.loc_aliases: dict[str, LocRef] = {}
        self.pending_locs: list[tuple[Operation, LocRef]] = []

    def parse_trailing_loc(self, op: Operation) -> None:
        if self.at("loc"):
            self.parse_loc_body(op)

    def parse_loc_body(self, op: Operation | None) -> LocRef:
        """`loc(...)`; with `op`, sets its location (alias references are resolved at the end)."""
        self.expect("loc")
        self.expect("(", "after 'loc'")
        ref = self.parse_loc_inner()
        self.expect(")", "to close 'loc('")
        if op is not None:
            if isinstance(ref, Location):
                op.loc = ref
            elif ref is not None:
                self.pending_locs.append((op, ref))
        return ref

    def parse_loc_inner(self) -> LocRef:
        """A location: "file":line:col, "name"(child), unknown, #alias, fused[...], callsite(...).

        Fused and call-site locations keep their first component: the op's own position.
        """
        t = self.tok
        if t[0] == "str":
            self.i += 1
            fname = _unescape(t[1][1:-1])
            if self.accept(":"):
                line = self.expect_int("a line number")
                self.expect(":", "between line and column in loc(...)")
                col = self.expect_int("a column number")
                return Location(fname, line, col)
            if self.accept("("):  # a named location wrapping a child location
                child = self.parse_loc_inner()
                self.expect(")", "to close the named location")
                return child
            return Location(fname, 0, 0)
        if t[0] == "hash":
            self.i += 1
            return ("alias", t[1], t[2])
        if t[0] == "bare" and t[1] == "unknown":
            self.i += 1
            return None
        if t[0] == "bare" and t[1] == "fused":
            self.i += 1
            if self.at("<"):
                self.skip_balanced("<", ">")
            self.expect("[", "after 'fused'")
            parts = [self.parse_loc_inner()]
            while self.accept(","):
                parts.append(self.parse_loc_inner())
            self.expect("]", "to close the fused location")
            known = [p for p in parts if p is not None]
            if all(isinstance(p, Location) for p in known):
                return known[0] if known else None
            return known  # contains aliases: the first that resolves wins, at the end
        if t[0] == "bare" and t[1] == "callsite":
            self.i += 1
            self.expect("(", "after 'callsite'")
            callee = self.parse_loc_inner()
            self.expect("at", "in callsite(callee at caller)")
            self.parse_loc_inner()
            self.expect(")", "to close the callsite location")
            return callee
        raise self.error(f"unsupported location {self.describe()} (expected \"file\":line:col, "
                         f"unknown, #alias, fused[...] or callsite(...))")

    def resolve_loc(self, ref: LocRef) -> Location | None:
        if isinstance(ref, list):
            for part in ref:
                loc = self.resolve_loc(part)
                if loc is not None:
                    return loc
            return None
        seen: set[str] = set()
        while isinstance(ref, tuple):
            _, name, offset = ref
            if name not in self.loc_aliases:
                raise self.src.error(offset, f"undefined location alias '{name}'")
            if name in seen:
                raise self.src.error(offset, f"location alias '{name}' refers to itself")
            seen.add(name)
            ref = self.loc_aliases[name]
            if isinstance(ref, list):
                return self.resolve_loc(ref)
        return ref

    def resolve_pending_locs(self) -> None:
        for op, ref in self.pending_locs:
            loc = self.resolve_loc(ref)
            if loc is not None:
                op.loc = loc


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\\\", "\\")
