"""Tile builtins (tile.h): Warp's wp.tile_* API. Builtins whose arguments are plain values (tiles,
indices) are declared with overloads here; those that take shapes, dtypes or functions (tile_zeros,
tile_load, tile_map ...) name the typechecker's rule that types them (`form=`: its method
`form_<form>`, in compiler/typecheck_tiles_*.py). Each says how it runs in a block of several lanes
(`lanes=`, registry.LANES). The tile operators (+ - * / on tiles) are overloads of the operator builtins (operators.py)."""

from .. import types as T
from ..types.tiles import stack_type, tile_annotation, tile_type
from .registry import INT, NUMERIC, AnyType, Builtin, Result, Scalar, Tile, add, builtin, ov, same

N = Scalar("T", NUMERIC)
D = AnyType("D")
IDX = Scalar("I", INT)
# the adjoint of each differentiable one is beside it in tile.h / tile_ops.h
# every tile builtin's code depends on the lanes of a block (registry.LANES): "uniform" unless its
# declaration says how it differs
_t = dict(header="tiles/tile.h", category="tile", lanes="uniform")
_ops = dict(_t, header="tiles/tile_ops.h")
#: costly and pure: computed once per block (registry.LANES)
_once = dict(lanes="once_per_block")
#: t[i, j]: one element, each lane with its own indices; bounds-checked in checked code
_element = dict(_ops, lanes="own_element", checked_read=True)


class TileBuiltin(Builtin):
    """wp.tile: the builtin `wp.tile(x)` and, subscripted or called with only `dtype`, `shape` (and
    `storage`) in Python, the annotation `wp.tile[float, M, N]` / `wp.tile(dtype=float, shape=(M, N))`
    (Warp's tile class: wp.types.type_is_tile(wp.tile) holds)."""

    _wp_tile_class_ = True

    def __getitem__(self, params):
        return tile_annotation(params)

    def __call__(self, *args, **kwargs):
        if not args and kwargs and set(kwargs) <= {"dtype", "shape", "storage"}:
            shape = kwargs.get("shape")
            return tile_type(kwargs.get("dtype", float), (shape,) if isinstance(shape, int) else tuple(shape),
                             kwargs.get("storage", "register"))
        return super().__call__(*args, **kwargs)


add(TileBuiltin("tile", (), doc="wp.tile(x): the values of x across the block as a 1-D tile of length block_dim "
                                "(a block of one lane, the CPU's default: a tile of one element). `wp.tile[dtype, M, N]` is the "
                                "annotation of a tile parameter.", cpp="wpnb::tile_from_value", form="tile", **_t))

for _name, _what in (("tile_zeros", "zeros"), ("tile_ones", "ones")):
    builtin(_name, doc=f"wp.{_name}(shape, dtype=float, storage='register'): a tile of {_what}.",
            cpp="wpnb::tile_full", form=_name, split="coop_full", **_t)
builtin("tile_empty", doc="wp.tile_empty(shape, dtype=float, storage='register'): a tile whose values Warp leaves "
                          "unspecified (zeros in warp_nb).", cpp="wpnb::tile_full", form="tile_empty", split="coop_full", **_t)
builtin("tile_full", doc="wp.tile_full(shape, value, dtype=float, storage='register'): a tile filled with value.",
        form="tile_full", split="coop_full", **_t)
builtin("tile_arange", differentiable=False, doc="wp.tile_arange(stop) / (start, stop) / (start, stop, step), dtype=int: a 1-D tile as "
                           "numpy.arange; the bounds must be compile-time constants (they give the tile's length).",
        form="tile_arange", **_t)
builtin("tile_load", doc="wp.tile_load(a, shape, offset=0, storage='register'): the block a[offset : offset + shape] "
                         "of a 1-D or 2-D array as a tile; elements outside the array read 0.", form="tile_load", split="coop_tile_load", **dict(_t, lanes="lead_adjoint"))
builtin("tile_load_indexed", doc="wp.tile_load_indexed(a, indices, shape, offset=0, axis=0): a tile whose entries "
                                 "along `axis` come from the array positions offset + indices[k] (a 1-D int tile); "
                                 "positions outside the array read 0.", form="tile_load_indexed", **dict(_t, lanes="lead_adjoint"))
builtin("tile_store_indexed", doc="wp.tile_store_indexed(a, indices, t, offset=0, axis=0): t written to a with its "
                                  "entries along `axis` going to offset + indices[k]; outside the array: skipped.",
        side_effects=True, form="tile_store_indexed", **dict(_t, lanes="lead"))
builtin("tile_atomic_add_indexed", doc="wp.tile_atomic_add_indexed(a, indices, t, offset=0, axis=0): t added "
                                       "atomically into a, its entries along `axis` going to offset + indices[k]; "
                                       "returns the previous values as a tile.", side_effects=True, form="tile_atomic_add_indexed", **dict(_t, lanes="lead"))
