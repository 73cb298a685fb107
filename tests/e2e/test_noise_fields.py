"""noise, pnoise and curlnoise are Warp's fields: compared with their definition written here in
numpy (the oracle). A lattice point p of field `state` gets the gradient drawn from the random
stream started at (p0 A) ^ (p1 B) ^ ... ^ (p_last K + state) (2 randf - 1 in 1-D, the normalized
vector of randf - 0.5 draws otherwise); the value blends the corner planes with the quintic fade;
pnoise wraps lattice coordinates with C's remainder; curlnoise sums, per octave, the curl of the
potentials' gradients taken at lacunarity^o x, with Warp's chain of fields."""

import math

import numpy as np
import pytest

import warp_nb as wp
from tests.e2e.test_random_streams import MASK, pcg

pytestmark = pytest.mark.needs_cxx

PRIMES = (73856093, 19349663, 53471161, 10000019)


def lattice_gradient(state, p):
    idx = (p[-1] * PRIMES[len(p) - 1] + state) & MASK
    for i in range(len(p) - 1):
        idx ^= (p[i] * PRIMES[i]) & MASK
    draws = []
    for _ in range(len(p)):
        idx = pcg(idx)
        draws.append(float(np.float32(idx >> 8) * np.float32(2.0 ** -24)))
    if len(p) == 1:
        return np.array([2.0 * draws[0] - 1.0])
    v = np.array(draws) - 0.5
    return v / np.linalg.norm(v)


def c_rem(a, b):
    return int(math.fmod(a, b))


def noise_reference(state, x, period=None):
    x = np.asarray(x, dtype=np.float64)
    cell = np.floor(x).astype(int)
    t = x - cell
    fade = t * t * t * (t * (t * 6 - 15) + 10)
    value = 0.0
    for corner in range(1 << len(x)):
        bits = [(corner >> i) & 1 for i in range(len(x))]
        p = []
        for i, b in enumerate(bits):
            if period:
                q = c_rem(cell[i], period[i])
                p.append(c_rem(q + 1, period[i]) if b else q)
            else:
                p.append(cell[i] + b)
        weight = np.prod([fade[i] if b else 1 - fade[i] for i, b in enumerate(bits)])
        value += weight * lattice_gradient(state, p) @ (t - bits)
    return value


def gradient_reference(state, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return np.array([(noise_reference(state, x + h * e) - noise_reference(state, x - h * e)) / (2 * h)
                     for e in np.eye(len(x))])


def curl_reference(state, x, octaves, lacunarity=2.0, gain=0.5):
    x = np.asarray(x, dtype=np.float64)
    out, amp, freq, s = np.zeros(2 if len(x) == 2 else 3), 1.0, 1.0, state
    for _ in range(octaves):
        if len(x) == 2:
            g = gradient_reference(s, x * freq)
            out += amp * np.array([-g[1], g[0]])
        else:
            s2 = pcg((s + pcg(10019689)) & MASK)
            s3 = pcg((s2 + pcg(13112221)) & MASK)
            g1, g2, g3 = (gradient_reference(f, x * freq) for f in (s, s2, s3))
            out += amp * np.array([g3[1] - g2[2], g1[2] - g3[0], g2[0] - g1[1]])
            s = s3
        amp, freq = amp * gain, freq * lacunarity
    return out


@wp.kernel
def fields(seed: int, p: wp.array(dtype=wp.vec4), values: wp.array2d(dtype=float), c2: wp.array(dtype=wp.vec2),
           c3: wp.array(dtype=wp.vec3), c4: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    state = wp.rand_init(seed)
    x = p[i]
    values[i, 0] = wp.noise(state, x[0])
    values[i, 1] = wp.noise(state, wp.vec2(x[0], x[1]))
    values[i, 2] = wp.noise(state, wp.vec3(x[0], x[1], x[2]))
    values[i, 3] = wp.noise(state, x)
    values[i, 4] = wp.pnoise(state, x[0], 3)
    values[i, 5] = wp.pnoise(state, wp.vec2(x[0], x[1]), 3, 4)
    values[i, 6] = wp.pnoise(state, wp.vec3(x[0], x[1], x[2]), 3, 4, 5)
    values[i, 7] = wp.pnoise(state, x, 3, 4, 5, 2)
    c2[i] = wp.curlnoise(state, wp.vec2(x[0], x[1]), wp.uint32(3), 2.0, 0.5)
    c3[i] = wp.curlnoise(state, wp.vec3(x[0], x[1], x[2]), wp.uint32(3), 2.0, 0.5)
    c4[i] = wp.curlnoise(state, x, wp.uint32(2), 2.0, 0.5)


def test_fields_match_the_definition():
    n, seed = 12, 42
    p = np.random.default_rng(0).uniform(-4, 4, (n, 4)).astype(np.float32)
    values = wp.zeros((n, 8), dtype=float)
    c2, c3, c4 = wp.zeros(n, dtype=wp.vec2), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    wp.launch(fields, n, inputs=[seed, wp.array(p, dtype=wp.vec4), values, c2, c3, c4])
    state = pcg(seed)
    periods = (3, 4, 5, 2)
    for i in range(n):
        x = p[i].astype(np.float64)
        for k in range(4):
            assert values.numpy()[i, k] == pytest.approx(noise_reference(state, x[:k + 1]), abs=1e-6)
            assert values.numpy()[i, 4 + k] == pytest.approx(noise_reference(state, x[:k + 1], periods[:k + 1]),
                                                             abs=1e-6)
        np.testing.assert_allclose(c2.numpy()[i], curl_reference(state, x[:2], 3), atol=2e-5)
        np.testing.assert_allclose(c3.numpy()[i], curl_reference(state, x[:3], 3), atol=2e-5)
        np.testing.assert_allclose(c4.numpy()[i], curl_reference(state, x, 2), atol=2e-5)
