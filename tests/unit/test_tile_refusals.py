"""What tile code Warp refuses, refused by warp_nb's typechecker at the kernel's line with Warp's key
phrase (its tests match it) and the error class Warp raises; and tile_arange's range planning."""

import textwrap

import pytest

import warp_nb as wp
from warp_nb.compiler.parse import parse_source
from warp_nb.compiler.scope import Scope
from warp_nb.compiler.typecheck import Context, typecheck_kernel
from warp_nb.compiler.typecheck_tiles_arange import plan, round_int_to_float
from warp_nb.errors import KernelError
from warp_nb.types.array_type import ArrayType


def typed(body: str, params=(), backward_enabled: bool = False, names: dict | None = None):
    signature = ", ".join(f"{n}: {a}" for n, a, _ in params)
    src = f"def k({signature}):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    fdef = parse_source(src, "k.py")
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp, **(names or {})}
    return typecheck_kernel(fdef, [t for _, _, t in params], scope, Context("release", False, backward_enabled))


F2 = ("A", "wp.array2d(dtype=float)", ArrayType(wp.float32, 2))
ONES = "t = wp.tile_ones(shape=(8, 8), dtype=float)\n"

REFUSED = [
    # views (test_tile_view)
    (ONES + "v = wp.tile_ones(shape=(4, 8), dtype=float)\nt[0:4, :] += v", ValueError,
     "Compound assignment to a tile view"),
    (ONES + "v = wp.tile_ones(shape=(8,), dtype=float)\nt[0] += v", ValueError, "Compound assignment to a tile view"),
    (ONES + "f = wp.tile_reshape(t[::2, ::2], shape=(16,))", ValueError, "requires a contiguous tile"),
    (ONES + "v = t[::-1, :]\nf = wp.tile_reshape(v, shape=(64,))", ValueError, "requires a contiguous tile"),
    (ONES + "r = t[1.5, :]", TypeError, "must be integers or slices"),
    (ONES + "r = wp.tile_view(t, offset=(1.5,))", TypeError, "must be integers or slices"),
    (ONES + "r = wp.tile_view(t, offset=(-1,))", ValueError, "out of bounds"),
    (ONES + "r = wp.tile_view(t, offset=(8,))", ValueError, "out of bounds"),
    (ONES + "r = wp.tile_view(t, offset=(slice(0, 2, 1), slice(0, 3, 1)), shape=(2, 3))", ValueError,
     "'shape' together with a slice"),
    (ONES + "i = wp.tile_arange(0.0, 8.0, 1.0, dtype=float)\nr = t[i, :]", RuntimeError, "integer index tile"),
    # tile_arange (test_tile_construction)
    ("t = wp.tile_arange(0, 6, dtype=wp.bool)", TypeError, "tile_arange() requires a numeric scalar dtype"),
    ("t = wp.tile_arange(0, 4, dtype=wp.vec3f)", TypeError, "tile_arange() requires a numeric scalar dtype"),
    ("t = wp.tile_arange(0, 1099511627776, dtype=wp.int32)", ValueError, "stop=1099511627776 is out of range"),
    ("t = wp.tile_arange(0.0, 3.5, dtype=wp.int32)", ValueError, "stop=3.5 has a fractional part"),
    ("t = wp.tile_arange(0.0, 1.0e300, dtype=wp.float32)", ValueError, "stop=1e+300 is out of range"),
    ("t = wp.tile_arange(0, 1180591620717411303424, 18446744073709551616, dtype=wp.float32)", ValueError,
     "stop=1180591620717411303424 is too wide to use as an integer bound"),
    ("t = wp.tile_arange(0.0, 1.0, 5.0e-324, dtype=wp.float64)", ValueError, "spans more elements than can be counted"),
    ("t = wp.tile_arange(0.0, 1.0e-45, 1.0e-46, dtype=wp.float32)", ValueError, "step cannot be zero"),
    # storage and shapes
    ("t = wp.tile_zeros(shape=65537, dtype=float, storage='shared')", ValueError, "exceeds the 256 KiB arena"),
    ("t = wp.tile_ones(shape=1, dtype=float)\nu = wp.tile_broadcast(t, shape=(1, 1, 1, 1, 1))", ValueError,
     "tile_broadcast() output must have between one and four dimensions, got 5"),
    ("a = wp.tile_zeros(shape=(1, 2, 1), dtype=float)\nb = wp.tile_squeeze(a, axis=(3,))", ValueError,
     "tile_squeeze() axis 3 is out of bounds for tile with 3 dimensions"),
]


@pytest.mark.parametrize("body, error, words", REFUSED)
def test_refused_with_warps_words(body, error, words):
    with pytest.raises(KernelError) as info:
        typed(body)
    assert isinstance(info.value, error), type(info.value)
    message = str(info.value)
    assert words in message, message
    assert "k.py, line" in message


def test_runtime_slice_bound_in_a_view_is_refused():
    with pytest.raises(KernelError, match="compile-time constant"):
        typed("t = wp.tile_ones(shape=(8,), dtype=float)\nv = wp.tile_view(t, offset=(slice(0, n, 1),))",
              [("n", "int", wp.int32)])


def test_tile_atomic_add_of_narrow_integers_is_refused():
    i8 = ("a", "wp.array(dtype=wp.int8)", ArrayType(wp.int8, 1))
    with pytest.raises(RuntimeError, match="tile_atomic_add.*only supports"):
        typed("wp.tile_atomic_add(a, wp.tile_load(a, shape=8))", [i8])


