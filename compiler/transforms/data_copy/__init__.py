"""Helpers of `affine-data-copy-generate`: buffer boxes, disjoint reference groups, copy
placement, emitting the copies, and the fast-memory measure the capacity options bound."""
