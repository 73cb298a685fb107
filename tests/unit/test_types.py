"""Scalar and composite types in Python scope: construction, indexing, arithmetic, numpy."""

import ctypes

import numpy as np
import pytest

import warp_nb as wp


def test_scalars():
    assert wp.float32(1.1).value == float(np.float32(1.1))
    assert wp.int8(300).value == 44  # wraps like C
    assert wp.uint32(-1).value == 2 ** 32 - 1
    assert (wp.int32(7) / wp.int32(2)).value == 3 and (wp.int32(-7) / wp.int32(2)).value == -3
    assert float(wp.float16(0.1)) == float(np.float16(0.1))
    assert wp.types.is_float_type(wp.float64) and wp.types.is_int_type(wp.uint8)


def test_vectors():
    v = wp.vec3(1.0, 2.0, 3.0)
    assert (v.x, v.y, v.z) == (1.0, 2.0, 3.0) and v[1] == 2.0 and len(v) == 3 and list(v) == [1.0, 2.0, 3.0]
    assert np.array(v).tolist() == [1.0, 2.0, 3.0]
    assert v + v == wp.vec3(2.0, 4.0, 6.0) and 2.0 * v == v * 2.0 and -v == wp.vec3(-1.0, -2.0, -3.0)
    v.y = 5.0
    v[0] = 4.0
    assert v == wp.vec3(4.0, 5.0, 3.0)
    assert wp.vec3(2.0) == wp.vec3(2.0, 2.0, 2.0) and wp.vec3() == wp.vec3(0.0, 0.0, 0.0)
    assert wp.vec3f is wp.vec3 and wp.types.vector(3, float) is wp.vec3 and wp.types.vector(4, wp.float64) is wp.vec4d
    assert ctypes.sizeof(wp.vec3d) == 24 and wp.vec3i(1, 2, 3)[2] == 3
    with pytest.raises(TypeError, match="cw_mul"):
        v * v
    with pytest.raises(ValueError):
        wp.vec3(1.0, 2.0)


def test_matrices():
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m[0, 1] == 2.0 and m[1] == wp.vec2(3.0, 4.0) and np.array(m).shape == (2, 2)
    assert np.allclose(np.array(m @ m), np.array([[1, 2], [3, 4]]) @ np.array([[1, 2], [3, 4]]))
    assert np.allclose(np.array(m @ wp.vec2(1.0, 1.0)), [3.0, 7.0])
    m[1, 0] = 9.0
    assert m[1, 0] == 9.0
    assert wp.types.matrix((3, 2), wp.float64)()._shape_ == (3, 2) and ctypes.sizeof(wp.mat44d) == 128


def test_quaternions_and_transforms_in_python():
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), np.pi / 2)
    r = wp.quat_rotate(q, wp.vec3(1.0, 0.0, 0.0))
    assert np.allclose(np.array(r), [0.0, 1.0, 0.0], atol=1e-6)
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q)
    assert t.p == wp.vec3(1.0, 2.0, 3.0) and np.allclose(np.array(t.q), np.array(q))
    assert np.allclose(np.array(wp.transform_point(t, wp.vec3(1.0, 0.0, 0.0))), [1.0, 3.0, 3.0], atol=1e-6)
    assert np.allclose(np.array(q * wp.quat_inverse(q)), [0, 0, 0, 1], atol=1e-6)
    assert wp.transform_identity() == wp.transform(0, 0, 0, 0, 0, 0, 1)


def test_transform_parts_by_keyword():
    t = wp.transformf(p=(1.0, 2.0, 3.0), q=(0.0, 0.6, 0.0, 0.8))
    np.testing.assert_allclose(np.array(t), [1.0, 2.0, 3.0, 0.0, 0.6, 0.0, 0.8], rtol=1e-6)
    # an omitted part is the identity's; a positional p with a keyword q
    assert np.array(wp.transformd(p=(1.0, 2.0, 3.0))).tolist() == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]
    assert wp.transformf(wp.vec3(1.0, 2.0, 3.0), q=wp.quat_identity()) == wp.transformf(p=(1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match="unexpected keyword"):
        wp.vec3(x=1.0)
    with pytest.raises(TypeError, match="multiple values for argument 'p'"):  # as Warp words it for q
        wp.transformf(wp.vec3(), p=wp.vec3())


def test_python_scope_builtins():
    assert wp.sin(0.5) == pytest.approx(np.sin(0.5)) and wp.clamp(5, 0, 3) == 3
    assert wp.length(wp.vec3(3.0, 4.0, 0.0)) == pytest.approx(5.0)
    assert wp.dot(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0)) == pytest.approx(11.0)
    assert np.allclose(np.array(wp.cross(wp.vec3(1.0, 0.0, 0.0), wp.vec3(0.0, 1.0, 0.0))), [0, 0, 1])
    with pytest.raises(RuntimeError, match="only be called inside a kernel"):
        wp.tid()


