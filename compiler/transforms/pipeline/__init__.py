"""Helpers of `affine-pipeline-data-transfer`: DMA pairs, multi-buffering, shifts, the skew,
cross-tile prefetch and flattening of tile loops."""
