"""wp.cast(a, dtype): the bytes of a read as dtype, compared with numpy's view of the same bytes;
a size mismatch is refused when the kernel is typed, naming both sizes."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.struct
class HalfAndShort:
    f: wp.float16
    i: wp.int16


@wp.kernel
def casts(ints: wp.array(dtype=wp.int32), floats: wp.array(dtype=wp.float32), doubles: wp.array(dtype=wp.float64),
          as_float: wp.array(dtype=wp.float32), as_int: wp.array(dtype=wp.int32), as_vec: wp.array(dtype=wp.vec2),
          from_struct: wp.array(dtype=wp.int32)):
    i = wp.tid()
    as_float[i] = wp.cast(ints[i], wp.float32)
    as_int[i] = wp.cast(floats[i], wp.int32)
    as_vec[i] = wp.cast(doubles[i], wp.vec2)
    s = HalfAndShort()
    s.f = wp.float16(floats[i])
    s.i = wp.int16(i)
    from_struct[i] = wp.cast(s, wp.int32)


def test_cast_reads_the_bits_as_numpy_views_them():
    n = 16
    rng = np.random.default_rng(4)
    ints = rng.integers(0x3F000000, 0x40800000, n).astype(np.int32)  # finite floats
    floats = rng.uniform(-4, 4, n).astype(np.float32)
    doubles = rng.normal(size=n)
    outs = [wp.zeros(n, dtype=t) for t in (wp.float32, wp.int32, wp.vec2, wp.int32)]
    wp.launch(casts, n, inputs=[wp.array(ints), wp.array(floats), wp.array(doubles), *outs])
    as_float, as_int, as_vec, from_struct = (o.numpy() for o in outs)
    np.testing.assert_array_equal(as_float, ints.view(np.float32))
    np.testing.assert_array_equal(as_int, floats.view(np.int32))
    np.testing.assert_array_equal(as_vec, doubles.view(np.float32).reshape(n, 2))
    packed = np.zeros(n, dtype=[("f", np.float16), ("i", np.int16)])
    packed["f"], packed["i"] = floats.astype(np.float16), np.arange(n)
    np.testing.assert_array_equal(from_struct, packed.view(np.int32))


def test_cast_refuses_types_of_other_sizes():
    @wp.kernel(module="unique")
    def wrong_size(out: wp.array(dtype=wp.float64)):
        out[0] = wp.cast(wp.int32(1), wp.float64)

    with pytest.raises(TypeError, match=r"int32 \(4 bytes\) as float64 \(8 bytes\)"):
        wp.launch(wrong_size, 1, inputs=[wp.zeros(1, dtype=wp.float64)])
