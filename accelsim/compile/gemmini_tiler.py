"""Gemmini's tiler as a tiling policy (`--tile-policy gemmini`, a DSE spec's `tile_policy`):
the tile sizes gemmini-rocc-tests' `include/gemmini.h` chooses, and its tile loop order.

    tiles, order = gemmini_tiles(layer)                 # Gemmini's default 256 KiB / 64 KiB
    tiles, order = gemmini_tiles(layer, spad_rows=9216, acc_rows=512)

A matmul (Q = R = S = 1, N = 1) takes `tiled_matmul_auto` (gemmini.h:1231, the weight-stationary
double-buffered branch): tile_I / tile_J start at sqrt of the accumulator's half in DIM x DIM
blocks, tile_K at what is left of a quarter of the scratchpad, then each grows by one block
(J, then I, then K) while the tile fits (`tiled_matmul_total_spad_rows` = (I K + K J) DIM,
`tiled_matmul_total_acc_rows` = I J DIM, gemmini.h:1220). Its tile loops run i, j, k
(`tiled_matmul_outer`, gemmini.h:692): P, K, C in Timeloop's names.

A convolution takes `tiled_conv_auto` (gemmini.h:2834 -> `tiled_conv_stride_auto`): every
argument (batch, output rows, output columns, output channels, kernel rows, kernel columns,
input channels) starts at its full size; while the tile does not fit half the scratchpad and
half the accumulator, the largest argument shrinks (channels to the DIM multiple below, the
others by one; output columns are kept while at most DIM and rows remain); then output
columns grow while they fit, then every argument grows by one while it fits
(`tiled_conv_total_spad_rows`, gemmini.h:1791; this port takes `downsample` as false and no
pooling, as the development rows' auto-tiled runs show: their recorded tiles are reproduced
on 148 of 148 rows). Its tile loops run batch, output row, output column, output channel,
kernel row, kernel column, input channel (`tiled_conv`, gemmini.h:2320): N P Q K R S C.

Defaults are gemmini-rocc-tests' `include/gemmini_params.h`: DIM 16, BANK_NUM 4 x BANK_ROWS
4096 scratchpad rows, ACC_ROWS 1024.
"""

from __future__ import annotations

import math

from workloads.mapped import Layer

DIM = 16             # gemmini_params.h: #define DIM 16
SPAD_ROWS = 4 * 4096  # gemmini_params.h: BANK_NUM 4, BANK_ROWS 4096
ACC_ROWS = 1024       # gemmini_params.h: ACC_ROWS 1024
MATMUL_ORDER = "PKC"  # tiled_matmul_outer: i0, j0, k0
CONV_ORDER = "NPQKRSC"  # tiled_conv: b, porow, pocol, poch, krow, kcol, kch


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def conv_rows(acc: bool, stride: int, args: list[int], dim: int = DIM) -> int:
    """`tiled_conv_total_spad_rows` (gemmini.h:1791) without pooling, dilation or downsample."""
    batches, orows, ocols, ochs, krows, kcols, kchs = args
    irows = orows * stride + krows - 1
    icols = ocols * stride + kcols - 1
    a_rows = _cdiv(kchs, dim) * batches * irows * icols
    b_rows = _cdiv(ochs, dim) * kcols * krows * kchs
    c_rows = _cdiv(ochs, dim) * batches * orows * ocols
    return c_rows if acc else a_rows + b_rows


