"""Regression tests for what the bad-input corpus (tests/bad_input) found: each bad input gets a
clear error that names the user's line, instead of an internal error, a silent conversion or
silence."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def test_string_operands_in_a_kernel_get_the_builtins_error():
    @wp.kernel
    def compare_strings(a: wp.array(dtype=float)):
        i = wp.tid()
        if "a" == "b":
            a[i] = 1.0

    with pytest.raises(TypeError) as err:
        wp.launch(compare_strings, dim=1, inputs=[wp.zeros(1)])
    message = str(err.value)
    assert "string" in message and "has no attribute" not in message
    line = _line_of(compare_strings, "if \"a\"")
    assert f"line {line}" in message


def test_a_bad_parameter_annotation_names_its_line_before_the_arguments_are_judged():
    @wp.kernel
    def takes_a_list(a: list,
                     b: wp.array(dtype=str)):
        i = wp.tid()

    with pytest.raises(TypeError) as err:
        wp.launch(takes_a_list, dim=1, inputs=[[1.0], 2])
    message = str(err.value)
    assert "list" in message and "declared Any" not in message
    assert f"line {_line_of(takes_a_list, 'def takes_a_list')}" in message


def test_an_array_of_a_non_element_dtype_is_refused_at_its_parameter():
    @wp.kernel
    def array_of_str(x: float,
                     a: wp.array(dtype=str)):
        i = wp.tid()

    with pytest.raises(TypeError) as err:
        wp.launch(array_of_str, dim=1, inputs=[1.0, wp.zeros(1)])
    assert "array of str" in str(err.value)
    assert f"line {_line_of(array_of_str, 'a: wp.array(dtype=str)')}" in str(err.value)


def test_vector_and_matrix_types_of_bad_dtype_or_size_are_clear_errors():
    with pytest.raises(TypeError, match="holds scalars"):
        wp.types.vector(length=3, dtype=str)
    with pytest.raises(ValueError, match="non-negative int"):
        wp.types.vector(length=-1, dtype=float)
    with pytest.raises(TypeError, match="holds scalars"):
        wp.types.matrix(shape=(2, 2), dtype=dict)


def test_a_literal_is_not_broadcast_into_a_vector_variable():
    @wp.kernel
    def retype(a: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        v = wp.vec3(1.0, 2.0, 3.0)
        v = 1.0
        a[i] = v

    with pytest.raises(TypeError, match="keeps one type") as err:
        wp.launch(retype, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3)])
    assert f"line {_line_of(retype, 'v = 1.0')}" in str(err.value)


def test_a_float_variable_still_takes_an_int_literal():
    @wp.kernel
    def reset(a: wp.array(dtype=float)):
        i = wp.tid()
        x = a[i]
        x = 0
        a[i] = x + 2.0

    a = wp.full(3, 5.0)
    wp.launch(reset, dim=3, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.full(3, 2.0, dtype=np.float32))


def test_data_holding_none_is_refused_not_turned_into_nan():
    with pytest.raises(TypeError, match="None"):
        wp.from_numpy(np.array([None, None]))
    np.testing.assert_array_equal(wp.array(np.array([1.0, 2.0], dtype=object)).numpy(), [1.0, 2.0])


def test_tape_backward_refuses_a_loss_that_is_not_a_one_element_array():
    tape = wp.Tape()
    with pytest.raises(TypeError, match="wp.array"):
        tape.backward(loss=np.zeros(1))
    with pytest.raises(TypeError, match="wp.array"):
        tape.backward(loss=1.0)
    with pytest.raises(ValueError, match="single-element"):
        tape.backward(loss=wp.zeros(4, requires_grad=True))


def test_launch_inputs_must_be_a_list():
    @wp.kernel
    def one(a: wp.array(dtype=float)):
        i = wp.tid()

    with pytest.raises(TypeError, match="inputs must be a list"):
        wp.launch(one, dim=1, inputs=5)


def test_a_bad_struct_field_names_its_line():
    with pytest.raises(TypeError) as err:
        @wp.struct
        class Holder:
            ok: float
            items: list

    assert "field `items`" in str(err.value)
    assert f"line {_line_of(test_a_bad_struct_field_names_its_line, 'items: list')}" in str(err.value)
