"""@wp.struct values in Python, as Warp has them: the checks (and messages) of array fields, a single
number refused for a vector or matrix field (numpy numbers and bools still fill it, with a
deprecation warning), vector fields that are views of the struct's memory, scalar fields that keep
their Warp type, instances of the user's class, no struct deriving from another, and a missing
field named in the kernel with Warp's AttributeError."""

import warnings

import numpy as np
import pytest

import warp_nb as wp


@wp.struct
class Fields:
    values: wp.array(dtype=wp.int32)
    grid: wp.array2d(dtype=wp.int32)
    v: wp.vec3
    m: wp.mat22
    u8: wp.uint8
    f64: wp.float64


def test_array_fields_are_checked_with_warps_messages():
    s = Fields()
    with pytest.raises(TypeError, match=r"Struct field 'values' expects a Warp array, got list"):
        s.values = [1, 2, 3]
    with pytest.raises(TypeError, match=r"Struct field 'values' expects dtype int32, got float32"):
        s.values = wp.array([1.0], dtype=wp.float32)
    with pytest.raises(TypeError, match=r"Struct field 'grid' expects an array with 2 dimension\(s\), got 1 "):
        s.grid = wp.array([1], dtype=wp.int32)
    s.values = wp.array([4, 5], dtype=wp.int32)
    np.testing.assert_array_equal(s.values.numpy(), [4, 5])
    s.values = None
    assert s.values is None


@pytest.mark.parametrize("value", [123, 1.5, wp.float32(1.5), wp.int32(2)])
def test_a_single_number_is_refused_for_a_composite_field(value):
    s = Fields()
    with pytest.raises(TypeError, match=r"Struct field 'v' expects vec3f but got a single value"):
        s.v = value
    with pytest.raises(TypeError, match=r"Struct field 'm' expects mat22f but got a single value"):
        s.m = value


@pytest.mark.parametrize("value", [True, np.bool_(True), np.float32(1.5), np.int64(3)])
def test_numpy_numbers_and_bools_fill_with_a_deprecation_warning(value):
    s = Fields()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s.v = value
    assert any(issubclass(w.category, DeprecationWarning) and "struct field 'v'" in str(w.message) for w in caught)
    np.testing.assert_array_equal(np.array(s.v), np.full(3, float(value), dtype=np.float32))


def test_sequences_and_none_still_convert():
    s = Fields()
    s.v = [4.0, 5.0, 6.0]
    np.testing.assert_array_equal(np.array(s.v), [4.0, 5.0, 6.0])
    s.m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(np.array(s.m).reshape(2, 2), [[1.0, 2.0], [3.0, 4.0]])
    s.v = None
    np.testing.assert_array_equal(np.array(s.v), np.zeros(3))


def test_vector_fields_are_views_of_the_struct():
    s = Fields()
    s.v[0] = 1.0
    s.v[2] = 3.0
    s.m[1, 0] = 7.0
    np.testing.assert_array_equal(np.array(s.v), [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(np.array(s.m).reshape(2, 2), [[0.0, 0.0], [7.0, 0.0]])
    arr = wp.array([s], dtype=Fields)  # the bytes copied into an array carry the written components
    np.testing.assert_array_equal(arr.numpy()["v"][0], [1.0, 0.0, 3.0])


def test_scalar_fields_keep_their_type():
    s = Fields()
    assert isinstance(s.u8, wp.uint8) and isinstance(s.f64, wp.float64)
    s.u8 = wp.uint8(7)
    assert isinstance(s.u8, wp.uint8) and int(s.u8) == 7
    s.f64 = 1.5
    assert type(s.f64) is float and s.f64 == 1.5
    s.f64 = wp.float64(2.25)
    assert isinstance(s.f64, wp.float64) and float(s.f64) == 2.25


def test_instances_are_instances_of_the_users_class():
    s = Fields()
    assert isinstance(s, Fields.cls)


def test_a_struct_cannot_derive_from_a_struct():
    with pytest.raises(RuntimeError, match=r"Warp structs must be defined as base classes$"):
        @wp.struct
        class Child(Fields):
            extra: int


def test_a_missing_field_is_warps_attribute_error():
    @wp.kernel(module="unique")
    def read_missing(s: Fields):
        _ = s.nonexisting

    with pytest.raises(AttributeError, match=r"`nonexisting` is not an attribute of 's' \([\w.]+\.Fields\)$") as e:
        wp.launch(read_missing, dim=1, inputs=[Fields()])
    assert "the fields of Fields are: values, grid, v, m, u8, f64" in str(e.value)
