"""Random streams as Warp draws them: every draw replaces the uint32 state by the PCG hash of
Jarzynski and Olano (JCGT 2020), rand_init(seed, offset) = hash(seed + hash(offset)) and
rand_init(seed) = hash(seed). The kernels' numbers are compared, bit for bit, with that
definition written here in plain Python (the oracle), for every draw function; Warp's own
test_rand compares the same streams with numbers taken from warp-lang."""

import math

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

MASK = 0xFFFFFFFF


def pcg(x: int) -> int:
    state = (x * 747796405 + 2891336453) & MASK
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & MASK
    return ((word >> 22) ^ word) & MASK


class Stream:
    """The Python oracle: one state, advanced by pcg at each draw."""

    def __init__(self, seed: int, offset: int | None = None):
        self.state = pcg(seed & MASK) if offset is None else pcg((seed + pcg(offset)) & MASK)

    def u(self) -> int:
        self.state = pcg(self.state)
        return self.state

    def f(self) -> np.float32:
        return np.float32(self.u() >> 8) * np.float32(2.0 ** -24)

    def poisson(self, lam: float) -> int:
        if lam < 10.0:
            limit, p, k = np.float32(math.exp(-lam)), np.float32(1.0), 0
            while True:
                p = np.float32(p * self.f())
                if p <= limit:
                    return k
                k += 1
        b = 0.931 + 2.53 * math.sqrt(lam)
        a = -0.059 + 0.02483 * b
        inv_alpha, v_r = 1.1239 + 1.1328 / (b - 3.4), 0.9277 - 3.6224 / (b - 2.0)
        while True:
            u, v = float(self.f()) - 0.5, float(self.f())
            us = 0.5 - abs(u)
            if us <= 0.0:
                continue
            k = math.floor((2.0 * a / us + b) * u + lam + 0.43)
            if k < 0:
                continue
            if us >= 0.07 and v <= v_r:
                return k
            if us < 0.013 and v > us:
                continue
            if math.log(v * inv_alpha / (a / (us * us) + b)) <= -lam + k * math.log(lam) - math.lgamma(k + 1):
                return k


@wp.kernel
def draw_all(seed: int, ints: wp.array2d(dtype=wp.int32), uints: wp.array2d(dtype=wp.uint32),
             floats: wp.array2d(dtype=wp.float32), counts: wp.array2d(dtype=wp.uint32)):
    i = wp.tid()
    s = wp.rand_init(seed, i)
    ints[i, 0] = wp.randi(s)
    ints[i, 1] = wp.randi(s, -37, 55)
    uints[i, 0] = wp.randu(s)
    uints[i, 1] = wp.randu(s, wp.uint32(5), wp.uint32(1000))
    floats[i, 0] = wp.randf(s)
    floats[i, 1] = wp.randf(s, -3.0, 7.0)
    floats[i, 2] = wp.randn(s)
    t = wp.rand_init(i)
    floats[i, 3] = wp.randf(t)
    counts[i, 0] = wp.poisson(s, 3.5)
    counts[i, 1] = wp.poisson(s, 40.0)


def test_streams_match_the_pcg_definition():
    n, seed = 300, 42
    ints, uints = wp.zeros((n, 2), dtype=wp.int32), wp.zeros((n, 2), dtype=wp.uint32)
    floats, counts = wp.zeros((n, 4), dtype=wp.float32), wp.zeros((n, 2), dtype=wp.uint32)
    wp.launch(draw_all, n, inputs=[seed, ints, uints, floats, counts])
    ints, uints, floats, counts = ints.numpy(), uints.numpy(), floats.numpy(), counts.numpy()
    for i in range(n):
        s = Stream(seed, i)
        assert ints[i, 0] == np.uint32(s.u()).astype(np.int32)
        assert ints[i, 1] == -37 + s.u() % 92
        assert uints[i, 0] == s.u()
        assert uints[i, 1] == 5 + s.u() % 995
        assert floats[i, 0] == s.f()
        assert floats[i, 1] == np.float32(-3.0) + np.float32(10.0) * s.f()
        u1, u2 = s.f(), s.f()
        assert floats[i, 2] == pytest.approx(math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2), abs=1e-5)
        assert floats[i, 3] == Stream(i).f()
        assert counts[i, 0] == s.poisson(3.5)
        assert counts[i, 1] == s.poisson(40.0)


