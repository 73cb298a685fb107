"""wp.Texture1D / 2D / 3D: sampling against a numpy reference of nearest and (bi/tri)linear
interpolation under every address mode, normalised and texel-space coordinates, texel dtypes, mip
levels, gradients against finite differences, textures in structs and arrays, and bad input."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

MODES = list(wp.TextureAddressMode)
FILTERS = list(wp.TextureFilterMode)


# --- the numpy oracle ---------------------------------------------------------------------------
def _address(i, n, mode):
    """Texel index i (int array) mapped into [0, n), or -1 where BORDER reads zero."""
    if mode == wp.TextureAddressMode.WRAP:
        return np.mod(i, n)
    if mode == wp.TextureAddressMode.CLAMP:
        return np.clip(i, 0, n - 1)
    if mode == wp.TextureAddressMode.MIRROR:
        m = np.mod(i, 2 * n)
        return np.where(m < n, m, 2 * n - 1 - m)
    return np.where((i >= 0) & (i < n), i, -1)


def reference(texels, coords, normalized, linear, modes):
    """texels: (depth..., width, channels) float64 with the spatial axes in numpy order; coords: (N, ndim)
    with axis 0 = u (width). Texel i covers [i, i + 1); LINEAR blends the two nearest texel centres."""
    ndim = coords.shape[1]
    sizes = texels.shape[:ndim][::-1]  # width, height, depth
    per_axis = []
    for k in range(ndim):
        x = coords[:, k].astype(np.float64) * (sizes[k] if normalized else 1.0)
        if linear:
            x = x - 0.5
            i0 = np.floor(x).astype(np.int64)
            f = x - i0
            per_axis.append([(_address(i0, sizes[k], modes[k]), 1.0 - f), (_address(i0 + 1, sizes[k], modes[k]), f)])
        else:
            per_axis.append([(_address(np.floor(x).astype(np.int64), sizes[k], modes[k]), np.ones(len(x)))])
    out = np.zeros((len(coords), texels.shape[-1]))
    for corner in np.ndindex(*[len(p) for p in per_axis]):
        weight = np.ones(len(coords))
        index = []
        valid = np.ones(len(coords), dtype=bool)
        for k, c in enumerate(corner):
            i, w = per_axis[k][c]
            weight = weight * w
            valid &= i >= 0
            index.append(np.maximum(i, 0))
        values = texels[tuple(index[::-1])]  # numpy order: depth, height, width
        out += np.where(valid[:, None], weight[:, None] * values, 0.0)
    return out


TEXTURES = {1: wp.Texture1D, 2: wp.Texture2D, 3: wp.Texture3D}
COORD_TYPES = {1: float, 2: wp.vec2f, 3: wp.vec3f}


def _sampler(ndim, channels):
    out_type = {1: float, 2: wp.vec2f, 4: wp.vec4f}[channels]

    @wp.kernel(module="unique")
    def sample(tex: TEXTURES[ndim], coords: wp.array(dtype=COORD_TYPES[ndim]), out: wp.array(dtype=out_type)):
        i = wp.tid()
        out[i] = wp.texture_sample(tex, coords[i], dtype=out_type)

    return sample


_SAMPLERS = {(n, c): _sampler(n, c) for n in (1, 2, 3) for c in (1, 2, 4)}


def _sample(tex, coords, channels=1):
    ndim = coords.shape[1]
    out_type = {1: float, 2: wp.vec2f, 4: wp.vec4f}[channels]
    pts = wp.array(coords[:, 0] if ndim == 1 else coords, dtype=COORD_TYPES[ndim])
    out = wp.zeros(len(coords), dtype=out_type)
    wp.launch(_SAMPLERS[(ndim, channels)], len(coords), inputs=[tex, pts, out])
    return out.numpy().reshape(len(coords), channels)


# --- values -------------------------------------------------------------------------------------
@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("filter_mode", FILTERS)
@pytest.mark.parametrize("normalized", [True, False])
def test_sampling_matches_numpy_reference(ndim, mode, filter_mode, normalized):
    rng = np.random.default_rng(ndim * 100 + int(mode) * 10 + int(filter_mode))
    shape = (5, 4, 3)[:ndim][::-1]  # numpy order; width 5, height 4, depth 3
    data = rng.standard_normal(shape).astype(np.float32)
    sizes = np.array((5, 4, 3)[:ndim], dtype=np.float64)
    # points inside, near the edges and beyond them (two periods out), away from texel boundaries
    texel = rng.uniform(-2.2, 2.2, size=(200, ndim)) * sizes
    texel = np.round(texel * 8.0) / 8.0 + 1.0 / 16.0
    coords = (texel / sizes if normalized else texel).astype(np.float32)
    tex = TEXTURES[ndim](data, filter_mode=filter_mode, address_mode=mode, normalized_coords=normalized)
    expected = reference(data[..., None].astype(np.float64), coords, normalized,
                         filter_mode == wp.TextureFilterMode.LINEAR, [mode] * ndim)
    np.testing.assert_allclose(_sample(tex, coords), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("channels", [2, 4])
def test_multichannel_bilinear_with_per_axis_modes(channels):
    rng = np.random.default_rng(channels)
    data = rng.uniform(-1, 1, size=(6, 7, channels)).astype(np.float32)
    modes = (wp.TextureAddressMode.MIRROR, wp.TextureAddressMode.BORDER)
    tex = wp.Texture2D(data, address_mode=modes)
    assert (tex.address_mode_u, tex.address_mode_v) == modes and tex.num_channels == channels
    coords = rng.uniform(-0.7, 1.7, size=(300, 2)).astype(np.float32)
    expected = reference(data.astype(np.float64), coords, True, True, modes)
    np.testing.assert_allclose(_sample(tex, coords, channels), expected, rtol=1e-5, atol=1e-5)


def test_texel_centres_return_texels_exactly():
    data = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    z, y, x = np.meshgrid(*[np.arange(n) for n in data.shape], indexing="ij")
    coords = np.stack([(x.ravel() + 0.5) / 5, (y.ravel() + 0.5) / 4, (z.ravel() + 0.5) / 3], axis=1).astype(np.float32)
    for f in FILTERS:
        tex = wp.Texture3D(data, filter_mode=f)
        np.testing.assert_allclose(_sample(tex, coords)[:, 0], data.ravel(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("np_dtype,scale", [(np.uint8, 255.0), (np.uint16, 65535.0), (np.int8, 127.0),
                                            (np.int16, 32767.0), (np.float16, 1.0), (np.int32, 1.0),
                                            (np.uint32, 1.0)])
def test_texel_dtypes_read_as_documented(np_dtype, scale):
    info = np.iinfo(np_dtype) if np.issubdtype(np_dtype, np.integer) else None
    values = [0, 1, info.max, info.min + (1 if info.min < 0 else 0)] if info else [0.0, 0.5, -2.0, 1000.0]
    data = np.array(values, dtype=np_dtype)
    tex = wp.Texture1D(data, filter_mode=wp.TextureFilterMode.CLOSEST)
    assert tex.dtype is wp.dtype_from_numpy(np.dtype(np_dtype))
    got = _sample(tex, ((np.arange(4) + 0.5) / 4).astype(np.float32)[:, None])[:, 0]
    np.testing.assert_allclose(got, (data.astype(np.float64) / scale).astype(np.float32), rtol=1e-6)


def test_uint8_bilinear_interpolates_normalised_values():
    data = np.array([[0, 255], [51, 102]], dtype=np.uint8)
    tex = wp.Texture2D(data)
    coords = np.array([[0.5, 0.5], [0.5, 0.25], [0.25, 0.6]], dtype=np.float32)
    expected = reference(data[..., None] / 255.0, coords, True, True, [wp.TextureAddressMode.CLAMP] * 2)
    np.testing.assert_allclose(_sample(tex, coords), expected, rtol=1e-6, atol=1e-6)