def test_python_scalar_mod_floordiv_pow_follow_the_kernel_rules():
    import math
    import numpy as np
    # % is C's (sign of the dividend): math.fmod for floats, truncated remainder for integers
    for a, b in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (0.25, 3.0)]:
        assert (wp.float64(a) % wp.float64(b)).value == math.fmod(a, b)
        assert (wp.float64(a) // wp.float64(b)).value == math.floor(a / b)
    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2)]:
        assert (wp.int32(a) % wp.int32(b)).value == int(np.fmod(np.int32(a), np.int32(b)))
        assert (wp.int32(a) // wp.int32(b)).value == a // b
    assert (wp.int8(1) % wp.int8(0)).value == 0  # as the kernel: no trap
    assert (wp.float32(2.0) ** wp.float32(10.0)).value == 1024.0 and (3.0 ** wp.float32(2.0)).value == 9.0
    with pytest.raises(TypeError):
        wp.int32(2) ** wp.int32(3)  # Warp: integers have no **
    assert wp.step(wp.int16(-4)) == 1 and wp.step(wp.int16(4)) == 0


def test_bfloat16_bits_round_to_nearest_even_and_keep_nan():
    import numpy as np
    from warp_nb.types.scalars import bfloat16_bits_to_floats, floats_to_bfloat16_bits
    x = np.array([1.0, 1.00390625, 1.01171875, -3.14159, 65504.0, np.inf, 1e-40], dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    # oracle: round half to even on the 16 dropped bits, written out on integers
    low, high = bits & 0xFFFF, bits >> 16
    expected = np.where((low > 0x8000) | ((low == 0x8000) & ((high & 1) == 1)), high + 1, high).astype(np.uint16)
    np.testing.assert_array_equal(floats_to_bfloat16_bits(x), expected)
    nans = np.array([0x7F800001, 0x7FBFFFFF, 0xFFBFFFFF, 0x7FC00000], dtype=np.uint32).view(np.float32)
    assert np.isnan(bfloat16_bits_to_floats(floats_to_bfloat16_bits(nans))).all()
    assert wp.bfloat16(3.14).value == float(bfloat16_bits_to_floats(floats_to_bfloat16_bits([3.14]))[0])


def test_composite_element_access_is_checked_as_in_warp():
    v = wp.vec3i(1, 2, 3)
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None]
    with pytest.raises(TypeError, match="Expected to assign a `int32` value but got `str` instead"):
        v[0] = "1"
    with pytest.raises(ValueError, match="Can only assign sequence of same size"):
        v[:1] = (1, 2)
    u = wp.vec2ub(0, 0)
    u[0] = -1  # integers wrap as in C
    assert u[0] == 255 and wp.vector(2, dtype=wp.uint64)(-1, 0)[0] == 2**64 - 1
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    with pytest.raises(KeyError, match="expected one or two indices, got 3"):
        m[0, 1, 0]
    with pytest.raises(ValueError, match="Invalid number of arguments in matrix constructor, expected 4 elements, got 3"):
        wp.mat22(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="expected row of length 2"):
        wp.mat22((1.0, 2.0, 3.0), (4.0, 5.0, 6.0))
    m.set_row(1, (7.0, 8.0))
    assert m[1, 0] == 7.0 and m.get_row(1)[1] == 8.0
    with pytest.raises(IndexError):
        m.set_row(2, (0.0, 0.0))
    with pytest.raises(RuntimeError, match="NULL pointer"):
        wp.vec3.from_ptr(0)
    assert wp.vec3.from_ptr(ctypes.addressof(wp.vec3(1.0, 2.0, 3.0))) is not None


def test_scalar_numpy_dtype_protocol_and_float_comparisons():
    import numpy as np
    if np.lib.NumpyVersion(np.__version__) >= "2.4.0":
        assert np.dtype(wp.float16) == np.float16 and np.zeros(2, dtype=wp.uint8).dtype == np.uint8
    assert not hasattr(wp.bfloat16, "__numpy_dtype__")
    with pytest.raises(OverflowError):
        wp.float32(1.0) < 2**1024
    assert wp.int8(1) == 1.0 and wp.float32(2.0) != 3
    with pytest.raises(TypeError, match="Invalid constant type"):
        wp.constant((1, 2, 3))


def test_matrix_length_and_type_are_warps():
    """`_length_` is the number of scalars and `_type_` the scalar's ctype (Warp's tests size
    buffers and compute strides with them), while numpy still sees rows x cols, len(m) counts rows
    and m[i] is a row."""
    for shape, scalar, ctype in (((2, 2), wp.float32, ctypes.c_float), ((3, 4), wp.float64, ctypes.c_double),
                                 ((4, 3), wp.float32, ctypes.c_float)):
        t = wp.types.matrix(shape, scalar)
        m = t(*np.arange(shape[0] * shape[1], dtype=np.float32))
        assert t._length_ == shape[0] * shape[1] and len(m) == shape[0]
        assert t._type_ is ctype and ctypes.sizeof(t) == ctypes.sizeof(ctype) * t._length_
        assert list(m[1]) == list(range(shape[1], 2 * shape[1]))
        np.testing.assert_array_equal(np.array(m), np.arange(shape[0] * shape[1]).reshape(shape))
        full = wp.full(3, 7.0, dtype=t)
        np.testing.assert_array_equal(full.numpy(), np.full(3 * t._length_, 7.0).reshape(3, *shape))


def test_swizzles_and_missing_components_cannot_be_assigned():
    """`v.xy = ...` or `v2.z = ...` would make a plain attribute and change nothing: refused as Warp does."""
    v = wp.vec3(1.0, 2.0, 3.0)
    for name in ("xy", "xx", "xyzw", "w"):
        with pytest.raises(AttributeError, match=rf"no attribute '{name}'$"):
            setattr(v, name, 9.0)
    v.y = 7.0  # a component: written
    v.label = "kept"  # any other name: a plain attribute
    assert list(v) == [1.0, 7.0, 3.0] and v.label == "kept"


def _rotation_matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def test_transform_product_in_python_composes_the_transforms():
    rng = np.random.default_rng(2)
    qa, qb = (q / np.linalg.norm(q) for q in rng.normal(size=(2, 4)))
    pa, pb, x = rng.normal(size=(3, 3))
    ab = wp.transformd(pa, qa) * wp.transformd(pb, qb)
    # (a * b)(x) = a(b(x)) with t(x) = R(q) x + p
    ab_x = _rotation_matrix(np.array(ab)[3:]) @ x + np.array(ab)[:3]
    np.testing.assert_allclose(ab_x, _rotation_matrix(qa) @ (_rotation_matrix(qb) @ x + pb) + pa, atol=1e-12)


def test_composites_of_different_scalar_types_do_not_multiply():
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function 'mul' compatible with the arguments "
                                           r"'mat22f, mat22d'$"):
        wp.mat22f(1.0, 2.0, 3.0, 4.0) * wp.mat22d(1.0, 2.0, 3.0, 4.0)


