"""A launch's dim -> its bounds: the dim made canonical (1 to 4 non-negative extents), checked
against the coordinates the kernel's wp.tid() reads, packed as the native launch_t, and fitted to
the number of indices the kernel's wp.tid() gives (Warp's rules for a launch of more or fewer
dimensions than that). Also `LaunchBounds`, what `wp.Launch.bounds` shows.

What wp.tid() reads comes from the typed kernel (ir.Function.tid_count, after wp.static and
constant folding removed dead code): the launcher computes it once. Knows nothing about kernels,
arguments or devices."""

from __future__ import annotations

import operator

from ..errors import at_callers_line
from ..runtime.launch_layout import LAUNCH_T

_BOUNDS = LAUNCH_T  # (runtime/launch_layout.py)

#: the largest extent of a dimension wp.tid() reads: its coordinates are int32 (0 .. 2^31 - 1)
TID_EXTENT_LIMIT = 2 ** 31
#: the most threads one dispatch runs, but for `runs_on_cpu_past_int32`: the CPU's loops of a scalar
#: wp.tid() count threads in int32 (a recorded launch may have more, as long as it is not run)
THREAD_LIMIT = 2 ** 31 - 1
_INT64_MAX = 2 ** 63 - 1


class LaunchBounds:
    """The bounds of a recorded launch (Warp's launch_bounds_t): `shape`, the extents wp.tid()'s
    indices run over (one per index, at least one: a launch of fewer dimensions is padded with 1,
    one of more has its trailing extents folded into `coord_mult`), `size` the launch's threads,
    `ndim` the dimensions the launch was given."""

    __slots__ = ("coord_mult", "ndim", "shape", "size")

    def __init__(self, dims: tuple, tid_arity: int):
        keep = max(tid_arity, 1)
        self.shape = tuple(dims[:keep]) + (1,) * (keep - len(dims))
        self.ndim = len(dims)
        self.coord_mult = _product(dims[keep:])
        self.size = _product(dims)

    def __repr__(self) -> str:
        return f"LaunchBounds(shape={self.shape}, coord_mult={self.coord_mult}, size={self.size})"


def canonical_dim(dim) -> tuple:
    """`dim` (an int, or a sequence or array of 1 to 4 ints; numpy integers and objects with
    __index__ too) as a tuple of Python ints, or a clear error naming it."""
    if isinstance(dim, (str, bytes)):
        raise TypeError(f"launch dim must be an int or a tuple of 1 to 4 ints, got {dim!r}")
    try:
        dims = (operator.index(dim),)
    except TypeError:
        try:
            dims = tuple(operator.index(d) for d in dim)
        except TypeError:
            raise TypeError(f"launch dim must be an int or a tuple of 1 to 4 ints, got {dim!r}") from None
    if len(dims) > 4:
        raise ValueError(f"launch dim may have at most 4 dimensions, got {dim!r}")
    if not dims:
        raise ValueError("launch dim must have at least one extent, got ()")
    if any(d < 0 for d in dims):
        raise ValueError(f"launch dim must be non-negative, got {dim!r}")
    if any(d > _INT64_MAX for d in dims):
        raise ValueError(f"launch dim extents must be below 2^63, got {dim!r}")
    return dims


def check_tid_extents(dims: tuple, size: int, tid_reads: int) -> None:
    """Refuse an extent wp.tid() cannot index in a dimension it reads (its first `tid_reads`);
    a launch without threads has no coordinate to overflow."""
    if size == 0:
        return
    for d, n in enumerate(dims[:tid_reads]):
        if n > TID_EXTENT_LIMIT:
            raise ValueError(f"Warp cannot launch a kernel using wp.tid() with extent {n} in dimension {d}: "
                             f"wp.tid() gives int32 coordinates, so each extent it reads is at most 2^31 "
                             f"({TID_EXTENT_LIMIT}); split the launch, or fold this dimension into a later one")


bounds_cache: dict = {}


def launch_bounds(dim, tid_reads: int = 4) -> tuple[bytes, int, int]:
    """(packed launch bounds, number of dimensions, thread count) of `dim`, after the extents the
    kernel's wp.tid() reads (its first `tid_reads` dimensions) are checked. Dims that every kernel
    may use and every target may run are remembered (wp.launch looks them up inline, so its usual
    path checks nothing)."""
    try:
        dims = canonical_dim(dim)
        size = _product(dims)
        check_tid_extents(dims, size, tid_reads)
    except (TypeError, ValueError) as e:
        raise at_callers_line(e) from None
    # (a size past int64 is kept only in Python: such a launch may be recorded, never run)
    packed = _BOUNDS.pack(*(dims + (1,) * (4 - len(dims))), len(dims), 0, min(size, _INT64_MAX)), len(dims), size
    if isinstance(dim, (int, tuple)) and len(bounds_cache) < 4096 and size <= THREAD_LIMIT \
            and max(dims) <= TID_EXTENT_LIMIT:
        bounds_cache[dim] = packed
    return packed


