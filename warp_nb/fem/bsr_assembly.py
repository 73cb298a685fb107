"""How `fem.integrate` and `fem.interpolate` write a `warp.sparse` matrix: the `bsr_options` Warp 1.19
reads (`construction`, `capacity`, and the sparse options passed through to bsr_set_from_triplets:
`topology`, `prune_numerical_zeros`), and mapped assembly.

Mapped assembly (construction "mapped" or "mapped_atomic", fem.integrate's matrices only): a call
with capacity="auto" assembles from the kernel's triplets as usual and keeps the triplet -> block
map that `bsr_set_from_triplets(build_mapping=...)` records (a `warp.sparse.BsrTripletMap`), in
`triplet_maps`, keyed by the output matrix. A later call with capacity="reuse" on that matrix skips
the topology: "mapped" sums the kernel's new triplet values into the blocks through the map (the
atomic-free gather, in the order the first assembly summed them), "mapped_atomic" has the kernel add
each value straight into its block (no triplet storage; the order of float atomics is the launch's).
The map is rebuilt in place by the next capacity="auto" call; any other FEM write to the matrix
drops it (`forget`). Writes by other code cannot be seen: the user's promise, as in Warp.

This module knows nothing of integrands or kernels' text beyond the store it provides
(`ATOMIC_STORE`); the kernels are integrate.py's."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import warp_nb as wp

from .. import types as T
from ..sparse._common import flat2d, kernel_cache

CONSTRUCTIONS = ("auto", "triplets", "row_compress", "mapped", "mapped_atomic")
CAPACITIES = ("auto", "reuse")

#: output matrix -> the BsrTripletMap of its last mapped assembly (dropped with the matrix)
triplet_maps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class BsrPlan:
    """What the bsr_options ask for: the construction, the capacity policy and the options passed to
    warp.sparse (`sparse`: topology, prune_numerical_zeros)."""

    construction: str = "triplets"
    capacity: str = "auto"
    sparse: dict = field(default_factory=dict)

    @property
    def mapped(self) -> bool:
        return self.construction in ("mapped", "mapped_atomic")

    @property
    def fused_atomic(self) -> bool:
        """The kernel adds into the blocks itself (mapped_atomic, reusing a map)."""
        return self.construction == "mapped_atomic" and self.capacity == "reuse"

    @property
    def prune(self) -> bool:
        return bool(self.sparse.get("prune_numerical_zeros", True))

    @property
    def topology(self):
        return self.sparse.get("topology")


def read_bsr_options(bsr_options, output, add: bool, caller: str, mapped_allowed: bool = True,
                     prune_default: bool = True) -> BsrPlan:
    """The plan of `bsr_options` for a call of `caller` ("fem.integrate()", "fem.interpolate()")
    writing the matrix `output` (None: a new one). Refused combinations raise here, before any kernel
    runs, with Warp's exception types."""
    options = dict(bsr_options or {})
    construction = options.pop("construction", None) or "triplets"
    capacity = options.pop("capacity", None) or "auto"
    if construction not in CONSTRUCTIONS:
        raise ValueError(f"{caller}: bsr_options['construction'] must be one of "
                         f"{', '.join(repr(c) for c in CONSTRUCTIONS)}, got {construction!r}")
    if capacity not in CAPACITIES:
        raise ValueError(f"{caller}: bsr_options['capacity'] must be 'auto' (grow the storage as needed) or 'reuse' "
                         f"(keep the output's storage), got {capacity!r}")
    mapped = construction in ("mapped", "mapped_atomic")
    if mapped:
        if not mapped_allowed:
            raise NotImplementedError(f"{caller}: bsr_options['construction']={construction!r} (mapped assembly) is "
                                      "only available for the matrices of fem.integrate() (bilinear forms)")
        options.setdefault("prune_numerical_zeros", False)
        if options["prune_numerical_zeros"]:
            raise ValueError("Mapped FEM assembly requires bsr_options['prune_numerical_zeros']=False: the triplet -> "
                             "block map must not depend on the values it maps")
        if options.get("topology", "compact") not in (None, "compact"):
            raise ValueError(f"Mapped FEM assembly requires bsr_options['topology']='compact' (its map addresses "
                             f"compact blocks), got {options['topology']!r}")
        if add:
            raise NotImplementedError("Mapped FEM assembly does not support add=True: it sets the output's values "
                                      "(assemble into another matrix and add with warp.sparse.bsr_axpy)")
    else:
        options.setdefault("prune_numerical_zeros", prune_default)
    if capacity == "reuse":
        if add:
            raise RuntimeError(f"{caller} does not support bsr_options['capacity']='reuse' with add=True")
        if output is None:
            raise RuntimeError(f"{caller} with bsr_options['capacity']='reuse' requires an output matrix (the one "
                               "whose storage is reused)")
        if mapped and output not in triplet_maps:
            raise RuntimeError("Mapped FEM assembly with bsr_options['capacity']='reuse' requires output from an "
                               "earlier mapped assembly (call once with capacity='auto' to build its triplet map)")
    return BsrPlan(construction, capacity, options)