def tiled_conv_auto(layer: Layer, spad_rows: int = SPAD_ROWS, acc_rows: int = ACC_ROWS,
                    dim: int = DIM) -> dict[str, int]:
    """The tile of `tiled_conv_auto` (double-buffered: half of each memory)."""
    d = layer.dims
    if d["R"] != d["S"]:
        raise ValueError("tiled_conv_auto: Gemmini's convolutions have square kernels (R = S)")
    args = [d["N"], d["P"], d["Q"], d["K"], d["R"], d["S"], d["C"]]
    top = list(args)
    max_spad, max_acc = spad_rows // 2, acc_rows // 2
    orows_i, ocols_i, och_i, kch_i = 1, 2, 3, 6

    def fits(a: list[int]) -> bool:
        return (conv_rows(False, layer.stride, a, dim) <= max_spad
                and conv_rows(True, layer.stride, a, dim) <= max_acc)

    while not fits(args):
        max_val, max_idx = -1, -1
        for i, v in enumerate(args):
            # we avoid reducing ocols when possible to keep the spatial array fully utilized
            if not (i == ocols_i and v <= dim and args[orows_i] > 1) and v > max_val:
                max_val, max_idx = v, i
        if max_idx in (och_i, kch_i):
            v = args[max_idx]
            v = (v // dim) * dim if v % dim else v - dim
            args[max_idx] = v or 1
        else:
            if args[max_idx] <= 1:
                raise ValueError(f"tiled_conv_auto: no tile of {layer.dims} fits {spad_rows} "
                                 f"scratchpad and {acc_rows} accumulator rows")
            args[max_idx] -= 1
    while True:  # output columns first
        cand = list(args)
        cand[ocols_i] += 1
        if cand[ocols_i] > top[ocols_i] or not fits(cand):
            break
        args = cand
    grown = True
    while grown:
        grown = False
        for i in range(len(args)):
            cand = list(args)
            cand[i] += 1
            if cand[i] <= top[i] and fits(cand):
                args, grown = cand, True
    return dict(zip("NPQKRSC", args, strict=True))


def tiled_matmul_auto(layer: Layer, spad_rows: int = SPAD_ROWS, acc_rows: int = ACC_ROWS,
                      dim: int = DIM) -> dict[str, int]:
    """The tile of `tiled_matmul_auto`'s weight-stationary (double-buffered) branch, in
    Timeloop's names: P = tile_I * DIM, K = tile_J * DIM, C = tile_K * DIM."""
    d = layer.dims
    i_blocks, j_blocks, k_blocks = (_cdiv(d[x], dim) for x in "PKC")
    db_mats_in_partition = (spad_rows // 2 // 2) // dim
    db_mats_in_acc = (acc_rows // 2) // dim
    db_max_tile_i_j = math.isqrt(db_mats_in_acc)
    db_max_tile_k = db_mats_in_partition // db_max_tile_i_j
    max_spad, max_acc = spad_rows // 2, acc_rows // 2
    ti, tj, tk = min(i_blocks, db_max_tile_i_j), min(j_blocks, db_max_tile_i_j), min(k_blocks, db_max_tile_k)

    def spad(i: int, j: int, k: int) -> int:
        return (i * k + k * j) * dim

    while True:
        grown = False
        if spad(ti, tj + 1, tk) <= max_spad and ti * (tj + 1) * dim <= max_acc and tj + 1 <= j_blocks:
            tj, grown = tj + 1, True
        if spad(ti + 1, tj, tk) <= max_spad and (ti + 1) * tj * dim <= max_acc and ti + 1 <= i_blocks:
            ti, grown = ti + 1, True
        if spad(ti, tj, tk + 1) <= max_spad and tk + 1 <= k_blocks:
            tk, grown = tk + 1, True
        if not grown:
            break
    return {"N": 1, "P": min(ti * dim, d["P"]), "Q": 1, "K": min(tj * dim, d["K"]),
            "C": min(tk * dim, d["C"]), "R": 1, "S": 1}


def gemmini_order(layer: Layer) -> str:
    """The tile loop order of Gemmini's software for `layer` (outermost first)."""
    return MATMUL_ORDER if layer.is_matmul and layer.dims["N"] == 1 else CONV_ORDER


def gemmini_tiles(layer: Layer, spad_rows: int = SPAD_ROWS, acc_rows: int = ACC_ROWS,
                  dim: int = DIM) -> tuple[dict[str, int], str]:
    """(tile per dimension, tile loop order) as Gemmini's software would run `layer`."""
    if layer.is_matmul and layer.dims["N"] == 1:
        return tiled_matmul_auto(layer, spad_rows, acc_rows, dim), MATMUL_ORDER
    return tiled_conv_auto(layer, spad_rows, acc_rows, dim), CONV_ORDER


def auto_tiling_text(layer: Layer, tiles: dict[str, int]) -> str:
    """The study's `dse.auto_tiling` spelling of a tile: R_S_Q_P_C_K_N for a convolution, and
    1_1_I_1_K_J_1 (tile_I, tile_K, tile_J in elements) for a matmul."""
    t = tiles
    if layer.is_matmul and layer.dims["N"] == 1:
        blocks = {d: _cdiv(t[d], DIM) * DIM for d in "PKC"}
        return "_".join(map(str, (1, 1, blocks["P"], 1, blocks["C"], blocks["K"], 1)))
    return "_".join(map(str, (t["R"], t["S"], t["Q"], t["P"], t["C"], t["K"], t["N"])))
