"""The pass registry: one explicit table, each pass in the file named after its mlir-opt flag,
class names `<Flag>Pass`, and the command-line helpers."""

import pathlib

import pytest

import compiler.transforms as transforms
from compiler.diagnostics import OptionError
from compiler.transforms.registry import PASSES, PassManager, create_pass, is_pass_flag, parse_pass_flag

TRANSFORMS = pathlib.Path(transforms.__file__).parent


def test_every_pass_lives_in_the_file_named_after_its_flag() -> None:
    assert sorted(PASSES) == ["affine-cluster-distribute", "affine-copy-forward",
                              "affine-copy-stream", "affine-data-copy-generate", "affine-dma-forward",
                              "affine-dma-start-hoist",
                              "affine-dma-wait-sink", "affine-loop-interchange", "affine-loop-tile",
                              "affine-pipeline-data-transfer",
                              "affine-producer-consumer-fusion",
                              "affine-scalar-replace", "affine-sibling-fusion",
                              "convert-linalg-to-affine-loops", "fold-memref-alias-ops",
                              "outline-kernels",
                              "test-affine-data-copy", "test-affine-parametric-tile"]
    for flag, cls in PASSES.items():
        assert cls.name == flag
        module = flag.replace("-", "_")
        assert cls.__module__ == f"compiler.transforms.{module}"
        assert cls.__name__ == "".join(w.capitalize() for w in flag.split("-")) + "Pass"


def test_pass_files_are_exactly_the_registered_passes() -> None:
    """A top-level module of compiler/transforms is a pass (registered) or the pass machinery;
    helpers live in the subpackages."""
    machinery = {"__init__", "pass_base", "registry"}
    files = {p.stem for p in TRANSFORMS.glob("*.py")} - machinery
    assert files == {flag.replace("-", "_") for flag in PASSES}


def test_flags_and_unknown_passes() -> None:
    p = parse_pass_flag('--affine-loop-tile="tile-sizes=8,4"')
    assert p.name == "affine-loop-tile" and p.options.tile_sizes == (8, 4)  # type: ignore[attr-defined]
    assert is_pass_flag("--outline-kernels") and is_pass_flag("--affine-loop-tile=tile-size=4")
    assert not is_pass_flag("--lower-to-host") and not is_pass_flag("affine-loop-tile")
    with pytest.raises(OptionError, match=r"unknown pass '--lower-to-host' \(known passes: "
                                          r"affine-cluster-distribute, affine-copy-forward, "
                                          r"affine-copy-stream, affine-data-copy-generate, "
                                          r"affine-dma-forward, affine-dma-start-hoist, "
                                          r"affine-dma-wait-sink, affine-loop-interchange, affine-loop-tile, "
                                          r"affine-pipeline-data-transfer, affine-producer-consumer-fusion, "
                                          r"affine-scalar-replace, "
                                          r"affine-sibling-fusion, convert-linalg-to-affine-loops, "
                                          r"fold-memref-alias-ops, outline-kernels, test-affine-data-copy, "
                                          r"test-affine-parametric-tile\)"):
        create_pass("lower-to-host")
    pm = PassManager.from_flags(["--affine-loop-tile=tile-size=4", "--outline-kernels"])
    assert [p.name for p in pm.passes] == ["affine-loop-tile", "outline-kernels"]
