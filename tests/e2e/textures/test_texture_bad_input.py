"""Bad input to textures: each refused with an error that names what was wrong."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@pytest.mark.parametrize("make,error,match", [
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=np.float64)), TypeError, "data of dtype float64"),
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=bool)), TypeError, "data of dtype bool"),
    (lambda: wp.Texture1D(width=4, dtype=wp.vec3f), TypeError, "texture dtype"),
    (lambda: wp.Texture2D(np.zeros((2, 3, 4, 2), dtype=np.float32)), ValueError, r"shape \(2, 3, 4, 2\)"),
    (lambda: wp.Texture3D(np.zeros((4, 4), dtype=np.float32)), ValueError, "has 2 dimensions"),
    (lambda: wp.Texture2D(np.zeros((4, 4, 3), dtype=np.float32)), ValueError, "3 channels"),
    (lambda: wp.Texture2D(np.zeros((0, 4), dtype=np.float32)), ValueError, "empty"),
    (lambda: wp.Texture1D(np.zeros(0, dtype=np.uint8)), ValueError, "empty"),
    (lambda: wp.Texture2D(width=0, height=4), ValueError, "width, height"),
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=np.float32), num_mip_levels=4), ValueError, "num_mip_levels"),
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=np.float32), num_mip_levels=-1), ValueError, "num_mip_levels"),
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=np.float32), filter_mode=5), ValueError, "filter mode"),
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=np.float32), address_mode="wrap"), ValueError, "address mode"),
    (lambda: wp.Texture2D(np.zeros((4, 4), dtype=np.float32), address_mode=(0, 1, 2)), ValueError, "address_mode"),
    (lambda: wp.Texture1D(np.zeros(4, dtype=np.int32), filter_mode=wp.TextureFilterMode.LINEAR), ValueError,
     "filter_mode must be .*CLOSEST"),
])
def test_bad_construction_is_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()


@wp.kernel
def takes_2d(tex: wp.Texture2D, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(tex, wp.vec2f(0.5, 0.5), dtype=float)


def test_launch_with_the_wrong_texture_names_the_argument():
    out = wp.zeros(1, dtype=float)
    with pytest.raises(TypeError, match="argument `tex`.*Texture2D.*Texture3D"):
        wp.launch(takes_2d, 1, inputs=[wp.Texture3D(np.zeros((2, 2, 2), dtype=np.float32)), out])
    with pytest.raises(TypeError, match="tex"):
        wp.launch(takes_2d, 1, inputs=[None, out])


def test_wrong_coordinates_or_result_type_are_type_errors():
    @wp.kernel(module="unique")
    def bad_coords(tex: wp.Texture2D, out: wp.array(dtype=float)):
        out[0] = wp.texture_sample(tex, wp.vec3f(0.5, 0.5, 0.5), dtype=float)

    @wp.kernel(module="unique")
    def bad_dtype(tex: wp.Texture2D, out: wp.array(dtype=float)):
        out[0] = wp.texture_sample(tex, wp.vec2f(0.5, 0.5), dtype=wp.vec3d)[0]

    tex, out = wp.Texture2D(np.zeros((2, 2), dtype=np.float32)), wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelTypeError, match="texture_sample"):
        wp.launch(bad_coords, 1, inputs=[tex, out])
    with pytest.raises(wp.KernelTypeError, match="dtype"):
        wp.launch(bad_dtype, 1, inputs=[tex, out])


def test_copy_checks_shape_dtype_and_mips():
    tex = wp.Texture2D(np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"texture shape=\(2, 3\), source shape=\(3, 2\)"):
        tex.copy_from(np.zeros((3, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="destination dtype=uint8"):
        tex.copy_to(np.zeros((2, 3), dtype=np.uint8))
    mipped = wp.Texture2D(np.zeros((4, 4), dtype=np.float32), num_mip_levels=2)
    with pytest.raises(RuntimeError, match="mipmapped"):
        mipped.copy_from(np.zeros((4, 4), dtype=np.float32))


def test_struct_field_refuses_a_non_texture():
    @wp.struct
    class Holder:
        tex: wp.Texture1D

    h = Holder()
    with pytest.raises(TypeError, match="field 'tex' of Holder.*Texture1D"):
        h.tex = np.zeros(3)