builtin("tile_from_thread", doc="wp.tile_from_thread(shape, value, thread_idx=0, storage='register'): a tile "
                                "filled with the value of thread thread_idx of the block (one thread on the CPU: "
                                "its own value).", cpp="wpnb::tile_full", form="tile_from_thread", **_t)
builtin("tile_scatter_add", rebinds=0, doc="wp.tile_scatter_add(t, i..., value, has_value, atomic=True): t (a "
                                                 "tile variable) rebound with value added to t[i...] when has_value.",
                     cpp="wpnb::tile_scatter_add", **dict(_t, form="tile_scatter_add", header="tiles/tile_nd.h"))
builtin("tile_scatter_masked", rebinds=0, doc="wp.tile_scatter_masked(t, i..., value, has_value): t (a tile "
                                                    "variable) rebound with t[i...] set to value when has_value (each "
                                                    "lane of a block its own element).",
                     cpp="wpnb::tile_scatter_set", **dict(_t, form="tile_scatter_masked", header="tiles/tile_nd.h"))
for _name, _what in (("tile_randi", "int32 draws (randi)"), ("tile_randf", "float32 draws in [0, 1) (randf)")):
    builtin(_name, doc=f"wp.{_name}(shape, rng, min=None, max=None): a tile of {_what}, in [min, max) when given, "
                       "from a copy of the stream rng.", differentiable=False, **dict(_t, form=_name, header="tiles/tile_random.h"))
builtin("tile_store", doc="wp.tile_store(a, t, offset=0): write tile t into a at offset; elements that fall outside "
                          "the array are not written.", side_effects=True, form="tile_store", split="coop_tile_store", **dict(_t, lanes="lead"))
builtin("tile_atomic_add", doc="wp.tile_atomic_add(a, t, offset=0): a[offset + k] += t[k] atomically, inside the "
                               "array; returns the previous values as a tile.", side_effects=True, form="tile_atomic_add", **dict(_t, lanes="lead"))
builtin("tile_map", doc="wp.tile_map(f, a[, b]): f applied to every element of a (and the matching element of b); f "
                        "is a builtin or a @wp.func.", cpp="wpnb::map_with", form="tile_map", split="coop_map", **_t)
builtin("tile_reduce", doc="wp.tile_reduce(f, a): f folded over a's elements (row-major order) as a 1-element tile.",
        cpp="wpnb::reduce_with", **dict(_ops, form="tile_reduce", differentiable=False))
builtin("tile_view", doc="wp.tile_view(t, offset, shape=None): the part of t at offset (a copy in warp_nb).",
        form="tile_view", **_ops)
builtin("tile_assign", rebinds=0, doc="wp.tile_assign(dst, src, offset=0): dst (a tile variable) rebound "
                                           "with src written at offset. `t[a:b, :] = u` does the same for a slice.",
                     cpp="wpnb::tile_scatter", form="tile_assign", **_ops)
builtin("tile_broadcast", doc="wp.tile_broadcast(t, shape): t repeated along its axes of extent 1.", form="tile_broadcast", **_ops)
builtin("tile_reshape", doc="wp.tile_reshape(t, shape): t's elements in row-major order with another shape.",
        form="tile_reshape", **_ops)
builtin("tile_squeeze", doc="wp.tile_squeeze(t, axis=None): t without its axes of extent 1 (all, or those in axis).",
        cpp="wpnb::tile_reshape", form="tile_squeeze", **_ops)
builtin("tile_dot", doc="wp.tile_dot(a, b): the sum of the elementwise product of two tiles, as a tile of one element.",
        cpp="wpnb::tile_sum", form="tile_dot", split="coop_reduce", **_ops)
builtin("tile_axpy", rebinds=2, doc="wp.tile_axpy(alpha, src, dest): dest (a tile variable) rebound to dest + "
                                          "alpha * src.", cpp="wpnb::add", form="tile_axpy", **_t)
builtin("tile_astype", doc="wp.tile_astype(t, dtype): t converted elementwise to another scalar type.",
        form="tile_astype", **_ops)

_US = Scalar("S", NUMERIC)
builtin("untile", ov(Tile(("n",), D), ret=same("D"), names=("a",)),
        ov(Tile(("n", "b"), _US), ret=Result(lambda b: T.vector(b["n"], b["S"])), names=("a",),
           template="wpnb::untile_vector<{n}>"),
        ov(Tile(("m", "n", "b"), _US), ret=Result(lambda b: T.matrix((b["m"], b["n"]), b["S"])), names=("a",),
           template="wpnb::untile_matrix<{m}, {n}>"), cpp="wpnb::untile",
        doc="wp.untile(t): this thread's element of a 1-D tile of the block's length (the inverse of wp.tile); of a "
            "tile of shape (n, block_dim) or (m, n, block_dim), this thread's vector or matrix.", **_t)
