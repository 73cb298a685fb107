"""Write triplets into a matrix under one of Warp's topology policies: the step every operation that
produces a matrix ends with (triplet construction, copies, transposes, sums, products).

  compact  the matrix gets the triplets' own compact topology (new offsets, columns, values);
  padded   the compact rows are written into the matrix's reserved row capacity (row_counts says
           how many slots are active; a row past its capacity is left empty and the status says so);
  masked   the matrix keeps its topology; blocks it lacks are dropped, blocks it has and the
           triplets miss become zero.
Values are summed per block by a recorded, differentiable gather (values.gather_kernel)."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ..runtime import recording
from ._common import capturing, flat2d, live, unsigned
from .topology import Compacted, compact_triplets, masked_layout, padded_layout
from .values import gather_kernel, nonzero_kernel

TOPOLOGIES = ("compact", "padded", "masked")


def check_topology(topology, masked: bool = False, default: str = "compact") -> str:
    if masked:
        if topology not in (None, "masked"):
            raise ValueError(f"masked=True conflicts with topology={topology!r}")
        return "masked"
    if topology is None:
        return default
    if topology not in TOPOLOGIES:
        raise ValueError(f"topology must be one of {TOPOLOGIES} or None, got {topology!r}")
    return topology


def _overlaps(a: array | None, b: array) -> bool:
    if a is None or a.size == 0 or b.size == 0:
        return False
    a_end = a.ptr + a.size * T.type_size_in_bytes(a.dtype)
    b_end = b.ptr + b.size * T.type_size_in_bytes(b.dtype)
    return a.ptr < b_end and b.ptr < a_end


def nonzero_flags(values2d: array) -> array:
    flags = wp.empty(values2d.shape[0], dtype=int, device=values2d.device)
    wp.launch(nonzero_kernel(values2d.dtype), values2d.shape[0], inputs=[values2d, values2d.shape[1], flags],
              device=values2d.device, record_tape=False)
    return flags


def gather(comp: Compacted, values2d: array, out2d: array, dest_of: array | None = None) -> None:
    """out2d[dest_of[b]] = sum of the values of block b's triplets (dest_of None: out2d[b])."""
    if values2d is None or out2d is None or comp.n == 0:
        return
    dummy = comp.offsets[:1]
    source, order = comp.value_source(values2d)
    wp.launch(gather_kernel(out2d.dtype), (comp.n, out2d.shape[1]),
              inputs=[source, unsigned(order), comp.block_ends, comp.offsets, comp.nrow,
                      dummy if dest_of is None else dest_of, int(dest_of is not None), out2d], device=out2d.device)


def assemble(dest, rows: array, cols: array, values2d: array | None, n: int, *, topology: str = "compact",
             count: array | None = None, prune: bool = False, mapping=None) -> Compacted:
    """Set dest (nrow, ncol and block type already set) from triplets [0, n) of rows/cols/values2d
    (a (n, block_size) array of dest's scalar type, or None for zero values)."""
    device = dest.device
    if topology == "padded" and not dest.padded:
        raise ValueError("topology='padded' needs a padded destination: allocate it with bsr_zeros(..., "
                         "row_capacity=...)")
    keep = nonzero_flags(values2d) if prune and values2d is not None and n else None
    storage = {}
    if mapping is not None:
        storage = mapping._storage_for(n, device)
    # gradients flow from the sums back to values2d only through the direct gather; with none to
    # keep, the blocks are bucketed by row with their keys instead (the sums then read them in order)
    bucket = values2d is not None and not (values2d.requires_grad and recording.tape is not None)
    # a compact result goes into the matrix's own offsets array when it is large enough (Warp keeps
    # it too: a capture records the writes into it instead of swapping arrays at record time)
    own = topology == "compact" and dest.offsets.shape[0] >= dest.nrow + 1
    comp = compact_triplets(dest.nrow, dest.ncol, rows, cols, n, device, count=count, keep=keep,
                            values2d=values2d if bucket else None,
                            offsets=dest.offsets[: dest.nrow + 1] if own else None, **storage)
    if capturing() is not None:
        dest._captured_topology = capturing()  # nnz_sync in this capture cannot see it
    bs = dest.block_size
    if topology == "compact":
        requires_grad = dest.values.requires_grad or (values2d is not None and values2d.requires_grad)
        values = wp.zeros(n, dtype=dest.dtype, device=device, requires_grad=requires_grad)
        if not own:
            dest.offsets = comp.offsets
        dest.columns = comp.columns
        dest.row_counts = None
        dest.values = values
        dest.nnz = n
        gather(comp, values2d, flat2d(values, n, bs, dest.scalar_type))
        dest._restart_nnz_transfer()
        return comp
    if values2d is not None and _overlaps(values2d, dest.values):
        # the sources are the destination's own values: write into new storage, so that neither the
        # sums nor their gradients read what they overwrite (Warp also promises no buffer identity)
        dest.values = wp.zeros(dest.values.shape[0], dtype=dest.dtype, device=device,
                               requires_grad=dest.values.requires_grad)
    capacity = dest.values.shape[0]
    if topology == "padded":
        if capturing() is not None:
            # the replay must find the capacity layout as it is now, whatever happens to it meanwhile
            with live():
                layout = wp.clone(dest.offsets)
            wp.copy(dest.offsets, layout)
        dest_of = padded_layout(comp, dest)
    else:
        dest_of = masked_layout(comp, dest)
        if capacity:
            dest.values.zero_()  # blocks of dest that no triplet reaches are zero
    gather(comp, values2d, flat2d(dest.values, capacity, bs, dest.scalar_type), dest_of)
    dest._restart_nnz_transfer()
    return comp