def test_type_codes_as_warp_spells_them():
    from warp_nb._src.types import get_type_code

    assert get_type_code(tuple[float, float]) == "tpl2f4f4"
    assert get_type_code(tuple[float, wp.vec3f, wp.vec3f]) == "tpl3f4v3f4v3f4"
    assert get_type_code(tuple[wp.vec3f, ...]) == "tpl2v3f4?"
    assert get_type_code(tuple[wp.vec3f, wp.mat33f, wp.quatf]) == "tpl3v3f4m33f4qf4"
    assert get_type_code(wp.array(dtype=wp.float64, ndim=3)) == "a3f8"
    with pytest.raises(TypeError, match="Unrecognized type"):
        get_type_code(tuple[int, str])


def test_generic_type_equality_with_an_ellipsis_pattern():
    from warp_nb._src.types import types_equal_generic

    assert types_equal_generic((wp.float32, Ellipsis), (wp.float32, wp.float32, wp.float32))
    assert not types_equal_generic((wp.float32, Ellipsis), (wp.float32, wp.int32))
    with pytest.raises(TypeError, match="one type followed by Ellipsis"):
        types_equal_generic((wp.float32, wp.float64, Ellipsis), (wp.float32, wp.float32))


def test_kernel_overload_stubs_refuse_a_return_annotation():
    from typing import Any

    @wp.kernel
    def generic_noop(x: Any):
        return

    def generic_noop(x: float) -> float: ...  # noqa: F811 - the stub names the kernel it specialises

    with pytest.raises(TypeError, match="Return annotations are not allowed on @wp.overload stubs"):
        wp.overload(generic_noop)