@wp.kernel
def poisson_from_states(states: wp.array(dtype=wp.uint32), lam: float, out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    out[i] = wp.poisson(states[i], lam)  # an array element as the state: a copy is advanced


def test_state_read_from_an_array_is_a_copy():
    start = [962669792, 1029222154, 1536123189, 7]
    states = wp.array(start, dtype=wp.uint32)
    out = wp.zeros(len(start), dtype=wp.uint32)
    wp.launch(poisson_from_states, len(start), inputs=[states, 10.0, out])
    np.testing.assert_array_equal(states.numpy(), start)  # the array is not advanced
    expected = []
    for x in start:
        s = Stream(0)
        s.state = x
        expected.append(s.poisson(10.0))
    np.testing.assert_array_equal(out.numpy(), expected)
    assert all(0 < k < 100 for k in expected)  # the first proposals of these states are negative: rejected


@wp.kernel
def draw_samples(seed: int, flat: wp.array2d(dtype=wp.vec2), solid: wp.array2d(dtype=wp.vec3)):
    i = wp.tid()
    s = wp.rand_init(seed, i)
    flat[i, 0] = wp.sample_triangle(s)
    flat[i, 1] = wp.sample_unit_square(s)
    flat[i, 2] = wp.sample_unit_ring(s)
    flat[i, 3] = wp.sample_unit_disk(s)
    solid[i, 0] = wp.sample_unit_sphere_surface(s)
    solid[i, 1] = wp.sample_unit_sphere(s)
    solid[i, 2] = wp.sample_unit_hemisphere_surface(s)
    solid[i, 3] = wp.sample_unit_hemisphere(s)
    solid[i, 4] = wp.sample_unit_cube(s)


def _direction(u1, u2, zmin):
    z = 1.0 - (1.0 - zmin) * u1
    r = math.sqrt(max(0.0, 1.0 - z * z))
    return np.array([r * math.cos(2 * math.pi * u2), r * math.sin(2 * math.pi * u2), z])


def test_samplers_draw_as_warp_does():
    n, seed = 100, 7
    flat, solid = wp.zeros((n, 4), dtype=wp.vec2), wp.zeros((n, 5), dtype=wp.vec3)
    wp.launch(draw_samples, n, inputs=[seed, flat, solid])
    for i in range(n):
        s = Stream(seed, i)
        f = [float(s.f()) for _ in range(20)]  # 2 + 2 + 1 + 2 + 2 + 3 + 2 + 3 + 3 draws, in call order
        r = math.sqrt(f[0])
        expected_flat = [(1 - r, f[1] * r), (f[2] - 0.5, f[3] - 0.5),
                         (math.cos(2 * math.pi * f[4]), math.sin(2 * math.pi * f[4])),
                         (math.sqrt(f[5]) * math.cos(2 * math.pi * f[6]), math.sqrt(f[5]) * math.sin(2 * math.pi * f[6]))]
        expected_solid = [_direction(f[7], f[8], -1.0), _direction(f[9], f[10], -1.0) * f[11] ** (1 / 3),
                          _direction(f[12], f[13], 0.0), _direction(f[14], f[15], 0.0) * f[16] ** (1 / 3),
                          np.array([f[17], f[18], f[19]]) - 0.5]
        np.testing.assert_allclose(flat.numpy()[i], expected_flat, atol=2e-6)
        np.testing.assert_allclose(solid.numpy()[i], expected_solid, atol=2e-6)
