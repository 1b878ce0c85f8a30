"""Imports every pass module so each registers itself. Add one line per new pass file."""

import importlib
import importlib.util

for _mod in (
    "compiler.transforms.loop_tile",
    "compiler.transforms.data_copy_generate",
    "compiler.transforms.pipeline_data_transfer",
    "compiler.transforms.outline_kernels",
    "compiler.transforms.lower_to_host",
):
    # Pass files land one issue at a time; one not written yet is not registered.
    if importlib.util.find_spec(_mod) is not None:
        importlib.import_module(_mod)
