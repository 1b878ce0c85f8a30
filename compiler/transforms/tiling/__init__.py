"""Helpers of `affine-loop-tile`: bands and trip counts, automatic tile sizes, the rewrite."""
