"""The CUDA path of a backward launch that gives value parameters their adjoints (adj_inputs), on
the fake driver of tests/e2e/test_cuda_fake.py: the launch finds the module global the backward
code starts those adjoints from (cuModuleGetGlobal, by the name the real NVRTC's PTX gives it),
copies the packed adjoints into it on the stream before the launch and zeroes it after. The fake
runs the kernel's CPU build, so its global stands for the module's here."""

import pytest

import warp_nb as wp
from tests.e2e.test_cuda_fake import fake_gpu, register  # noqa: F401 (the fixture)


@wp.kernel
def fake_gpu_printed_scaled(s: float, w: wp.vec2, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    print(s, w)
    y[0] = s * x[0] + w[1]


def test_a_backward_launch_writes_the_given_adjoints_into_the_modules_global(fake_gpu, capfd):  # noqa: F811
    kernel = fake_gpu_printed_scaled
    cpu_bwd = kernel.compiled("cpu", backward=True)
    seeds = cpu_bwd.unit.seeds_global
    assert seeds and cpu_bwd.loaded.adjoint_seeds
    asked = []
    plain = fake_gpu.cuModuleGetGlobal

    def get_global(module, name):  # the CUDA module's seeds global is the CPU build's here
        asked.append(name.decode())
        if name.decode() == seeds:
            return 0, cpu_bwd.loaded.adjoint_seeds, 12
        return plain(module, name)

    fake_gpu.cuModuleGetGlobal = get_global
    register(fake_gpu, kernel)
    gpu_bwd = kernel.compiled("cuda:0", backward=True)
    assert seeds in asked and gpu_bwd.loaded.adjoint_seeds == cpu_bwd.loaded.adjoint_seeds
    size = fake_gpu.kernels[gpu_bwd.unit.entry][1]
    fake_gpu.kernels[gpu_bwd.unit.backward_entry] = (cpu_bwd.loaded.adjoint_entry, size)
    x = wp.array([2.0], dtype=float, device="cuda:0", requires_grad=True)
    y = wp.zeros(1, dtype=float, device="cuda:0", requires_grad=True)
    capfd.readouterr()
    wp.launch(kernel, 1, inputs=[3.0, wp.vec2(1.0, 2.0), x, y], adj_inputs=[42.0, wp.vec2(4.0, -1.0), None, None],
              adjoint=True, device="cuda:0")
    assert capfd.readouterr().out == "3 1 2 \nadj: 42\nadj: 4 -1\n"
    wp.launch(kernel, 1, inputs=[3.0, wp.vec2(1.0, 2.0), x, y], adj_inputs=[None, None, None, None],
              adjoint=True, device="cuda:0")
    assert capfd.readouterr().out == "3 1 2 \nadj: 0\nadj: 0 0\n"  # zeroed after the last launch
    with pytest.raises(TypeError, match="`s`"):
        wp.launch(kernel, 1, inputs=[3.0, wp.vec2(1.0, 2.0), x, y], adj_inputs=["no", None, None, None],
                  adjoint=True, device="cuda:0")
