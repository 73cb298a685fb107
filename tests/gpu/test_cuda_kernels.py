"""Kernels and autodiff on cuda:0, compared with numpy (same kernels as the CPU suite)."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_gpu
DEVICE = "cuda:0"


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_saxpy_and_numpy_round_trip():
    n = 1_000_003
    x = np.random.default_rng(0).random(n, dtype=np.float32)
    xd, yd = wp.array(x, device=DEVICE), wp.ones(n, device=DEVICE)
    wp.launch(saxpy, dim=n, inputs=[2.0, xd, yd], device=DEVICE)
    assert xd.device.is_cuda and np.allclose(yd.numpy(), 2 * x + 1)  # .numpy() waits for the stream


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3


@wp.kernel
def integrate(ps: wp.array(dtype=Particle), dt: float, total: wp.array(dtype=float)):
    i = wp.tid()
    p = ps[i]
    p.pos = p.pos + p.vel * dt
    ps[i] = p
    total[0] += wp.length(p.pos)


def test_structs_vectors_and_reductions():
    rng = np.random.default_rng(1)
    pos, vel = rng.random((4096, 3)), rng.random((4096, 3))
    ps = wp.array([Particle(pos=wp.vec3(*p), vel=wp.vec3(*v)) for p, v in zip(pos, vel)], dtype=Particle,
                  device=DEVICE)
    total = wp.zeros(1, device=DEVICE)
    wp.launch(integrate, dim=4096, inputs=[ps, 0.5, total], device=DEVICE)
    new = pos + 0.5 * vel
    assert np.allclose(ps.numpy()["pos"], new, atol=1e-5)
    assert total.numpy()[0] == pytest.approx(np.linalg.norm(new, axis=1).sum(), rel=1e-4)


@wp.kernel
def grid(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 1000 + j


def test_multi_dimensional_launch():
    out = wp.zeros((37, 513), dtype=int, device=DEVICE)
    wp.launch(grid, dim=(37, 513), inputs=[out], device=DEVICE)
    assert (out.numpy() == np.add.outer(np.arange(37) * 1000, np.arange(513))).all()


@wp.kernel
def sin_loss(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.sin(x[i]) * x[i])


def test_tape_backward_on_the_gpu():
    xv = np.random.default_rng(2).uniform(-2, 2, 100_000).astype(np.float32)
    x = wp.array(xv, device=DEVICE, requires_grad=True)
    loss = wp.zeros(1, device=DEVICE, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sin_loss, dim=len(xv), inputs=[x, loss], device=DEVICE)
    tape.backward(loss)
    assert np.allclose(x.grad.numpy(), np.cos(xv) * xv + np.sin(xv), atol=1e-5)


@wp.kernel
def past_end(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i + 1] = 1.0


def test_debug_mode_bounds_on_the_gpu():
    old = wp.config.mode
    wp.config.mode = "debug"
    try:
        with pytest.raises(IndexError, match="out of bounds"):
            wp.launch(past_end, dim=4, inputs=[wp.zeros(4, device=DEVICE)], device=DEVICE)
    finally:
        wp.config.mode = old


def test_cubin_is_loaded_by_default():
    from warp_nb.cuda.target import arch_for
    device = wp.get_device(DEVICE)
    arch, use_ptx = arch_for(device.arch)
    assert arch == device.arch and not use_ptx  # PTX from a newer NVRTC may be refused by the driver
    compiled = saxpy.compiled(device)
    assert compiled.loaded.path.suffix == ".cubin"


@wp.kernel
def _printed_scaled(s: float, w: wp.vec2, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    print(s, w)
    y[0] = s * x[0] + w[1]


def test_print_in_a_backward_launch_shows_the_given_adjoints(capfd):
    # the backward code starts value parameters' adjoints from the module global the launch wrote
    # (cuModuleGetGlobal + a copy on the stream), then zeroes it for the next launch
    x = wp.array([2.0], dtype=float, device=DEVICE, requires_grad=True)
    y = wp.zeros(1, dtype=float, device=DEVICE, requires_grad=True)
    wp.synchronize()
    capfd.readouterr()
    wp.launch(_printed_scaled, 1, inputs=[3.0, wp.vec2(1.0, 2.0), x, y],
              adj_inputs=[42.0, wp.vec2(4.0, -1.0), None, None], adjoint=True, device=DEVICE)
    wp.synchronize()
    out = capfd.readouterr().out
    assert "adj: 42\n" in out and "adj: 4 -1\n" in out, out
    wp.launch(_printed_scaled, 1, inputs=[3.0, wp.vec2(1.0, 2.0), x, y], adj_inputs=[None, None, None, None],
              adjoint=True, device=DEVICE)
    wp.synchronize()
    out = capfd.readouterr().out
    assert "adj: 0\n" in out and "adj: 0 0\n" in out, out
