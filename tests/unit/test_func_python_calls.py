"""A @wp.func called from Python runs as Python when an overload takes the arguments' types (a
Python float is a float32 and an int an int32, as in Warp), and is refused with Warp's RuntimeError
when every overload is typed and none does; wp.func has typing overloads for static checkers."""

import typing

import numpy as np
import pytest

import warp_nb as wp


@wp.func
def twice(x: float):
    return x * 2.0


@wp.func
def as_double(x: wp.float64):
    return x


@wp.func
def unit(v: wp.vec3):
    return wp.normalize(v)


def test_matching_arguments_run_the_python_body():
    assert twice(2.5) == 5.0
    assert float(as_double(wp.float64(1.5))) == 1.5
    np.testing.assert_allclose(np.array(unit(wp.vec3(3.0, 0.0, 4.0))), [0.6, 0.0, 0.8], rtol=1e-6)


@pytest.mark.parametrize("fn, value", [(as_double, 1.0), (unit, 1.0), (twice, 2)])
def test_arguments_no_overload_takes_are_refused(fn, value):
    with pytest.raises(RuntimeError, match=r"^Error calling function '\w+', no overload found for arguments \("):
        fn(value)


def test_func_has_overloads_for_type_checkers():
    overloads = typing.get_overloads(wp.func)
    assert len(overloads) >= 2
    assert any("Callable" in str(o.__annotations__.get("return", "")) for o in overloads)



def test_python_call_goes_through_get_overload_and_checks_the_argument_count():
    from unittest import mock

    @wp.func
    def one(x: float):
        return x + 1.0

    @wp.func
    def two(x: float, y: float = 2.0):
        return x * y

    assert two(3.0) == 6.0 and two(3.0, 4.0) == 12.0  # a default fills the missing argument
    # get_overload chooses (Warp's hook); a choice whose parameters cannot take the arguments is refused
    with mock.patch.object(two, "get_overload", return_value=one):
        with pytest.raises(RuntimeError, match=r"^Invalid number of arguments for function 'two', expected 1, got 2$"):
            two(3.0, 4.0)
