"""Type subscripts and factories refuse what names no type, with Warp's words (test_subscript_types)."""

from typing import Literal

import numpy as np
import pytest

import warp_nb as wp
from warp_nb._src.types import Matrix, Vector


def test_good_subscripts_name_the_same_types_as_the_factories():
    assert Vector[wp.float32, Literal[3]] is wp.types.vector(3, wp.float32)
    assert Vector[wp.float64, np.int32(4)] is wp.vec4d  # a numpy integer is an integer
    assert Matrix[wp.float32, 2, Literal[3]] is wp.types.matrix((2, 3), wp.float32)
    assert wp.array[float, Literal[2]].ndim == 2 and wp.array2d[float].ndim == 2


@pytest.mark.parametrize("make, error, words", [
    (lambda: wp.types.matrix((2,), wp.float32), ValueError, r"exactly two dimensions, got 1 dimension in shape \(2,\)"),
    (lambda: wp.types.matrix((2, 2, 2), wp.float32), ValueError, r"got 3 dimensions"),
    (lambda: Vector[float], TypeError, r"requires 2 parameters"),
    (lambda: Matrix[float, 3], TypeError, r"requires 3 parameters"),
    (lambda: Vector[float, 0], TypeError, r"positive integer"),
    (lambda: Matrix[float, -1, 3], TypeError, r"positive integer"),
    (lambda: Vector[float, Literal[2, 3]], TypeError, r"single Literal value"),
    (lambda: wp.array[float, Literal[1, 2]], TypeError, r"single Literal value"),
    (lambda: wp.array[float, 5], ValueError, r"ndim must be between 1 and 4"),
    (lambda: wp.array2d[float, Literal[2]], TypeError, r"single type parameter"),
    (lambda: wp.tile[()], TypeError, r"requires at least a dtype"),
    (lambda: wp.tile[float, -1, 4], TypeError, r"positive integer"),
])
def test_bad_subscripts_are_refused_with_what_is_wrong(make, error, words):
    with pytest.raises(error, match=words):
        make()


def test_an_annotation_has_a_null_descriptor_and_tiles_have_type_codes():
    """warp-lang 1.19 (probed): an annotation is a data-less array whose __ctype__ is all zeros; tile
    codes are t, the storage's letter, the extents (? for any) and the dtype's code."""
    from warp_nb._src.types import get_type_code
    for ann in (wp.array[float], wp.array2d[wp.vec3], wp.indexedarray[wp.float64]):
        raw = bytes(ann.__ctype__())
        assert raw and not any(raw)
    assert get_type_code(wp.tile[float]) == "tr?f4"
    assert get_type_code(wp.tile[float, 8, 4]) == "tr84f4"
    assert get_type_code(wp.tile[wp.vec3, 8]) == "tr8v3f4"


def test_struct_vars_and_texture_type_codes():
    """Warp's Struct.vars (label and type of each field) and its codes of textures: t1, t2, t3."""
    from warp_nb._src.types import get_type_code

    @wp.struct
    class Holder:
        x: float
        values: wp.indexedarray(dtype=float)

    assert Holder.vars["values"].type == wp.indexedarray[float] and Holder.vars["x"].label == "x"
    assert [get_type_code(wp.array[t]) for t in (wp.Texture1D, wp.Texture2D, wp.Texture3D)] == ["a1t1", "a1t2", "a1t3"]
    assert get_type_code(wp.array(dtype=wp.Texture2D)) == get_type_code(wp.array[wp.Texture2D])
