"""Vectors, matrices, quaternions and transforms as values in Python scope, as warp-lang 1.19 has them
(each case was found by tests/fuzz/values_against_warp.py): what a component read returns, which
values constructors and item assignment take, which operands operators take, equality, hashing,
text, pickling, and no numpy warnings leaking from float16 conversions."""

import pickle
import warnings

import numpy as np
import pytest

import warp_nb as wp


def test_components_read_as_warp_scalars():
    # float32, int32 and bool components are Python numbers; any other type is its Warp scalar
    assert type(wp.vec3(1, 2, 3)[0]) is float and type(wp.vec3i(1, 2, 3)[0]) is int
    d = wp.vec3d(1.0, 2.0, 3.0)
    assert type(d[0]) is wp.float64 and d[0] == 1.0 and repr(d[0]) == "float64(1.0)" and str(d[-1]) == "3.0"
    assert type(wp.vec3h(1, 2, 3)[1]) is wp.float16 and type(wp.quath().w) is wp.float16
    assert type(wp.mat22d(1, 2, 3, 4)[0, 1]) is wp.float64 and type(wp.mat22d(1, 2, 3, 4)[1][0]) is wp.float64
    assert [type(e) for e in wp.vec3us(9, 4, 3)] == [wp.uint16] * 3 and list(wp.vec3us(9, 4, 3)) == [9, 4, 3]
    assert type(wp.spatial_vectord()[0]) is wp.float64 and type(wp.spatial_vector()[0]) is float
    assert type(wp.types.vector(5, wp.int8)(1, 2, 3, 4, 5)[4]) is wp.int8
    old = wp.config.legacy_scalar_return_types
    try:
        wp.config.legacy_scalar_return_types = True
        assert type(wp.vec3d(1, 2, 3)[0]) is float and type(wp.types.vector(3, wp.int16)(1, 2, 3)[0]) is int
    finally:
        wp.config.legacy_scalar_return_types = old


def test_a_scalar_made_from_a_float_shows_its_point():
    assert repr(wp.float32(2.0)) == "float32(2.0)" and repr(wp.float32(-1)) == "float32(-1)"
    assert str(wp.float64(1.0)) == "1.0" and str(wp.float16(0)) == "0"


@pytest.mark.parametrize("make", [
    lambda: wp.vec3i(1.7, 2, 3), lambda: wp.vec3i(3.0), lambda: wp.vec2ub([3.0, 1]),
    lambda: wp.vec4ub(np.array([1, 3, 9, 9], dtype=np.float64)), lambda: wp.vec2i(wp.vec2h(3.75, -3.0)),
    lambda: wp.vec3i(wp.float32(2), 1, 1), lambda: wp.types.matrix((2, 2), wp.int32)(1, 2, 3, 4.5),
    lambda: wp.vec3('1', 1, 1), lambda: wp.vec3(None, 1, 1), lambda: wp.vec3i('1', 1, 1),
], ids=["float", "fill", "list", "numpy", "vec2h", "wp.float32", "matrix", "str", "None", "str-int"])
def test_constructors_refuse_what_is_not_a_component(make):
    # a float for an integer component is refused, not truncated; a string is not parsed, None not nan
    with pytest.raises(TypeError):
        make()


def test_item_assignment_refuses_floats_for_integers():
    v = wp.vec3i(1, 2, 3)
    with pytest.raises(TypeError, match="Expected to assign a `int32` value but got `float` instead"):
        v[0] = 1.7
    with pytest.raises(TypeError, match="Expected to assign a `int32` value but got `float32` instead"):
        v[0] = np.float32(2)
    with pytest.raises(TypeError, match="a slice from a sequence of `int32` values but got `float` instead"):
        v[0:2] = [1.5, 2]
    m = wp.types.matrix((2, 2), wp.int32)(1, 2, 3, 4)
    with pytest.raises(TypeError):
        m[0, 0] = 5.5
    with pytest.raises(TypeError, match="Expected to assign a `float32` value but got `str` instead"):
        wp.spatial_matrix()[-7, -1] = "a"  # the value is refused before the indices are looked at
    assert v == wp.vec3i(1, 2, 3)
    v[1:] = 7  # a slice is filled from a number
    assert v == wp.vec3i(1, 7, 7)


