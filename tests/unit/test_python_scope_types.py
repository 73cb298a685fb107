"""How a builtin called from Python scope picks its overload, as Warp's does: a Python int is an
int32, a float a float32 and a bool a bool, exactly (in kernels they are literals that take the other
operand's type); numpy scalars are their own types. What no overload takes is refused with Warp's
RuntimeError naming the arguments' types. Also quat_identity / transform_identity's `dtype=`."""

import numpy as np
import pytest

import warp_nb as wp

OTHER_INTS = (wp.int8, wp.uint8, wp.int16, wp.uint16, wp.uint32, wp.int64, wp.uint64)


def _refused(name, types, call):
    with pytest.raises(RuntimeError, match=rf"^Couldn't find a function '{name}' compatible with the arguments "
                                           rf"'{types}'$"):
        call()


def test_a_python_int_is_an_int32():
    value = -1234567890
    expected = int(np.array(value, dtype=np.int64) * value % 2 ** 32)  # the product wrapped to int32
    expected = expected - 2 ** 32 if expected >= 2 ** 31 else expected
    for call in (lambda: wp.mul(wp.int32(value), value), lambda: wp.mul(value, np.int32(value)),
                 lambda: wp.mul(value, value)):
        assert call() == expected


@pytest.mark.parametrize("dtype", OTHER_INTS + (wp.float16, wp.float32, wp.float64), ids=lambda t: t.__name__)
def test_a_python_int_with_another_scalar_type_is_refused(dtype):
    np_type = wp.dtype_to_numpy(dtype)
    _refused("mul", f"{dtype.__name__}, int", lambda: wp.mul(dtype(3), 3))
    _refused("mul", f"int, {dtype.__name__}", lambda: wp.mul(3, dtype(3)))
    _refused("add", f"{np_type.__name__}, int", lambda: wp.add(np_type(3), 3))
    _refused("mul", f"{dtype.__name__}, bool", lambda: wp.mul(dtype(3), True))


def test_a_python_float_is_a_float32():
    assert wp.mul(wp.float32(1.5), 2.0) == 3.0
    np.testing.assert_allclose(np.array(wp.mul(wp.vec3(1.0, 2.0, 3.0), 2.0)), [2.0, 4.0, 6.0])
    _refused("mul", "float64, float", lambda: wp.mul(wp.float64(1.5), 2.0))
    _refused("mul", "vec3d, float", lambda: wp.mul(wp.vec3d(1.0, 2.0, 3.0), 2.0))
    _refused("mul", "int, float", lambda: wp.mul(3, 2.0))
    _refused("sin", "int", lambda: wp.sin(1))
    assert wp.sin(np.float64(1.0)) == pytest.approx(np.sin(1.0), rel=1e-15)  # numpy's float64 is a float64


def test_the_identity_builtins_take_a_warp_float_type_as_dtype():
    for builtin, expected in ((wp.quat_identity, [0, 0, 0, 1]), (wp.transform_identity, [0, 0, 0, 0, 0, 0, 1])):
        for args, kwargs, scalar in (((), {}, wp.float32), ((), {"dtype": None}, wp.float32),
                                     ((), {"dtype": float}, wp.float32), ((wp.float64,), {}, wp.float64),
                                     ((), {"dtype": wp.float16}, wp.float16)):
            result = builtin(*args, **kwargs)
            assert result._wp_scalar_type_ is scalar
            assert [float(x) for x in result] == expected
        for dtype in (wp.int32, wp.bool, wp.vec3f, int, np.float32, np.dtype("float64"), "float64", 7, [wp.float64]):
            _refused(builtin.key, type(dtype).__name__, lambda: builtin(dtype=dtype))


def test_ml_dtypes_bfloat16_converts_to_wp_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert wp.dtype_from_numpy(ml_dtypes.bfloat16) is wp.bfloat16
    assert wp.dtype_from_numpy(np.dtype(ml_dtypes.bfloat16)) is wp.bfloat16
    assert wp.quat_identity(dtype=wp.dtype_from_numpy(ml_dtypes.bfloat16))._wp_scalar_type_ is wp.bfloat16
