"""@wp.struct values in Python, as Warp has them: the checks (and messages) of array fields, a single
number refused for a vector or matrix field (numpy numbers and bools still fill it, with a
deprecation warning), vector fields that are views of the struct's memory, scalar fields that keep
their Warp type, instances of the user's class, no struct deriving from another, and a missing
field named in the kernel with Warp's AttributeError."""

import copy
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


@wp.struct
class WithMatrix:
    a: wp.int8
    m: wp.types.matrix((2, 3), wp.float32)
    b: wp.float32


def test_matrix_fields_keep_numpys_shape_and_are_views():
    s = WithMatrix()
    s.m = wp.types.matrix((2, 3), wp.float32)(*range(6))
    s.m[1, 2] = 9.0
    s.b = 2.5
    expected = np.arange(6.0).reshape(2, 3)
    expected[1, 2] = 9.0
    np.testing.assert_array_equal(np.array(s.m), expected)
    record = wp.array([s], dtype=WithMatrix).numpy()[0]
    assert record["m"].shape == (2, 3)
    np.testing.assert_array_equal(record["m"], expected)
    assert record["b"] == 2.5


@wp.struct
class Scalars:
    h: wp.float16
    b: wp.uint8
    c: wp.float32
    g: wp.int32
    d: wp.vec3d
    e: wp.mat22h


def test_scalar_fields_read_the_number_assigned():
    # as Warp's: a Python or numpy number reads back as given; the struct stores it converted
    s = Scalars()
    s.h, s.b, s.c, s.g = 70000.0, 300, 0.1, np.int64(2 ** 40)
    assert (s.h, s.b, s.c) == (70000.0, 300, 0.1) and type(s.g) is np.int64
    record = s.numpy_value()  # what is stored (float16 as its bits)
    stored = (wp.types.scalars.half_bits_to_float(int(record[0])), int(record[1]), float(record[2]), int(record[3]))
    assert stored == (np.inf, 44, float(np.float32(0.1)), 0)
    s.b = wp.uint8(7)  # a Warp scalar reads as a value of the field's type
    assert type(s.b) is wp.uint8 and s.b == 7
    s.h = None  # None is zero, as in Warp
    assert type(s.h) is wp.float16 and s.h == 0.0 and repr(s.h) == "float16(0)"
    assert repr(Scalars().c) == "float32(0)"


@pytest.mark.parametrize("value", [1.7, np.float32(2.0), wp.float32(1.0), "3"])
def test_an_integer_field_refuses_what_is_not_an_integer(value):
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        Scalars().g = value


def test_copies_shallow_and_deep():
    s = Scalars()
    s.g = 1
    s.d = wp.vec3d(1, 2, 3)
    c = copy.copy(s)  # shares the storage, as Warp's shallow copy does
    c.g = 5
    c.d[0] = 9.0
    assert s.g == 1 and c.g == 5 and s.numpy_value()[3] == 5 and s.d[0] == 9.0
    d = copy.deepcopy(s)
    d.g = 7
    d.d[1] = 8.0
    assert s.g == 1 and s.numpy_value()[3] == 5 and s.d[1] == 2.0 and d.d[1] == 8.0


def test_assign_repr_and_numpy_forms():
    s, other = Scalars(), Scalars()
    other.g = 4
    other.d = wp.vec3d(4, 4, 4)
    s.assign(other)
    other.d[0] = 1.0
    assert s.g == 4 and list(s.d) == [4.0, 4.0, 4.0]
    assert repr(WithMatrix()).startswith("WithMatrix(\n\ta=int8(0),\n\tm=mat23f([") and repr(WithMatrix()).endswith(
        "\n\tb=float32(0),\n)")
    # the record of a struct array's numpy(), which Warp's tests compare numpy_dtype() with (float16 as its bits)
    assert np.dtype(Scalars.numpy_dtype()) == wp.zeros(2, dtype=Scalars).numpy().dtype
    s.g = 6
    value = s.numpy_value()  # one record of that layout, what Warp's tests fill an expected array with
    assert value.dtype == np.dtype(Scalars.numpy_dtype()) and value[3] == 6 and list(value[4]) == [4.0, 4.0, 4.0]


@wp.struct
class Outer:
    inner: Scalars
    x: wp.float32


def test_a_nested_struct_is_assigned_by_value():
    o, i = Outer(), Scalars()
    i.g = 5
    o.inner = i
    i.g = 6
    assert o.inner.g == 5
    o.inner.g = 7  # a read is the stored value itself
    assert o.numpy_value()[0][3] == 7
    with pytest.raises(RuntimeError, match="expects a Scalars instance"):
        o.inner = 3