@pytest.mark.parametrize("op", [
    lambda: wp.vec3(1, 2, 3) + wp.vec3d(1, 2, 3), lambda: wp.quat(1, 2, 3, 4) + wp.vec4(1, 2, 3, 4),
    lambda: wp.vec3d(1, 2, 3) - wp.int64(2), lambda: wp.vec3i(1, 2, 3) * 2.5, lambda: wp.vec3i(1, 2, 3) * True,
    lambda: wp.mat44() % wp.types.matrix((4, 4), wp.int64)(), lambda: wp.vec2b(1, 1) * wp.float16(4),
    lambda: wp.mat22() + wp.vec4(), lambda: wp.quat() * wp.vec3(), lambda: wp.transform() * wp.quat(),
    lambda: wp.vec3ul(4, 2, 9) / wp.types.vector(3, wp.uint16)(5, 9, 5),
    lambda: wp.types.matrix((1, 2), wp.int32)(-4, 3) @ wp.types.matrix((3, 2), wp.int32)(),
], ids=["vec3f+vec3d", "quat+vec4", "vec3d-int64", "vec3i*float", "bool", "mixed-mod", "int8*float16",
        "shape", "quat*vec3", "transform*quat", "div", "matmul-shape"])
def test_operands_warp_refuses_are_refused_with_its_error(op):
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function '\w+' compatible with the arguments"):
        op()


def test_operators_warp_nb_takes():
    assert wp.vec3(1, 2, 3) * 2 == wp.vec3(2, 4, 6) and wp.vec3d(1, 2, 3) * 2.0 == wp.vec3d(2, 4, 6)
    assert 2 % wp.vec3i(1, 2, 3) == wp.vec3i(0, 0, 2) and wp.vec3i(-7, 2, 3) / 2 == wp.vec3i(-3, 1, 1)
    assert wp.vec3(1, 2, 3) @ wp.mat33(*range(9)) == wp.vec3(24, 30, 36)
    with pytest.raises(RuntimeError, match="use wp.cw_mul"):
        wp.vec3(1, 2, 3) * wp.vec3(1, 2, 3)
    for a, b in ((wp.vec3(), wp.vec3()), (wp.quat(), wp.quat()), (wp.vec3us(3, 9, 1), wp.vec3us(5, 0, 1))):
        with pytest.raises(TypeError, match="unsupported operand"):
            a @ b  # Warp has @ for matrices only
    v = wp.vec3(1, 2, 3)
    assert +v is not v and +v == v


def test_equality_takes_the_same_shape_only():
    m = wp.mat22(1, 2, 3, 4)
    assert m == [[1, 2], [3, 4]] and m != [1, 2, 3, 4] and m != np.array([1, 2, 3, 4])
    assert wp.vec3(1, 2, 3) == [1, 2, 3] and wp.vec3(1, 2, 3) != [[1], [2], [3]]


def test_composites_are_unhashable():
    for v in (wp.vec3(), wp.mat22(), wp.quat(), wp.transform(), wp.types.vector(5, wp.uint8)()):
        with pytest.raises(TypeError, match="unhashable"):
            hash(v)


def test_matrix_keys():
    m = wp.mat33(*range(9))
    with pytest.raises(KeyError, match="expected one or two indices, got 1"):
        m[(0,)]
    assert m[0, 1] == 1.0 and m[1] == wp.vec3(3, 4, 5)


def test_transform_parts_take_values():
    t = wp.transformh(-1.25, 4.5, 6.0, 4.25, 3.0, 1.0, -4.0)
    t.q = wp.quath(2.75, 5.5, -0.25, 2.0)  # the values, not the float16 bits
    t.p = wp.vec3h(1, 2, 3)
    assert list(t) == [1.0, 2.0, 3.0, 2.75, 5.5, -0.25, 2.0]
    with pytest.raises(TypeError):
        t.p = 1.0


def test_no_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(wp.vec2h(1e20, 70000.0)) == [np.inf, np.inf]
        assert wp.float16(-1e39).value == -np.inf
        assert list(wp.vec3(1, -2, 0) / 0.0)[:2] == [np.inf, -np.inf]
        assert np.isnan(list(wp.vec3(1, 2, 3) % 0.0)).all() and wp.vec3i(1, 2, 3) % 0 == wp.vec3i(0, 0, 0)


def test_type_text_as_warp_writes_it():
    assert wp.types.type_repr(wp.types.vector(5, wp.float16)) == "vector(length=5, dtype=float16)"
    assert wp.types.type_repr(wp.spatial_matrixd) == "matrix(shape=(6, 6), dtype=float64)"
    assert wp.types.type_repr(wp.types.matrix((2, 3), wp.float32)) == "mat23f"
    assert repr(wp.spatial_vector(*range(6))) == "vector(length=6, dtype=float32)([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])"
    assert wp.types.type_ctype(wp.mat22) is wp.mat22 and wp.types.type_ctype(wp.mat22)._length_ == 4


def test_any_composite_pickles():
    for v in (wp.types.vector(6, wp.uint32)(6, 0, 5, 5, 4, 4), wp.types.matrix((2, 4), wp.uint64)(*range(8)),
              wp.vec3h(1.5, 2, 3)):
        back = pickle.loads(pickle.dumps(v))
        assert type(back) is type(v) and back == v