def forget(matrix) -> None:
    """`matrix` is being written by a non-mapped FEM assembly: its map no longer describes it."""
    if matrix is not None:
        triplet_maps.pop(matrix, None)


def check_shape(output, shape, caller: str) -> None:
    if (output.nrow, output.ncol) != tuple(shape):
        raise ValueError(f"{caller}: `output` must have {shape[0]} x {shape[1]} blocks, got "
                         f"{output.nrow} x {output.ncol}")


def assemble_mapped(rows, cols, vals, shape, block_t, output, plan: BsrPlan):
    """The mapped assembly of the triplets (rows, cols, vals): a first (capacity="auto") call builds
    the topology and the map; a reuse sums `vals` through the map. (A fused-atomic reuse has already
    written the values: see `ATOMIC_STORE`; nothing is left to do.)"""
    from ..sparse import bsr_set_from_mapped_values, bsr_set_from_triplets, bsr_zeros
    if output is not None:
        check_shape(output, shape, "fem.integrate")
    if plan.capacity == "reuse":
        if not plan.fused_atomic:
            bsr_set_from_mapped_values(output, triplet_maps[output], vals, reduction="gather")
        return output
    if output is None:
        output = bsr_zeros(*shape, block_type=block_t, device=vals.device)
    # the matrix's earlier map is rebuilt in its own storage (no allocation while it is large enough)
    mapping = bsr_set_from_triplets(output, rows, cols, vals, prune_numerical_zeros=False,
                                    build_mapping=triplet_maps.get(output, True))
    triplet_maps[output] = mapping
    return output


#: the kernel text that adds triplet `_t`'s value `{value}` into its block (fused mapped_atomic reuse);
#: a triplet the map dropped (outside the matrix: an unused node slot) has block -1
ATOMIC_STORE = ("    _b = _fem_triplet_blocks[_t]\n"
                "    if _b >= 0:\n"
                "        wp.atomic_add(_fem_blocks, _b, {value})\n")
ATOMIC_PARAMS = ["_fem_triplet_blocks: _fem_t_idx", "_fem_blocks: _fem_t_vals"]


def atomic_inputs(output) -> list:
    """The inputs of ATOMIC_PARAMS for a fused reuse into `output`, whose active blocks are zeroed
    first (the slots past them are left as they are)."""
    mapping = triplet_maps[output]
    _zero_active_blocks(output)
    return [mapping._triplet_blocks, output.values]


@kernel_cache
def _zero_active_kernel(scalar):
    def zero_active_blocks(offsets: wp.array(dtype=int), nrow: int, values: wp.array2d(dtype=scalar)):
        b, k = wp.tid()
        if b < offsets[nrow]:
            values[b, k] = scalar(0.0)

    return wp.kernel(zero_active_blocks, key=f"fem_zero_active_blocks_{T.type_name(scalar)}", enable_backward=False)


def _zero_active_blocks(matrix) -> None:
    """values[b] = 0 for the active blocks b < offsets[nrow] (read on the device: nnz is a bound)."""
    n = min(matrix.nnz, matrix.values.shape[0])
    if n == 0:
        return
    values2d = flat2d(matrix.values, matrix.values.shape[0], matrix.block_size, matrix.scalar_type)
    wp.launch(_zero_active_kernel(matrix.scalar_type), (n, matrix.block_size),
              inputs=[matrix.offsets, matrix.nrow, values2d], device=matrix.device)
