"""Passes with mlir-opt's names (one a file: affine_loop_tile, affine_data_copy_generate,
affine_pipeline_data_transfer, outline_kernels), their helpers in subpackages (tiling,
data_copy, pipeline, rewrite), the registry and the pass manager."""

from compiler.transforms.pass_base import Pass, format_options, parse_options
from compiler.transforms.registry import PASSES, PassManager, create_pass, is_pass_flag, parse_pass_flag

__all__ = ["PASSES", "Pass", "PassManager", "create_pass", "format_options", "is_pass_flag",
           "parse_options", "parse_pass_flag"]
