"""Texture mip levels (sizes, box-filtered levels, lod blending) and gradients of wp.texture_sample
in its coordinates and in lod, against numpy references and central finite differences; textures
as struct fields and array elements."""

import numpy as np
import pytest

import warp_nb as wp

from .test_textures import reference

pytestmark = pytest.mark.needs_cxx

CLAMP = wp.TextureAddressMode.CLAMP


@wp.kernel
def sample_2d_lod(tex: wp.Texture2D, uv: wp.array(dtype=wp.vec2f), lod: wp.array(dtype=float),
                  out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(tex, uv[i], dtype=float, lod=lod[i])


@wp.kernel
def sample_3d_scalar_coords(tex: wp.Texture3D, u: wp.array(dtype=float), v: wp.array(dtype=float),
                            w: wp.array(dtype=float), out: wp.array(dtype=wp.vec2f)):
    i = wp.tid()
    out[i] = wp.texture_sample(tex, u[i], v[i], w[i], dtype=wp.vec2f)


def _box_level(level):
    """One mip level down for even sizes: the mean of each 2x2 block (written independently of the library)."""
    h, w = level.shape
    return level.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


def _run_2d_lod(tex, uv, lod, grads=False):
    uv_a = wp.array(uv, dtype=wp.vec2f, requires_grad=grads)
    lod_a = wp.array(lod, dtype=float, requires_grad=grads)
    out = wp.zeros(len(lod), dtype=float, requires_grad=grads)
    tape = wp.Tape()
    with tape:
        wp.launch(sample_2d_lod, len(lod), inputs=[tex, uv_a, lod_a, out])
    if not grads:
        return out.numpy()
    tape.backward(grads={out: wp.ones_like(out)})
    return out.numpy(), uv_a.grad.numpy(), lod_a.grad.numpy()


def test_full_mip_chain_sizes_and_levels():
    data = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    tex = wp.Texture2D(data, num_mip_levels=0)
    assert tex.num_mip_levels == 5 and tex.is_mipmapped  # 16 -> 8 -> 4 -> 2 -> 1 on the longest axis
    levels = tex._generate_mipmap_chain(data)
    assert [lv.shape for lv in levels] == [(8, 16), (4, 8), (2, 4), (1, 2), (1, 1)]
    np.testing.assert_allclose(levels[1], _box_level(data), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(levels[4], [[data.mean()]], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mip_filter", list(wp.TextureFilterMode))
def test_lod_selects_and_blends_levels(mip_filter):
    rng = np.random.default_rng(2)
    data = rng.standard_normal((8, 8)).astype(np.float32)
    tex = wp.Texture2D(data, num_mip_levels=3, mip_filter_mode=mip_filter)
    levels = [data.astype(np.float64)]
    for _ in range(2):
        levels.append(_box_level(levels[-1]))
    uv = rng.uniform(0.05, 0.95, size=(40, 2)).astype(np.float32)
    lod = np.tile(np.array([-1.0, 0.0, 0.25, 0.5, 1.0, 1.75, 2.0, 5.0], dtype=np.float32), 5)
    per_level = [reference(lv[..., None], uv, True, True, [CLAMP, CLAMP])[:, 0] for lv in levels]
    clamped = np.clip(lod, 0.0, 2.0)
    if mip_filter == wp.TextureFilterMode.LINEAR:
        l0 = np.minimum(np.floor(clamped).astype(int), 1)
        f = clamped - l0
        expected = np.choose(l0, per_level) * (1 - f) + np.choose(l0 + 1, per_level) * f
    else:
        expected = np.choose(np.floor(clamped + 0.5).astype(int), per_level)
    np.testing.assert_allclose(_run_2d_lod(tex, uv, lod), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", list(wp.TextureAddressMode))
def test_coordinate_and_lod_gradients_match_finite_differences(mode):
    rng = np.random.default_rng(int(mode))
    data = rng.standard_normal((16, 16)).astype(np.float32)
    tex = wp.Texture2D(data, address_mode=mode, num_mip_levels=3)
    # points on a 1/64-texel grid offset from every level's texel boundaries; fractional lods only
    uv = ((rng.integers(-20, 52, size=(30, 2)) * 0.5 + 0.3) / 16.0).astype(np.float32)
    lod = rng.choice(np.array([0.25, 0.6, 1.3, 1.8], dtype=np.float32), size=30)
    _, g_uv, g_lod = _run_2d_lod(tex, uv, lod, grads=True)
    h = np.float32(1.0 / 1024.0)
    for axis in range(2):
        step = np.zeros(2, dtype=np.float32)
        step[axis] = h
        fd = (_run_2d_lod(tex, uv + step, lod) - _run_2d_lod(tex, uv - step, lod)) / (2 * h)
        np.testing.assert_allclose(g_uv[:, axis], fd, rtol=2e-3, atol=2e-2)
    hl = np.float32(0.05)
    fd_lod = (_run_2d_lod(tex, uv, lod + hl) - _run_2d_lod(tex, uv, lod - hl)) / (2 * hl)
    np.testing.assert_allclose(g_lod, fd_lod, rtol=1e-3, atol=1e-3)


def test_scalar_coordinate_form_and_vector_result_gradients():
    rng = np.random.default_rng(3)
    data = rng.standard_normal((3, 4, 5, 2)).astype(np.float32)
    tex = wp.Texture3D(data, normalized_coords=False, address_mode=wp.TextureAddressMode.WRAP)
    pts = (rng.integers(-8, 20, size=(20, 3)) * 0.5 + 0.2).astype(np.float32)
    seed = np.array([0.7, -1.3], dtype=np.float32)

    def run(p, grads=False):
        arrs = [wp.array(p[:, k].copy(), dtype=float, requires_grad=grads) for k in range(3)]
        out = wp.zeros(len(p), dtype=wp.vec2f, requires_grad=grads)
        tape = wp.Tape()
        with tape:
            wp.launch(sample_3d_scalar_coords, len(p), inputs=[tex, *arrs, out])
        if grads:
            tape.backward(grads={out: wp.array(np.tile(seed, (len(p), 1)), dtype=wp.vec2f)})
            return [a.grad.numpy() for a in arrs]
        return out.numpy() @ seed

    expected = reference(data.astype(np.float64), pts, False, True, [wp.TextureAddressMode.WRAP] * 3)
    np.testing.assert_allclose(run(pts), expected @ seed, rtol=1e-5, atol=1e-5)
    grads = run(pts, grads=True)
    h = np.float32(1.0 / 64.0)
    for axis in range(3):
        step = np.zeros(3, dtype=np.float32)
        step[axis] = h
        fd = (run(pts + step) - run(pts - step)) / (2 * h)
        np.testing.assert_allclose(grads[axis], fd, rtol=1e-3, atol=1e-3)


@wp.struct
class Material:
    albedo: wp.Texture2D
    gain: float


@wp.kernel
def shade(m: Material, textures: wp.array(dtype=wp.Texture1D), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = m.gain * wp.texture_sample(m.albedo, wp.vec2f(0.25, 0.75), dtype=float) + wp.texture_sample(
        textures[i], 0.5, dtype=float) + float(textures[i].width)


def test_textures_in_structs_and_arrays():
    data = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    m = Material()
    m.albedo = wp.Texture2D(data, filter_mode=wp.TextureFilterMode.CLOSEST)
    m.gain = 2.0
    assert m.albedo.width == 2
    ones = [wp.Texture1D(np.full(n, float(n), dtype=np.float32)) for n in (1, 3, 6)]
    arr = wp.array(ones, dtype=wp.Texture1D)
    out = wp.zeros(3, dtype=float)
    wp.launch(shade, 3, inputs=[m, arr, out])
    np.testing.assert_allclose(out.numpy(), [2 * 3.0 + 1 + 1, 2 * 3.0 + 3 + 3, 2 * 3.0 + 6 + 6])


def test_copy_round_trip_keeps_the_original_dtype():
    data = np.array([[1, 2, 3], [4, 5, 4294967295]], dtype=np.uint32)
    tex = wp.Texture2D(data)
    dst = np.zeros_like(data)
    tex.copy_to(dst)
    np.testing.assert_array_equal(dst, data)
    tex.copy_from(data[::-1].copy())
    out = wp.zeros(data.shape, dtype=wp.uint32)
    tex.copy_to(out)
    np.testing.assert_array_equal(out.numpy(), data[::-1])