MATMUL = "a = wp.tile_load(A, shape=(4, 8))\nb = wp.tile_load(B, shape=(8, 4))\n"


def _arrays(ta, tb):
    return [("A", "wp.array2d(dtype=float)", ArrayType(ta, 2)), ("B", "wp.array2d(dtype=float)", ArrayType(tb, 2))]


@pytest.mark.parametrize("dtype, body, backward, error, words", [
    (wp.vec2f, "c = wp.tile_matmul(a, b)", False, TypeError, "does not support complex tiles"),
    (wp.vec2d, "c = wp.tile_matmul(a, b, precision='tf32')", False, TypeError, "does not support complex tiles"),
    (wp.bfloat16, "c = wp.tile_matmul(a, b)", False, TypeError, "bfloat16 'out' tile"),
    (wp.bfloat16, "c = wp.tile_zeros(shape=(4, 4), dtype=float)\nwp.tile_matmul(a, b, c)", True, TypeError,
     "bfloat16 'a' or 'b' tiles when the backward pass is enabled"),
    (wp.float16, "c = wp.tile_matmul(a, b, precision='tf32')", False, TypeError,
     "precision='tf32' requires float32 tiles"),
    (wp.float32, "c = wp.tile_matmul(a, b, precision='fp8')", False, ValueError,
     "precision must be the string literal 'default' or 'tf32'"),
])
def test_tile_matmul_refusals(dtype, body, backward, error, words):
    with pytest.raises(KernelError) as info:
        typed(MATMUL + body, _arrays(dtype, dtype), backward_enabled=backward)
    assert isinstance(info.value, error) and words in str(info.value), str(info.value)


def test_tile_matmul_accepts_mixed_precision_and_bf16_without_backward():
    typed(MATMUL + "c = wp.tile_zeros(shape=(4, 4), dtype=wp.float64)\nwp.tile_matmul(a, b, c)",
          _arrays(wp.float16, wp.float32), backward_enabled=True)
    typed(MATMUL + "c = wp.tile_zeros(shape=(4, 4), dtype=float)\nwp.tile_matmul(a, b, c)",
          _arrays(wp.bfloat16, wp.bfloat16), backward_enabled=False)


# --- tile_arange's plan: counted from the bounds as the output type holds them ------------------

def test_float32_range_is_counted_from_rounded_bounds():
    assert plan([0.0, 3.0000001, 0.99999999], wp.float32)[0] == 3  # (0, 3, 1) in float32
    assert plan([0.0, 0.3, 0.1], wp.float32)[0] == 3  # numpy.arange's count too
    assert plan([0.0, 1.401298464324817e-45, 2.0], wp.float32)[0] == 1  # the quotient underflows; start stays
    assert plan([-3.0e38, 3.0e38, 3.0e38], wp.float32)[0] == 2  # the widest span


def test_integer_bounds_round_straight_to_the_float_type():
    # through a double 2**54 + 3 * 2**30 - 1 would round twice and land a step further
    start, stop, step = 2 ** 54, 2 ** 54 + 3 * 2 ** 30 - 1, 2 ** 31
    assert round_int_to_float(stop, 24) == 2 ** 54 + 2 ** 31
    assert plan([start, stop, step], wp.float32) == (1, float(2 ** 54), float(2 ** 31))
    assert round_int_to_float(2 ** 24 + 1, 24) == 2 ** 24  # a tie goes to even
    assert round_int_to_float(2 ** 24 + 3, 24) == 2 ** 24 + 4


def test_integer_ranges_are_counted_exactly():
    assert plan([0, 9007199254740993, 9007199254740992], wp.int64)[0] == 2
    assert plan([10, 0, -3], wp.int32) == (4, 10, -3)
    assert plan([0.0, 10.0], wp.int32)[0] == 10  # integral float bounds hold an exact integer


@wp.struct
class Pair:
    x: float
    n: int


@wp.func
def pair_x_sum(a: Pair, b: Pair) -> float:
    return a.x + b.x


@pytest.mark.parametrize("body, words", [
    ("t = wp.tile_ones(8, dtype=Pair)", "tile_ones does not support Warp struct"),
    ("t = wp.tile_zeros(shape=8, dtype=Pair)\nm = wp.tile_min(t)", "tile_min does not support Warp struct"),
    ("t = wp.tile_zeros(shape=8, dtype=Pair)\nm = wp.tile_argmax(t)", "tile_argmax does not support Warp struct"),
    ("t = wp.tile_zeros(shape=8, dtype=Pair)\nm = wp.tile_reduce(wp.min, t)",
     "no overload of wp.min accepts the Warp struct"),
    ("t = wp.tile_zeros(shape=8, dtype=Pair)\nm = wp.tile_reduce(pair_x_sum, t)", "must return the tile element type"),
    ("t = wp.tile_zeros(shape=8, dtype=Pair)\nt &= t", "bitwise inplace operators"),
    ("t = wp.tile_zeros(shape=8, dtype=Pair)\nt[0] |= Pair()", "bitwise inplace operators"),
    ("t = wp.tile_arange(8, dtype=Pair)", "tile_arange() requires a numeric scalar dtype"),
])
def test_struct_tiles_refuse_what_structs_cannot_do(body, words):
    with pytest.raises(TypeError) as info:
        typed(body, names={"Pair": Pair, "pair_x_sum": pair_x_sum})
    assert words in str(info.value), str(info.value)