def test_python_scope_builtin_results_take_warps_scalar_types():
    """A builtin called from Python returns what Warp returns: float32 / int32 results as Python
    numbers (rounded to float32), other scalar types as warp_nb scalars, wrapped as C wraps them; the
    oracle is numpy arithmetic in the result's own type."""
    import math

    r = wp.sin(wp.float64(1.23))
    assert type(r) is wp.float64 and float(r) == math.sin(1.23)
    r = wp.sin(wp.float32(1.23))
    assert type(r) is float and r == float(np.float32(math.sin(np.float32(1.23))))
    assert wp.sin(np.float64(1.23)) == wp.sin(wp.float64(1.23))
    r = wp.length(wp.vec2h(1.23, 2.34))
    assert type(r) is wp.float16 and abs(float(r) - math.hypot(1.23, 2.34)) < 1e-2
    big = np.array([-1234567890] * 2)
    assert wp.length_sq(wp.vec2b(*big)) == np.int8((big.astype(np.int8).astype(np.int64) ** 2).sum().astype(np.int8))
    assert int(wp.length_sq(wp.vec2l(*big))) == int((big.astype(np.int64) ** 2).sum())  # exact in 64 bits
    assert type(wp.trace(wp.mat22d(1.0, 2.0, 3.0, 4.0))) is wp.float64
    saved = wp.config.legacy_scalar_return_types
    try:
        wp.config.legacy_scalar_return_types = True
        assert type(wp.sin(wp.float64(1.23))) is float
    finally:
        wp.config.legacy_scalar_return_types = saved


def test_type_and_value_queries_split_as_in_warp_1_19():
    """type_is_X holds for types (classes, @wp.struct, wp.tile), is_X for values; an annotation object
    (wp.array(dtype=...), wp.tile(dtype=..., shape=...)) is a value, as in warp-lang 1.19 (probed)."""
    @wp.struct
    class Foo:
        x: int

    types_ = {"int": [int, wp.uint64], "float": [float, wp.float16], "vector": [wp.vec3, wp.types.vector(8, wp.uint8)],
              "matrix": [wp.mat22], "quaternion": [wp.quath], "transformation": [wp.transformd], "struct": [Foo],
              "array": [wp.array, wp.fixedarray, wp.fabricarray, wp.indexedarray], "tile": [wp.tile]}
    values = {"int": [123, wp.int16(3)], "float": [1.5, wp.float16(1.0)], "vector": [wp.vec3(1.0, 2.0, 3.0)],
              "matrix": [wp.mat22()], "quaternion": [wp.quat()], "transformation": [wp.transform()],
              "struct": [Foo()], "array": [wp.array(dtype=int), wp.array[float], wp.zeros(2, device="cpu"),
                                          wp.fixedarray(dtype=int), wp.indexedarray(dtype=wp.float16)],
              "tile": [wp.tile(dtype=float, shape=(2, 2))]}
    for kinds, is_type in ((types_, True), (values, False)):
        for kind, items in kinds.items():
            for x in items:
                for other in types_:
                    assert getattr(wp.types, f"type_is_{other}")(x) == (is_type and other == kind), (x, other)
                    assert getattr(wp.types, f"is_{other}")(x) == (not is_type and other == kind), (x, other)
    assert wp.types.type_is_value(bool) and wp.types.is_value(True) and not wp.types.is_int(True)
    assert wp.tile(dtype=float, shape=(2, 2)) == wp.tile[float, 2, 2]
