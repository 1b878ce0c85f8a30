"""The MLIR parser in layers, one job each, from tokens up to operations:

    cursor.TokenCursor        tokens, expectations, errors (file:line:col)
    types.TypeParser          scalar, memref and function types
    values.ValueParser        SSA names: scopes, uses, definitions, typed operands
    affine.AffineParser       affine maps, integer sets and expressions, #map/#set aliases
    index_lists.IndexListParser   `%A[%i + 1, symbol(%n)]` -> (map, operands); memref accesses
    locations.LocationParser  `loc(...)` trailers and #loc aliases
    structure.OpParser        module, func.func, regions, the generic op line (dispatch table)

and the op parsers of each dialect as functions of an `OpParser`: affine_ops, memref_ops,
arith_ops (arith and math), func_ops. `compiler.text.parser` composes them.
"""
