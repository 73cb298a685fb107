"""Tile builtins (tile.h): Warp's wp.tile_* API. Builtins whose arguments are plain values (tiles,
indices) are declared with overloads here; those that take shapes, dtypes or functions
(tile_zeros, tile_load, tile_map ...) are typed by special forms in compiler/typecheck_tile.py.
The tile operators (+ - * / on tiles) are overloads of the operator builtins (operators.py)."""

from .. import types as T
from ..types.tiles import tile_annotation
from .registry import INT, NUMERIC, AnyType, Builtin, Exact, Result, Scalar, Tile, add, builtin, ov, same

N = Scalar("T", NUMERIC)
D = AnyType("D")
IDX = Scalar("I", INT)
_t = dict(header="tile.h", category="tile", differentiable=False)
_special = dict(_t, special=True)


class TileBuiltin(Builtin):
    """wp.tile: the builtin `wp.tile(x)` and, subscripted, the annotation `wp.tile[float, M, N]`."""

    def __getitem__(self, params):
        return tile_annotation(params)


add(TileBuiltin("tile", (), doc="wp.tile(x): the values of x across the block as a 1-D tile of length block_dim "
                                "(one thread on the CPU: a tile of one element). `wp.tile[dtype, M, N]` is the "
                                "annotation of a tile parameter.", cpp="wpnb::tile_from_value", special=True, **_t))

for _name, _what in (("tile_zeros", "zeros"), ("tile_ones", "ones")):
    builtin(_name, doc=f"wp.{_name}(shape, dtype=float, storage='register'): a tile of {_what}.",
            cpp="wpnb::tile_full", **_special)
builtin("tile_full", doc="wp.tile_full(shape, value, dtype=float, storage='register'): a tile filled with value.",
        **_special)
builtin("tile_arange", doc="wp.tile_arange(stop) / (start, stop) / (start, stop, step), dtype=int: a 1-D tile as "
                           "numpy.arange; the bounds must be compile-time constants (they give the tile's length).",
        **_special)
builtin("tile_load", doc="wp.tile_load(a, shape, offset=0, storage='register'): the block a[offset : offset + shape] "
                         "of a 1-D or 2-D array as a tile; elements outside the array read 0.", **_special)
builtin("tile_store", doc="wp.tile_store(a, t, offset=0): write tile t into a at offset; elements that fall outside "
                          "the array are not written.", side_effects=True, **_special)
builtin("tile_atomic_add", doc="wp.tile_atomic_add(a, t, offset=0): a[offset + k] += t[k] atomically, inside the "
                               "array; returns the previous values as a tile.", side_effects=True, **_special)
builtin("tile_map", doc="wp.tile_map(f, a[, b]): f applied to every element of a (and the matching element of b); f "
                        "is a builtin or a @wp.func.", cpp="wpnb::map_with", **_special)
builtin("tile_reduce", doc="wp.tile_reduce(f, a): f folded over a's elements (row-major order) as a 1-element tile.",
        cpp="wpnb::reduce_with", **_special)
builtin("tile_view", doc="wp.tile_view(t, offset, shape=None): the part of t at offset (a copy in warp_nb).",
        **_special)
builtin("tile_broadcast", doc="wp.tile_broadcast(t, shape): t repeated along its axes of extent 1.", **_special)
builtin("tile_reshape", doc="wp.tile_reshape(t, shape): t's elements in row-major order with another shape.",
        **_special)
builtin("tile_astype", doc="wp.tile_astype(t, dtype): t converted elementwise to another scalar type.", **_special)

builtin("untile", ov(Tile(("n",), D), ret=same("D"), names=("a",)), cpp="wpnb::untile",
        doc="wp.untile(t): this thread's element of a 1-D tile of the block's length (the inverse of wp.tile).", **_t)
builtin("tile_transpose", ov(Tile(("r", "c"), D), ret=Tile(("c", "r"), D), names=("a",)),
        doc="The transpose of a 2-D tile.", **_t)
builtin("tile_extract", ov(Tile(("n",), D), IDX, ret=same("D"), names=("a", "i")),
        ov(Tile(("r", "c"), D), IDX, Scalar("J", INT), ret=same("D"), names=("a", "i", "j")),
        doc="wp.tile_extract(t, i[, j]): one element of a tile (what t[i, j] reads).", **_t)
for _name, _what in (("tile_sum", "sum"), ("tile_min", "smallest element"), ("tile_max", "largest element")):
    builtin(_name, ov(Tile("S", N), ret=Tile((1,), N), names=("a",)),
            doc=f"The {_what} of a tile's elements, as a tile of one element.", **_t)
_index_tile = Result(lambda b: T.tile_type(T.int32, (1,)))
builtin("tile_argmin", ov(Tile("S", N), ret=_index_tile, names=("a",)),
        doc="The row-major index of the first smallest element, as a tile of one int32.", **_t)
builtin("tile_argmax", ov(Tile("S", N), ret=_index_tile, names=("a",)),
        doc="The row-major index of the first largest element, as a tile of one int32.", **_t)

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


builtin("tile_matmul", ov(_A, _B, ret=_C, names=("a", "b")),
        ov(_A, _B, _C, ret=None, names=("a", "b", "out"), inout=(2,)),
        ov(_A, _B, _C, _F, _F, ret=None, names=("a", "b", "out", "alpha", "beta"), inout=(2,)),
        doc="wp.tile_matmul(a, b): the matrix product of an M x K and a K x N tile. wp.tile_matmul(a, b, out, "
            "alpha=1, beta=1) updates out = alpha * a @ b + beta * out in place.", explain=_explain_matmul, **_t)

builtin("block_dim", ov(ret=T.int32), doc="The number of threads of a block of a tiled launch (1 on the CPU, "
                                          "and in warp_nb's CUDA launches of tile kernels for now).", **_t)

del Exact
