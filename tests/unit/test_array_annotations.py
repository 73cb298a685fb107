"""wp.array[...] annotations: their repr is their source, `|` makes Python-side unions (which kernels
refuse), `.vars` is made once, ndim=Any is a generic parameter, and a launch with the wrong array
raises Warp's RuntimeError (test_subscript_types)."""

from typing import Any, Literal, TypeVar, Union, get_origin

import numpy as np
import pytest

import warp_nb as wp
from warp_nb._src.types import Vector


@pytest.mark.parametrize("annotation, text", [
    (wp.array[wp.float32], "wp.array[wp.float32]"),
    (wp.array3d[wp.vec3], "wp.array3d[wp.vec3f]"),
    (wp.array[wp.types.vector(3, dtype=wp.float64)], "wp.array[wp.vec3d]"),
    (wp.array[float, Any], "wp.array[wp.float32, Any]"),
    (wp.indexedarray[wp.float32, Literal[3]], "wp.indexedarray[wp.float32, Literal[3]]"),
    (wp.array[wp.types.vector(5, dtype=wp.float32)], "wp.array[vector(length=5, dtype=float32)]"),
])
def test_repr_is_the_subscript_and_evaluates_back(annotation, text):
    assert repr(annotation) == text
    if "vector(" not in text:
        assert eval(text, {"wp": wp, "Any": Any, "Literal": Literal}) == annotation


def test_annotations_equal_the_factory_types_and_keep_messages():
    assert wp.array[float] == wp.array(dtype=float) and hash(wp.array[float]) == hash(wp.array(dtype=float))
    assert wp.array[float] != wp.indexedarray[float]
    assert wp.array[float].type_name() == "array(dtype=float32, ndim=1)"


def test_union_with_annotations_and_refused_in_signatures():
    u = wp.array[float] | None
    assert get_origin(u) is Union and set(u.__args__) == {wp.array[float], type(None)}
    assert (float | wp.array[float]).__args__ == (float, wp.array[float])
    with pytest.raises(RuntimeError, match="Union type annotations are only supported at Python scope"):
        @wp.func
        def f(a: int | float) -> float:  # noqa: PYI041  (the union is the point)
            return 0.0


def test_vars_are_made_once_and_typevars_give_a_generic_alias():
    a = wp.array2d[float]
    assert a.vars is a.vars and a.vars["shape"] is wp.types.vector(2, wp.int32)
    N = TypeVar("N", bound=int)
    assert get_origin(Vector[TypeVar("T"), N]) is Vector


@wp.kernel
def _count_dims(a: wp.array[float, Any], out: wp.array[int]):
    out[0] = a.ndim + wp.int32(a.shape[0])


def test_any_ndim_parameter_takes_arrays_of_any_rank():
    out = wp.zeros(1, dtype=int)
    wp.launch(_count_dims, dim=1, inputs=[wp.zeros(4), out])
    assert out.numpy()[0] == 1 + 4
    wp.launch(_count_dims, dim=1, inputs=[wp.zeros((2, 3)), out])
    assert out.numpy()[0] == 2 + 2
    with pytest.raises(RuntimeError):
        wp.launch(_count_dims, dim=1, inputs=[wp.zeros(4, dtype=int), out])


@wp.kernel
def _add(a: wp.array[float], b: wp.array[float]):
    b[wp.tid()] = a[wp.tid()] + 1.0


def test_wrong_arguments_are_runtime_errors_with_warps_words():
    with pytest.raises(RuntimeError, match=r"expects an array of type array\(ndim=1, dtype=float32\), but passed "
                                           r"value has type list"):
        wp.launch(_add, dim=1, inputs=[[1.0], wp.zeros(1)])
    with pytest.raises(TypeError):  # also a TypeError, as warp_nb raised before
        wp.launch(_add, dim=1, inputs=[wp.zeros(1, dtype=int), wp.zeros(1)])
    b = wp.zeros(3)
    wp.launch(_add, dim=3, inputs=[wp.array(np.arange(3, dtype=np.float32)), b])
    assert np.allclose(b.numpy(), [1, 2, 3])


def test_called_annotation_has_a_settable_shape_of_zeros():
    # Warp's wp.array(dtype=..., ndim=...) is a data-less array instance: shape is zeros and an
    # application may write its own labels there (MuJoCo Warp keeps ("nworld", "nbody") in it)
    a = wp.array(dtype=float, ndim=2)
    assert a.shape == (0, 0) and wp.array3d(dtype=wp.vec3).shape == (0, 0, 0)
    a.shape = ("nworld", 3)
    assert a.shape == ("nworld", 3) and a == wp.array(dtype=float, ndim=2)
    assert wp.array(dtype=float, ndim=2).shape == (0, 0)  # the label stays on that one object
    assert wp.fixedarray(shape=(2, 3), dtype=float).shape == (2, 3)
