"""The memref dialect's custom syntax: memref.alloc / alloca / dealloc / dim, and the ops
accelsim keeps opaque (`OpaqueOp`, printed in the generic form, unknown memory effects on
their operands; the host and the simulator refuse them): memref.load / store / copy /
get_global, and memref.global at module level."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AllocaOp, AllocOp, DeallocOp, DimOp, OpaqueOp
from compiler.ir.types import INDEX, MemRefType, Type
from compiler.text.parsing.structure import OpParseFn, OpParser


def parse_alloc(p: OpParser, cls: type, loc: Location) -> Operation:
    p.expect("(", f"after '{cls.NAME}'")
    sizes: list[Value] = []
    if not p.at(")"):
        sizes = [p.parse_operand(INDEX)]
        while p.accept(","):
            sizes.append(p.parse_operand(INDEX))
    p.expect(")", f"to close the {cls.NAME} size operands")
    if p.at("["):
        raise p.error(f"symbol operands of {cls.NAME} are not supported")
    alignment = None
    if p.at("{"):
        alignment = parse_alignment_attr(p)
    elif p.accept("alignment"):  # the newer upstream spelling, `memref.alloc() alignment = 64`
        p.expect("=", "after 'alignment'")
        alignment = p.expect_int("an alignment")
    p.expect(":", "before the memref type")
    ty_tok = p.tok
    ty = p.parse_type()
    if not isinstance(ty, MemRefType):
        raise p.error(f"{cls.NAME} must produce a memref, found {ty}", ty_tok)
    dyn = sum(1 for d in ty.shape if d is None)
    if dyn != len(sizes):
        raise p.error(f"{ty} has {dyn} dynamic dimension(s) but {len(sizes)} size "
                         f"operand(s) were given", ty_tok)
    return p.insert(cls(ty, sizes, loc=loc, alignment=alignment))


def parse_alignment_attr(p: OpParser) -> int:
    p.expect("{")
    key = p.expect_kind("bare", "an attribute name")
    if key[1] != "alignment":
        raise p.error(f"unsupported attribute '{key[1]}' (only 'alignment' is known)", key)
    p.expect("=", "after 'alignment'")
    value = p.expect_int("an alignment")
    if p.accept(":"):
        p.parse_element_type()
    p.expect("}", "to close the attribute dictionary")
    return value


def parse_dealloc(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    mem = p.parse_operand()
    p.expect_memref_type(mem, t)
    return p.insert(DeallocOp(mem, loc=loc))


def parse_dim(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    mem = p.parse_operand()
    p.expect(",", "between the memref and the dimension")
    index = p.parse_operand(INDEX)
    p.expect_memref_type(mem, t)
    return p.insert(DimOp(mem, index, loc=loc))


def _typed_memref(p: OpParser) -> tuple[Value, MemRefType]:
    t = p.tok
    mem = p.parse_operand()
    if not isinstance(mem.type, MemRefType):
        raise p.error(f"'{t[1]}' has type {mem.type}, a memref is expected here", t)
    return mem, mem.type


def _indices(p: OpParser) -> list[Value]:
    p.expect("[", "to open the indices")
    idx: list[Value] = []
    if not p.at("]"):
        idx = [p.parse_operand(INDEX)]
        while p.accept(","):
            idx.append(p.parse_operand(INDEX))
    p.expect("]", "to close the indices")
    return idx


def parse_memref_load(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    mem, mt = _typed_memref(p)
    idx = _indices(p)
    p.expect_memref_type(mem, t)
    if len(idx) != mt.rank:
        raise p.error(f"memref.load has {len(idx)} index(es) but {mt} has rank {mt.rank}", t)
    return p.insert(OpaqueOp("memref.load", [mem, *idx], [mt.element], loc=loc))


def parse_memref_store(p: OpParser, loc: Location) -> Operation:
    vt = p.tok
    v = p.parse_operand()
    p.expect(",", "between the stored value and the memref")
    t = p.tok
    mem, mt = _typed_memref(p)
    idx = _indices(p)
    p.expect_memref_type(mem, t)
    if len(idx) != mt.rank:
        raise p.error(f"memref.store has {len(idx)} index(es) but {mt} has rank {mt.rank}", t)
    p.check_type(v, vt, mt.element)
    return p.insert(OpaqueOp("memref.store", [v, mem, *idx], [], loc=loc))


def parse_memref_copy(p: OpParser, loc: Location) -> Operation:
    st = p.tok
    src = p.parse_operand()
    p.expect(",", "between the copy source and target")
    dt = p.tok
    dst = p.parse_operand()
    p.expect(":", "before the copy types")
    for v, tok in ((src, st), (dst, dt)):
        ty_tok = p.tok
        ty = p.parse_type()
        if ty != v.type:
            raise p.error(f"type {ty} does not match the type of '{tok[1]}' ({v.type})", ty_tok)
        if tok is st:
            p.expect("to", "between the copy types")
    return p.insert(OpaqueOp("memref.copy", [src, dst], [], loc=loc))


def _symbol(p: OpParser) -> str:
    return p.expect_kind("at", "a symbol name ('@name')")[1]


def _memref_result_type(p: OpParser, op: str) -> MemRefType:
    t = p.tok
    ty: Type = p.parse_type()
    if not isinstance(ty, MemRefType):
        raise p.error(f"{op} must have a memref type, found {ty}", t)
    return ty


def parse_get_global(p: OpParser, loc: Location) -> Operation:
    name = _symbol(p)
    p.expect(":", "before the memref type")
    ty = _memref_result_type(p, "memref.get_global")
    return p.insert(OpaqueOp("memref.get_global", [], [ty], prop_text=f"<{{name = {name}}}>",
                             loc=loc))


def tensor_of(t: MemRefType) -> str:
    return "tensor<" + "".join(f"{'?' if d is None else d}x" for d in t.shape) + f"{t.element}>"


def parse_global(p: OpParser, loc: Location) -> Operation:
    """`memref.global "private" constant @c : memref<4xi32> = dense<...> {alignment = 64 : i64}`
    kept as its properties (the generic form mlir-opt prints)."""
    props: dict[str, str] = {}
    if p.kind() == "str":
        props["sym_visibility"] = p.advance()[1]
    if p.accept("constant"):
        props["constant"] = ""
    props["sym_name"] = '"' + _symbol(p)[1:].strip('"') + '"'
    p.expect(":", "before the global's type")
    ty = _memref_result_type(p, "memref.global")
    props["type"] = str(ty)
    if p.accept("="):
        if p.accept("uninitialized"):
            props["initial_value"] = "unit"
        else:
            start = p.expect("dense", "(the initial value: 'dense<...>' or 'uninitialized')")[2]
            p.skip_balanced("<", ">")
            props["initial_value"] = p.src.text[start:p.toks[p.i - 1][2] + 1] + " : " + tensor_of(ty)
    if p.accept("alignment"):  # the newer upstream spelling
        p.expect("=", "after 'alignment'")
        props["alignment"] = f"{p.expect_int('an alignment')} : i64"
    if p.at("{"):
        start = p.tok[2]
        p.skip_attr_dict()
        body = p.src.text[start + 1:p.toks[p.i - 1][2]].strip()
        if body:
            key = body.split("=")[0].strip()
            props[key] = body[len(key):].lstrip(" =")
    text = ", ".join(k if not v else f"{k} = {v}" for k, v in sorted(props.items()))
    return p.insert(OpaqueOp("memref.global", [], [], prop_text=f"<{{{text}}}>", loc=loc))


def parse_subview(p: OpParser, loc: Location) -> Operation:
    """`memref.subview %A[4, 2] [8, 8] [1, 2] : memref<16x16xf32> to memref<8x8xf32,
    strided<[16, 2], offset: 66>>` with static offsets, sizes and strides, kept as the
    generic op mlir-opt prints (the front door folds it into its users' subscripts)."""
    t = p.tok
    src = p.parse_operand()
    lists = []
    for what in ("offsets", "sizes", "strides"):
        p.expect("[", f"to open the subview's {what}")
        vals: list[int] = []
        while not p.at("]"):
            if p.kind() == "pct":
                raise p.error(f"memref.subview with dynamic {what} is not supported (static "
                              "offsets, sizes and strides only)")
            vals.append(p.expect_int(f"a static subview {what[:-1]}"))
            if not p.accept(","):
                break
        p.expect("]", f"to close the subview's {what}")
        lists.append(vals)
    p.expect(":", "before the subview's source type")
    st = p.tok
    src_ty = p.parse_type()
    if src_ty != src.type:
        raise p.error(f"type {src_ty} does not match the type of '{t[1]}' ({src.type})", st)
    p.expect("to", "between the subview's types")
    res_ty = _memref_result_type(p, "memref.subview")
    assert isinstance(src_ty, MemRefType)
    if any(len(x) != src_ty.rank for x in lists):
        raise p.error(f"memref.subview needs {src_ty.rank} offsets, sizes and strides for "
                      f"{src_ty}, found {', '.join(str(len(x)) for x in lists)}", t)
    offsets, sizes, strides = lists
    props = (f"<{{operandSegmentSizes = array<i32: 1, 0, 0, 0>, "
             f"static_offsets = array<i64: {', '.join(map(str, offsets))}>, "
             f"static_sizes = array<i64: {', '.join(map(str, sizes))}>, "
             f"static_strides = array<i64: {', '.join(map(str, strides))}>}}>")
    return p.insert(OpaqueOp("memref.subview", [src], [res_ty], prop_text=props, loc=loc))


MODULE_OPS = frozenset({"memref.global"})
OPAQUE = frozenset({"memref.load", "memref.store", "memref.copy", "memref.get_global",
                    "memref.global", "memref.subview"})

OPS: dict[str, OpParseFn] = {
    "memref.load": parse_memref_load,
    "memref.store": parse_memref_store,
    "memref.copy": parse_memref_copy,
    "memref.get_global": parse_get_global,
    "memref.global": parse_global,
    "memref.dim": parse_dim,
    "memref.alloc": lambda p, loc: parse_alloc(p, AllocOp, loc),
    "memref.alloca": lambda p, loc: parse_alloc(p, AllocaOp, loc),
    "memref.dealloc": parse_dealloc,
    "memref.subview": parse_subview,
}
