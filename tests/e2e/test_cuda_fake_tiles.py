"""A CUDA tile kernel's frame of block-uniform tiles past the static shared budget (16 KiB,
native/tiles/block.h) gets dynamic shared memory at launch, on the fake driver of
tests/e2e/test_cuda_fake.py: the size the module says (its `<symbol>_frame_bytes` global, read
here from the PTX the real NVRTC writes, since the fake cannot read a CUBIN's data), the kernel's
opt-in attribute; and a clear error where it cannot have them (no room on the device, or lanes
that keep their tiles apart). The launches run the kernel's CPU build, so results are checked too. tests/gpu/test_cuda_tiles.py
runs the same kernels on a GPU."""

import re

import numpy as np
import pytest

import warp_nb as wp
from tests.e2e.test_cuda_fake import fake_gpu  # noqa: F401 (the fixture)
from warp_nb.launch.launcher import make_packer

pytestmark = [pytest.mark.needs_cxx, pytest.mark.needs_nvrtc]
LANES = 64


def tiled_matmul(T):
    def mm(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
        i, j = wp.tid()
        acc = wp.tile_zeros(shape=(T, T), dtype=float)
        for k in range(a.shape[1] // T):
            wp.tile_matmul(wp.tile_load(a, shape=(T, T), offset=(i * T, k * T)),
                           wp.tile_load(b, shape=(T, T), offset=(k * T, j * T)), acc)
        wp.tile_store(c, acc, offset=(i * T, j * T))
    return wp.Kernel(mm, key=f"fake_gpu_tiled_matmul_{T}", module=f"fake_gpu_tiled_matmul_{T}")


matmul_a = tiled_matmul(64)  # 64 x 64 float tiles: a frame of several 16 KiB tiles
matmul_b = tiled_matmul(48)


def _frame_bytes_in_ptx(kernel) -> tuple[str, int]:
    """The kernel's frame global and its value, as NVRTC compiles the kernel for sm_90."""
    from warp_nb.compiler.pipeline import compile_kernel
    from warp_nb.cuda.target import AotCudaTarget

    options, sig = next((o, s) for o, s in kernel.compiled_options("cpu") if o.block_dim == LANES)
    compiled = compile_kernel(kernel, sig, AotCudaTarget(90, use_ptx=True), options)
    name = compiled.unit.frame_global
    value = re.search(rf"\.global \.align 8 \.u64 {name} = (\d+);", compiled.loaded.read_text())
    return name, int(value.group(1))


def _prepare(fake, kernel, A, B, T):
    """Run `kernel` on the CPU (its CPU build, which the fake's launches run), and tell the fake the
    value of the kernel's frame global in the CUBIN."""
    n = A.shape[0]
    cpu = [wp.array(A, device="cpu"), wp.array(B, device="cpu"), wp.zeros((n, n), device="cpu")]
    wp.launch_tiled(kernel, dim=(n // T, n // T), inputs=cpu, block_dim=LANES, device="cpu")
    name, frame = _frame_bytes_in_ptx(kernel)
    fake.module_globals[name] = frame
    gpu = kernel.compiled("cuda:0", block_dim=LANES)
    size = len(make_packer(kernel, wp.get_device("cuda:0"))(None, None, None))
    fake.kernels[gpu.unit.entry] = (kernel.compiled("cpu", block_dim=LANES).loaded.entry, size)
    return gpu.unit.entry, frame


def _inputs(n=192):
    rng = np.random.default_rng(3)
    return rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)


@pytest.fixture
def cpu_blocks(monkeypatch):
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)


def test_a_frame_past_the_static_budget_is_launched_with_dynamic_shared_memory(fake_gpu, cpu_blocks):  # noqa: F811
    A, B = _inputs()
    entry, frame = _prepare(fake_gpu, matmul_a, A, B, 64)
    assert frame > 16384 and frame % (64 * 64 * 4) == 0
    a, b, c = wp.array(A, device="cuda:0"), wp.array(B, device="cuda:0"), wp.zeros(A.shape, device="cuda:0")
    wp.launch_tiled(matmul_a, dim=(3, 3), inputs=[a, b, c], block_dim=LANES, device="cuda:0")
    np.testing.assert_allclose(c.numpy(), A.astype(np.float64) @ B, rtol=1e-4, atol=1e-3)
    assert fake_gpu.shared_bytes == [frame]
    assert fake_gpu.function_attributes == {(entry, "max_dynamic"): frame}  # (past 48 KiB a kernel must opt in)
    # a launch whose lanes would each need a frame of their own (wp.tid()'s leading component varies
    # inside a block) is refused: such a frame is only in shared memory
    with pytest.raises(RuntimeError, match=r"matmul_64` on cuda:0: its block-uniform tiles take \d+ KiB, which the "
                                           r"lanes of a block can share only where"):
        wp.launch(matmul_a, dim=(3, 5), inputs=[a, b, c], block_dim=LANES, device="cuda:0")
    assert fake_gpu.launches == 1


def test_a_frame_past_the_devices_room_is_refused(fake_gpu, cpu_blocks):  # noqa: F811
    fake_gpu.optin = 29 * 1024 + 16384  # room for the kernel's static shared memory and 16 KiB more
    A, B = _inputs()
    entry, frame = _prepare(fake_gpu, matmul_b, A, B, 48)
    assert frame > 16384
    a, b, c = wp.array(A, device="cuda:0"), wp.array(B, device="cuda:0"), wp.zeros(A.shape, device="cuda:0")
    with pytest.raises(RuntimeError, match=r"more shared memory than cuda:0 gives a block .* \(45 KiB in all\); "
                                           r"use smaller tiles"):
        wp.launch_tiled(matmul_b, dim=(4, 4), inputs=[a, b, c], block_dim=LANES, device="cuda:0")
    assert fake_gpu.launches == 0 and fake_gpu.function_attributes == {}
