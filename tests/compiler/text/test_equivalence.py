"""module_diff: finds real differences, ignores names, and with semantic_maps compares maps by
value (the form upstream MLIR's simplifier may choose)."""

from __future__ import annotations

from compiler.text import module_diff, parse_module

BASE = """
#map = affine_map<(d0) -> ({bound})>
func.func @f(%A: memref<64xf32>, %n: index) {{
  affine.for %i = 0 to #map(%n) {{
    %v = affine.load %A[{index}] : memref<64xf32>
    affine.store %v, %A[%i] : memref<64xf32>
  }}
  return
}}
"""


def mod(bound: str = "d0", index: str = "%i") -> object:
    return parse_module(BASE.format(bound=bound, index=index))


def test_identical_modules_with_other_names_are_equal() -> None:
    a = mod()
    b = parse_module(BASE.format(bound="d0", index="%i").replace("%i", "%k").replace("%v", "%0"))
    assert module_diff(a, b) is None


def test_real_differences_are_reported() -> None:
    assert "access #0 differs" in module_diff(mod(index="%i floordiv 2"), mod(index="%i floordiv 3"))
    assert "attribute 'upper_map' differs" in module_diff(mod(bound="d0"), mod(bound="d0 + 1"))
    swapped = parse_module(BASE.format(bound="d0", index="%i").replace(
        "affine.store %v, %A[%i]", "affine.store %v, %A[%i + 1]"))
    assert "affine.store: access #0 differs" in module_diff(mod(), swapped)


def test_semantic_maps_accept_equal_values_in_other_forms() -> None:
    a = mod(bound="(d0 + 2) floordiv 2", index="(symbol(%n) + 4) ceildiv 4")
    b = mod(bound="d0 floordiv 2 + 1", index="symbol(%n) ceildiv 4 + 1")
    assert module_diff(a, b) is not None  # not the same expressions
    assert module_diff(a, b, semantic_maps=True) is None
    c = mod(bound="d0 floordiv 2 + 2", index="symbol(%n) ceildiv 4 + 1")
    assert "differs in value" in module_diff(a, c, semantic_maps=True)
    d = mod(bound="d0 floordiv 2 + 1", index="symbol(%n) floordiv 4 + 1")
    assert "access #0 differs" in module_diff(a, d, semantic_maps=True)