_fitted_cache: dict = {}


def fit_to_tid(bounds: bytes, ndim: int, tid_count: int) -> tuple[bytes, int, int]:
    """(bounds the entry point runs, its threads, times to run it) for a launch of `ndim` > 1
    dimensions of a kernel whose wp.tid() gives `tid_count` indices. Warp: "if fewer indices are
    requested than the launch dimensionality, only the leading indices are returned"; with more,
    the missing trailing ones are 0 (the packed shape pads them with 1 already).
    - a scalar wp.tid() is the leading coordinate, the flat index divided by the product of the
      trailing extents (launch_t::lead_div, one division chosen once per chunk);
    - k > 1 indices: each coordinate of the first k dimensions repeats once per coordinate of the
      others, so the k-dimensional launch runs that many times (in turn, not interleaved as the
      flat order would have them: the same threads, in another order)."""
    key = (bounds, tid_count)
    hit = _fitted_cache.get(key)
    if hit is None:
        hit = _fit(bounds, ndim, tid_count)
        if len(_fitted_cache) < 4096:
            _fitted_cache[key] = hit
    return hit


def _fit(bounds: bytes, ndim: int, tid_count: int) -> tuple[bytes, int, int]:
    *shape, nd, _, _ = _BOUNDS.unpack(bounds)
    size = _product(shape[:ndim])  # (the packed size is clamped to int64)
    if tid_count == 1:
        # (a divisor past int32 comes with more threads than a dispatch runs: never used, only kept)
        div = min(_product(shape[1:ndim]), THREAD_LIMIT) if size else 0
        return _BOUNDS.pack(*shape, nd, div, min(size, _INT64_MAX)), size, 1
    if 1 < tid_count < ndim:
        repeat = _product(shape[tid_count:ndim])
        if repeat > 1 and size:
            kept = shape[:tid_count] + [1] * (4 - tid_count)
            return _BOUNDS.pack(*kept, tid_count, 0, min(size // repeat, _INT64_MAX)), size // repeat, repeat
    return bounds, size, 1


def block_bounds(dim, lanes: int, flags: int = 0) -> tuple[bytes, int]:
    """The launch bounds of a launch in blocks of `lanes` lanes: the shape counts threads, the size
    blocks (what the runtime splits over its threads, and the CUDA grid). `flags`
    (launch_t::one_lane, native/tiles/block_cpu.h run_fiber_blocks): 1, the CPU may run one lane
    per block for all of them; 2, the lanes of a CPU block may share their block-uniform tiles."""
    dims = canonical_dim(dim)
    blocks = (_product(dims) + lanes - 1) // lanes
    return _BOUNDS.pack(*(dims + (1,) * (4 - len(dims))), len(dims), int(flags), min(blocks, _INT64_MAX)), blocks


def too_many(dim, size: int, tid_count: int, lanes: int, is_cpu: bool) -> bool:
    """Whether a dispatch of `size` threads over `dim` is more than warp_nb runs. Past THREAD_LIMIT,
    only the CPU runs one, for a kernel whose wp.tid() unpacks every dimension of a launch of
    several, one lane per block, each extent below 2^31: its loop counts the flat index in int64
    and gives int32 coordinates (runtime/cpu_entry.py), as Warp runs a 46341 x 46341 launch."""
    if size <= THREAD_LIMIT:
        return False
    dims = canonical_dim(dim)
    return not (is_cpu and lanes == 1 and 1 < len(dims) == tid_count and size <= _INT64_MAX
                and max(dims) <= THREAD_LIMIT)


def too_many_threads(kernel_key: str, dim, threads: int) -> ValueError:
    """The error of a dispatch of more threads than the CPU's int32 loops count (docs/compat.md)."""
    return ValueError(f"launch of kernel `{kernel_key}` with dim={dim!r} has {threads} threads; warp_nb runs at "
                      f"most 2^31 - 1 threads in one launch (but on the CPU when wp.tid() unpacks every "
                      f"dimension of a launch of several): split the launch")


def _product(values) -> int:
    total = 1
    for v in values:
        total *= int(v)
    return total
