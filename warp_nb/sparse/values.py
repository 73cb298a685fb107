"""Value kernels over blocks seen as rows of scalars ((blocks, block_size) arrays, _common.flat2d):
summing the triplets of each block, scaling / transposing / casting blocks, flagging zero blocks,
cutting blocks into other block shapes, and block products for bsr_mm. One kernel per scalar type
(or pair of them) serves every block shape; block dimensions are launch arguments.

These kernels are differentiable where values flow through them (gather, transform, reblock,
product), so a Tape records them and gradients reach the user's value arrays."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ._common import kernel_cache


@kernel_cache
def gather_kernel(scalar):
    def gather(src: wp.array2d(dtype=scalar), triplet_indices: wp.array(dtype=wp.uint32),
               block_ends: wp.array(dtype=int), offsets: wp.array(dtype=int), nrow: int, dest_of: wp.array(dtype=int),
               use_dest: int, out: wp.array2d(dtype=scalar)):
        b, k = wp.tid()
        if b < offsets[nrow]:
            start = 0
            if b > 0:
                start = block_ends[b - 1]
            end = block_ends[b]
            d = b
            if use_dest != 0:
                d = dest_of[b]
            if d >= 0:
                # start from the first value, not from zero: a single -0.0 stays -0.0, as in Warp
                v = src[triplet_indices[start], k]
                for j in range(start + 1, end):
                    v = v + src[triplet_indices[j], k]
                out[d, k] = v

    return wp.kernel(gather, key=f"bsr_gather_{T.type_name(scalar)}")


@kernel_cache
def transform_kernel(src_scalar, dst_scalar):
    def transform(src: wp.array2d(dtype=src_scalar), rows: int, cols: int, transpose: int, alpha: dst_scalar,
                  out: wp.array2d(dtype=dst_scalar), out_offset: int):
        t, k = wp.tid()
        sk = k
        if transpose != 0:
            # out block is rows x cols; the source block is cols x rows, read at (j, i)
            i = k // cols
            j = k - i * cols
            sk = j * rows + i
        out[out_offset + t, k] = dst_scalar(src[t, sk]) * alpha

    return wp.kernel(transform, key=f"bsr_transform_{T.type_name(src_scalar)}_{T.type_name(dst_scalar)}")


@kernel_cache
def nonzero_kernel(scalar):
    def nonzero(src: wp.array2d(dtype=scalar), block_size: int, flags: wp.array(dtype=int)):
        t = wp.tid()
        flag = 0
        for k in range(block_size):
            if src[t, k] != scalar(0.0):
                flag = 1
        flags[t] = flag

    return wp.kernel(nonzero, key=f"bsr_nonzero_{T.type_name(scalar)}", enable_backward=False)


@kernel_cache
def reblock_kernel(src_scalar, dst_scalar):
    def reblock(src: wp.array2d(dtype=src_scalar), src_rows: wp.array(dtype=int), src_cols: wp.array(dtype=int),
                sr: int, sc: int, dr: int, dc: int, parts_c: int, parts: int,
                rows: wp.array(dtype=int), cols: wp.array(dtype=int), out: wp.array2d(dtype=dst_scalar)):
        t, k = wp.tid()
        b = t // parts
        p = t - b * parts
        hr = wp.min(sr, dr)
        hc = wp.min(sc, dc)
        pi = p // parts_c
        pj = p - pi * parts_c
        r = src_rows[b]
        # the part's first scalar row and column in the whole matrix, and where it lands
        gr = r * sr + pi * hr
        gc = src_cols[b] * sc + pj * hc
        orow = gr - (gr // dr) * dr
        ocol = gc - (gc // dc) * dc
        if k == 0:
            if r < 0:
                rows[t] = -1
            else:
                rows[t] = gr // dr
            cols[t] = gc // dc
        i = k // dc
        j = k - i * dc
        li = i - orow
        lj = j - ocol
        v = dst_scalar(0.0)
        if li >= 0 and li < hr and lj >= 0 and lj < hc:
            v = dst_scalar(src[b, (pi * hr + li) * sc + pj * hc + lj])
        out[t, k] = v

    return wp.kernel(reblock, key=f"bsr_reblock_{T.type_name(src_scalar)}_{T.type_name(dst_scalar)}")


@kernel_cache
def product_kernel(scalar):
    def product(x: wp.array2d(dtype=scalar), y: wp.array2d(dtype=scalar), x_blocks: wp.array(dtype=int),
                y_blocks: wp.array(dtype=int), rows: int, inner: int, cols: int, alpha: scalar,
                out: wp.array2d(dtype=scalar), out_offset: int):
        t, k = wp.tid()
        i = k // cols
        j = k - i * cols
        xb = x_blocks[t]
        yb = y_blocks[t]
        s = scalar(0.0)
        for m in range(inner):
            s = s + x[xb, i * inner + m] * y[yb, m * cols + j]
        out[out_offset + t, k] = alpha * s

    return wp.kernel(product, key=f"bsr_product_{T.type_name(scalar)}")


def launch_transform(src2d, out2d, out_offset: int, block_shape: tuple, alpha, transpose: bool = False) -> None:
    """out2d[out_offset + t] = alpha * src2d[t] (transposed: src blocks are block_shape reversed)."""
    if src2d is None or src2d.shape[0] == 0:
        return
    dst = out2d.dtype
    kernel = transform_kernel(src2d.dtype, dst)
    wp.launch(kernel, (src2d.shape[0], out2d.shape[1]),
              inputs=[src2d, block_shape[0], block_shape[1], int(transpose), dst(alpha), out2d, out_offset],
              device=out2d.device)