builtin("tile_transpose", ov(Tile(("r", "c"), D), ret=Tile(("c", "r"), D), names=("a",)),
        doc="The transpose of a 2-D tile.", **_ops)
builtin("tile_extract", doc="wp.tile_extract(t, i[, j]): one element of a tile (what t[i, j] reads); with checks "
                            "(checked and debug modes), an index outside the tile raises IndexError after the launch; "
                            "a negative index is outside (it does not count from the end).",
        cpp="wpnb::tile_extract_in", form="tile_extract", **_element)
builtin("tile_element", ov(Tile(("n",), D), IDX, ret=same("D"), names=("a", "i")),
        ov(Tile(("r", "c"), D), IDX, Scalar("J", INT), ret=same("D"), names=("a", "i", "j")), cpp="wpnb::tile_extract",
        export=False, doc="What t[i] / t[i, j] reads: one element of a 1-D or 2-D tile (negative indices count from "
                          "the end).", **_element)
for _name, _what in (("tile_sum", "sum"), ("tile_min", "smallest element"), ("tile_max", "largest element")):
    builtin(_name, doc=f"wp.{_name}(a, axis=None): the {_what} of a tile's elements as a tile of one element; along "
                       f"`axis` (a constant), a 1-D tile of the {_what}s of its lines.", form=_name,
            split="coop_reduce", **_ops)
for _name, _what in (("tile_argmin", "smallest"), ("tile_argmax", "largest")):
    builtin(_name, doc=f"wp.{_name}(a, axis=None): the row-major index of the first {_what} element, as a tile of "
                       "one int32; along `axis`, the position of each line's.", differentiable=False, form=_name,
            split="coop_reduce", **_ops)
_S = Tile("S", N)
builtin("tile_scan_inclusive", ov(_S, ret=_S, names=("a",)),
        doc="Inclusive prefix sums of a tile's elements in row-major order (numpy.cumsum).", split="coop_scan", **_ops)
builtin("tile_scan_exclusive", ov(_S, ret=_S, names=("a",)),
        doc="Exclusive prefix sums (the first is 0) of a tile's elements in row-major order.", split="coop_scan", **_ops)
builtin("tile_scan_max_inclusive", ov(_S, ret=_S, names=("a",)), differentiable=False,
        doc="Running maximum of a tile's elements in row-major order (NaNs skipped, as fmax).", split="coop_scan", **_ops)
builtin("tile_scan_min_inclusive", ov(_S, ret=_S, names=("a",)), differentiable=False,
        doc="Running minimum of a tile's elements in row-major order (NaNs skipped, as fmin).", split="coop_scan", **_ops)

builtin("tile_sort", ov(Tile(("n",), Scalar("K", NUMERIC)), Tile(("n",), D), ret=None, names=("keys", "values")),
        inout=(0, 1), differentiable=False, doc="wp.tile_sort(keys, values): both 1-D tiles (variables) rebound, "
                                                "sorted by key ascending, stably.", **dict(_ops, **_once))

_F = Scalar("T", ("float",))
_A, _B, _C = Tile(("m", "k"), _F), Tile(("k", "n"), _F), Tile(("m", "n"), _F)


def _explain_matmul(arg_types):
    """Which extents of a tile_matmul disagree (a, b: M x K and K x N; out: M x N)."""
    tiles = [t for t in arg_types[:3] if isinstance(t, T.TileType)]
    if len(tiles) < 2 or any(t.ndim != 2 for t in tiles):
        return "wp.tile_matmul takes 2-D tiles: a (M x K), b (K x N)[, out (M x N)]"
    a, b = tiles[0], tiles[1]
    if a.shape[1] != b.shape[0]:
        return f"wp.tile_matmul: the inner extents differ, a is {a.shape} and b is {b.shape} (a's columns must equal b's rows)"
    if len(tiles) == 3 and tiles[2].shape != (a.shape[0], b.shape[1]):
        return f"wp.tile_matmul: out is {tiles[2].shape} but a @ b is {(a.shape[0], b.shape[1])}"
    if len({t.dtype for t in tiles}) > 1 or not T.is_float_type(a.dtype):
        return "wp.tile_matmul takes float tiles of one dtype; convert with wp.tile_astype"
    return None




builtin("tile_matmul", rebinds=2, doc="wp.tile_matmul(a, b): the matrix product of an M x K and a K x N tile. wp.tile_matmul(a, b, "
                           "out, alpha=1.0, beta=1.0) sets out = alpha * a @ b + beta * out (the variable `out` is "
                           "rebound to the result).", cpp="wpnb::tile_mma", form="tile_matmul", **dict(_ops, **_once))
builtin("tile_mma", ov(_A, _B, ret=_C, names=("a", "b")),
        ov(_A, _B, _C, _F, _F, ret=_C, names=("a", "b", "out", "alpha", "beta")), explain=_explain_matmul,
        export=False, doc="What wp.tile_matmul computes: a @ b, or alpha * a @ b + beta * out.", split="coop_mma", **dict(_ops, **_once))

# --- linear algebra (tile_linalg.h) ----------------------------------------------------------------
_la = dict(_t, header="tiles/tile_linalg.h", **_once)
_SQ = Tile(("n", "n"), _F)
_RHS = (Tile(("n",), _F), Tile(("n", "m"), _F))
for _name, _what in (("tile_lower_solve", "L x = b for a lower-triangular L"),
                     ("tile_upper_solve", "U x = b for an upper-triangular U")):
    builtin(_name, *[ov(_SQ, rhs, ret=rhs, names=("L" if "lower" in _name else "U", "y")) for rhs in _RHS],
            doc=f"wp.{_name}(L, b): x solving {_what} (b: N values or an N x M tile).", **_la)
    builtin(f"{_name}_inplace", rebinds=1, doc=f"wp.{_name}_inplace(L, b): b (a tile variable) rebound to "
                                                      f"wp.{_name}(L, b).", cpp=f"wpnb::{_name}", form=f"{_name}_inplace", **_la)
builtin("tile_cholesky", doc="wp.tile_cholesky(A, fill_mode='lower'): L with A = L L^T (lower), or U = L^T (upper), "
                             "of a symmetric positive definite tile.", form="tile_cholesky", **_la)
builtin("tile_cholesky_inplace", rebinds=0, doc="wp.tile_cholesky_inplace(A, fill_mode='lower'): A (a tile "
                                                      "variable) rebound to its Cholesky factor.", cpp="wpnb::tile_cholesky",
                     form="tile_cholesky_inplace", **_la)
builtin("tile_cholesky_solve", doc="wp.tile_cholesky_solve(L, b, fill_mode='lower'): x solving A x = b from A's "
                                   "Cholesky factor.", form="tile_cholesky_solve", **_la)
builtin("tile_cholesky_solve_inplace", rebinds=1, doc="wp.tile_cholesky_solve_inplace(L, b, fill_mode='lower'): "
                                                            "b (a tile variable) rebound to the solution.",
                     cpp="wpnb::tile_cholesky_solve", form="tile_cholesky_solve_inplace", **_la)
for _name, _sign in (("tile_fft", "-"), ("tile_ifft", "+")):
    builtin(_name, rebinds=0, doc=f"wp.{_name}(t): t (a tile variable of vec2 complex numbers) rebound to its "
                                        f"discrete Fourier transform along the last axis, y_k = sum_j x_j "
                                        f"e^({_sign}2 pi i jk / n), unnormalised.", cpp="wpnb::tile_fft_lines",
                         form=_name, **_la)
builtin("tile_diag_add", ov(Tile(("n", "n"), N), Tile(("n",), N), ret=Tile(("n", "n"), N), names=("a", "d")),
        doc="wp.tile_diag_add(a, d): the square tile a with the 1-D tile d added to its diagonal.",
        **dict(_la, lanes="uniform"))

# --- stacks (tile_stack.h) -----------------------------------------------------------------------
_st = dict(_t, header="tiles/tile_stack.h", differentiable=False)
builtin("tile_stack", doc="wp.tile_stack(capacity, dtype): an empty stack of up to `capacity` values; outside "
                          "kernels, the stack type for annotations.", cpp="wpnb::tile_stack_t",
        python=lambda capacity, dtype: stack_type(capacity, dtype), form="tile_stack", **_st)
for _name, _what, _cpp in (("tile_stack_push", "pushes value when has_value (dropped when full)", "pushed"),
                           ("tile_stack_pop", "pops the top: (value, slot), slot -1 when empty", "popped"),
                           ("tile_stack_clear", "empties the stack", "cleared")):
    builtin(_name, rebinds=0, doc=f"wp.{_name}(s, ...): {_what}; s (a stack variable) is rebound.",
                         cpp=f"wpnb::tile_stack_{_cpp}", form=_name, **_st)
builtin("tile_stack_count", doc="wp.tile_stack_count(s): how many values the stack holds.", form="tile_stack_count", **_st)

builtin("block_dim", ov(ret=T.int32), doc="The number of threads (lanes) of a block: 1 on the CPU unless "
                                          "wp.config.enable_cpu_blocks, the launch's block_dim on CUDA.", differentiable=False, **_t)

