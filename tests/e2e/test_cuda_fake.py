"""The CUDA backend's Python side, exercised without a GPU: a stand-in for the driver keeps
"device" memory in host memory and runs a launched kernel through its CPU entry point (the same
generated code, compiled for the CPU). Kernels are still compiled for the GPU by the real NVRTC.
This checks allocation, copies, fills, streams, argument packing and the launch plumbing; the
real driver is checked by tests/gpu on a GPU machine."""

import ctypes

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.cuda import devices as cuda_devices, driver as cuda_driver
from warp_nb.runtime import devices
from warp_nb.compiler import pipeline
from warp_nb.runtime.native import library
from warp_nb.types.array_type import ArrayType
from tests.support.hash_grid_kernels import count_neighbours

pytestmark = [pytest.mark.needs_cxx, pytest.mark.needs_nvrtc]


class FakeDriver:
    """Enough of cuda.bindings.driver: memory is host memory, launches run CPU entry points."""

    class CUdevice_attribute:  # noqa: N801 (the driver's name)
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = "major"
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = "minor"
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = "sms"
        CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = "pools"
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = "optin"

    class CUmemPool_attribute:  # noqa: N801
        CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = "threshold"
        CU_MEMPOOL_ATTR_USED_MEM_CURRENT = "used"
        CU_MEMPOOL_ATTR_USED_MEM_HIGH = "high"

    class CUfunction_attribute:  # noqa: N801
        CU_FUNC_ATTRIBUTE_NUM_REGS = "regs"
        CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = "local"
        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = "static"
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = "max_dynamic"

    class cuuint64_t:  # noqa: N801
        def __init__(self, value):
            self.value = value

        def __int__(self):
            return self.value

    def __init__(self):
        self.pool = {"threshold": 0, "used": 4096, "high": 8192}
        self.buffers = {}
        self.kernels = {}  # cuda entry name -> (cpu entry address, args size)
        self.launches = 0
        self.freed = 0
        self.optin = 227 * 1024  # (sm_90's shared memory a block may opt in to)
        self.module_globals = {}  # name -> int64 value a module's global reads (its initialiser in the CUBIN)
        self.function_attributes = {}  # (function, attribute) -> value set by cuFuncSetAttribute
        self.shared_bytes = []  # the dynamic shared memory of each launch

    def cuInit(self, flags):
        return (0,)

    def cuDeviceGetCount(self):
        return (0, 1)

    def cuDeviceGet(self, ordinal):
        return (0, ordinal)

    def cuDeviceGetName(self, length, dev):
        return (0, b"Fake GPU\0")

    def cuDevicePrimaryCtxRetain(self, dev):
        return (0, f"ctx{dev}")

    def cuDeviceGetAttribute(self, attr, dev):
        return (0, {"major": 9, "minor": 0, "sms": 4, "pools": 1, "optin": self.optin}[attr])

    def cuDeviceTotalMem(self, dev):
        return (0, 1 << 30)

    def cuCtxSetCurrent(self, ctx):
        return (0,)

    def cuCtxSynchronize(self):
        return (0,)

    def cuMemGetInfo(self):
        return (0, 1 << 29, 1 << 30)

    def cuMemAllocAsync(self, nbytes, stream):
        if nbytes > 1 << 31:
            return (2, None)  # CUDA_ERROR_OUT_OF_MEMORY
        buf = np.zeros(nbytes, dtype=np.uint8)
        self.buffers[buf.ctypes.data] = buf
        return (0, buf.ctypes.data)

    def cuMemFreeAsync(self, ptr, stream):
        self.freed += 1
        self.buffers.pop(ptr, None)
        return (0,)

    def cuGetErrorName(self, err):
        return (0, b"CUDA_ERROR_OUT_OF_MEMORY" if err == 2 else b"CUDA_ERROR_UNKNOWN")

    def _copy(self, dst, src, n, *rest):
        ctypes.memmove(dst, src, n)
        return (0,)

    cuMemcpyHtoDAsync = cuMemcpyDtoHAsync = cuMemcpyDtoDAsync = _copy

    def cuMemsetD8Async(self, dst, byte, n, stream):
        ctypes.memset(dst, byte, n)
        return (0,)

    def cuMemsetD32Async(self, dst, pattern, count, stream):
        (ctypes.c_uint32 * count).from_address(dst)[:] = [pattern] * count
        return (0,)

    def cuStreamCreate(self, flags):
        self.streams = getattr(self, "streams", 0) + 1
        return (0, 1000 + self.streams)

    def cuStreamSynchronize(self, s):
        return (0,)

    def cuStreamDestroy(self, s):
        return (0,)

    def cuEventCreate(self, flags):
        return (0, object())

    def cuEventRecord(self, e, s):
        return (0,)

    def cuStreamWaitEvent(self, s, e, flags):
        return (0,)

    def cuEventDestroy(self, e):
        return (0,)

    def cuDeviceGetDefaultMemPool(self, dev):
        return (0, f"pool{dev}")

    def cuMemPoolGetAttribute(self, pool, attr):
        return (0, self.cuuint64_t(self.pool[attr]))

    def cuMemPoolSetAttribute(self, pool, attr, value):
        assert isinstance(value, self.cuuint64_t)  # (the driver takes a cuuint64_t for byte counts)
        self.pool[attr] = int(value)
        return (0,)

    def cuFuncGetAttribute(self, attr, function):
        assert isinstance(function, str)  # a CUfunction from cuModuleGetFunction
        return (0, {"regs": 24, "local": 0, "static": 29 * 1024}[attr])

    def cuFuncSetAttribute(self, function, attr, value):
        assert isinstance(function, str) and isinstance(value, int)
        self.function_attributes[(function, attr)] = value
        return (0,)

    def cuOccupancyMaxPotentialBlockSize(self, function, smem_callback, smem_bytes, block_limit):
        return (0, 132, 768)  # (min grid size, block size)

    GLOBALS: dict = {}  # shared by every fake: launchers cached on a kernel outlive one test's driver

    def cuModuleGetGlobal(self, module, name):
        buf = self.GLOBALS.setdefault((module, name), ctypes.create_string_buffer(256))
        if name.decode() in self.module_globals:
            ctypes.c_int64.from_buffer(buf).value = self.module_globals[name.decode()]
        return (0, ctypes.addressof(buf), 256)

    def cuModuleLoadData(self, image):
        assert image[:4] == b"\x7fELF"  # a CUBIN from the real NVRTC
        return (0, image)

    def cuModuleGetFunction(self, module, name):
        assert name in module  # the symbol is in the CUBIN
        return (0, name.decode())

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        cpu_entry, args_size = self.kernels[f]
        pointers = (ctypes.c_void_p * 2).from_address(params)
        args = ctypes.string_at(pointers[0], args_size)
        bounds = ctypes.string_at(pointers[1], 48)
        library().wpnb_launch(cpu_entry, args, bounds, 1, None)
        self.launches += 1
        self.shared_bytes.append(shared)
        return (0,)


@pytest.fixture
def fake_gpu(monkeypatch):
    try:
        from warp_nb.toolchain.nvrtc import nvrtc_version
        nvrtc_version()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"NVRTC unavailable: {e}")
    fake = FakeDriver()
    monkeypatch.setattr(cuda_driver, "_driver", lambda: fake)
    monkeypatch.setattr(devices, "_default_device", None)  # with a GPU, cuda:0 becomes the default
    cuda_driver.available.cache_clear()
    cuda_devices._devices.cache_clear()
    yield fake
    cuda_driver.available.cache_clear()
    cuda_devices._devices.cache_clear()


def register(fake, kernel, device="cuda:0"):
    """Let the fake driver run `kernel` through its CPU build."""
    cpu = kernel.compiled("cpu")
    gpu = kernel.compiled(device)
    from warp_nb.launch.launcher import make_packer
    size = len(make_packer(kernel, wp.get_device(device))(*_dummy_args(kernel)))
    fake.kernels[gpu.unit.entry] = (cpu.loaded.entry, size)


def _dummy_args(kernel):
    out = []
    for t in kernel.param_types:
        if isinstance(t, ArrayType):
            out.append(None)
        elif wp.types.is_scalar_type(t):
            out.append(0)
        else:
            out.append(t())
    return out


@wp.kernel
def axpy(a: float, x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    y[i] = x[i] * a + y[i]


def test_arrays_and_launches_on_a_fake_gpu(fake_gpu):
    assert wp.is_cuda_available() and [d.alias for d in wp.get_devices()] == ["cpu", "cuda:0"]
    device = wp.get_device("cuda:0")
    assert device.arch == 90 and "Fake GPU" in device.name and device.properties()["SMs"] == 4
    x = wp.array(np.arange(30, dtype=np.float32).reshape(10, 3), dtype=wp.vec3, device="cuda:0")
    y = wp.ones(10, dtype=wp.vec3, device="cuda:0")
    assert x.device.is_cuda and x.ptr in fake_gpu.buffers
    register(fake_gpu, axpy)
    wp.launch(axpy, dim=10, inputs=[2.0, x, y], device="cuda:0")
    assert fake_gpu.launches == 1
    np.testing.assert_allclose(y.numpy(), 2 * np.arange(30).reshape(10, 3) + 1)
    assert axpy.compiled("cuda:0").loaded.path.suffix == ".cubin"
    # views, fills and copies in every direction
    assert x[2:5].numpy()[0].tolist() == [6, 7, 8] and x[::3].numpy()[1].tolist() == [9, 10, 11]
    y.fill_(wp.vec3(1.0, 2.0, 3.0))
    assert (y.numpy() == [1, 2, 3]).all()
    y.zero_()
    assert not y.numpy().any()
    assert wp.get_device() == "cuda:0"  # a GPU makes cuda:0 the default device, as in Warp
    host = wp.zeros(10, dtype=wp.vec3, device="cpu")
    wp.copy(host, x)
    assert host.numpy().tolist() == x.numpy().tolist()
    z = wp.clone(x)
    assert z.device == "cuda:0" and z.ptr != x.ptr and z.numpy().tolist() == x.numpy().tolist()
    back = x.to("cpu")
    assert back.device == "cpu" and back.numpy()[3].tolist() == [9, 10, 11]
    cai = x.__cuda_array_interface__
    assert cai["data"][0] == x.ptr and cai["shape"] == (10, 3)
    with pytest.raises(AttributeError, match="no __array_interface__"):
        x.__array_interface__
    with pytest.raises(TypeError, match="cuda:0 has no implicit NumPy conversion.*array.numpy()"):
        np.asarray(x)  # as Warp: a device-to-host copy is asked for by name
    with pytest.raises(TypeError, match="is an array on cpu but the launch is on cuda:0"):
        wp.launch(axpy, dim=10, inputs=[2.0, host, y], device="cuda:0")


def test_streams_and_errors_on_a_fake_gpu(fake_gpu):
    s = wp.Stream("cuda:0")
    with wp.ScopedStream(s):
        assert wp.get_stream() is s and wp.get_device() == "cuda:0"
        a = wp.zeros(4)  # the default device inside the scope
        assert a.device == "cuda:0"
    e = s.record_event()
    wp.wait_event(e)
    wp.synchronize()
    from warp_nb.cuda.driver import CUDAOutOfMemoryError
    with pytest.raises(CUDAOutOfMemoryError, match="out of memory"):
        wp.empty((1 << 16, 1 << 16), dtype=wp.uint8, device="cuda:0")  # 4 GiB, each dimension within int32
    with pytest.raises(wp.DeviceError, match="does not exist"):
        wp.zeros(1, device="cuda:3")


def test_tape_on_a_fake_gpu(fake_gpu):
    @wp.kernel
    def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(loss, 0, x[i] * x[i])

    register(fake_gpu, square_sum)
    cpu_bwd = square_sum.compiled("cpu", backward=True)
    gpu_bwd = square_sum.compiled("cuda:0", backward=True)
    fake_gpu.kernels[gpu_bwd.unit.backward_entry] = (cpu_bwd.loaded.adjoint_entry,
                                                      fake_gpu.kernels[gpu_bwd.unit.entry][1])
    # (the CPU's backward unit has its backward entry point alone: the forward one is the forward unit's)
    fake_gpu.kernels[gpu_bwd.unit.entry] = (square_sum.compiled("cpu").loaded.entry,
                                            fake_gpu.kernels[gpu_bwd.unit.entry][1])
    x = wp.array(np.arange(5, dtype=np.float32), device="cuda:0", requires_grad=True)
    loss = wp.zeros(1, device="cuda:0", requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=5, inputs=[x, loss], device="cuda:0")
    tape.backward(loss)
    assert loss.numpy()[0] == 30.0 and x.grad.numpy().tolist() == [0, 2, 4, 6, 8]


# --- what one pipeline and one target per device kind fixed ----------------------------------


def test_a_kernels_own_debug_mode_reaches_the_cuda_compile(fake_gpu):
    """`%%kernel --mode debug` sets kernel.mode; the CUDA path used to prepare with wp.config.mode,
    storing debug-keyed code compiled with WPNB_DEBUG 0."""
    @wp.kernel
    def scale_debug(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] * 2.0

    scale_debug.mode = "debug"
    assert wp.config.mode == "release"
    compiled = scale_debug.compiled("cuda:0")
    assert "#define WPNB_DEBUG 1" in compiled.unit.source
    assert compiled.loaded.debug_state is not None  # the device-side check state was looked up
    scale_debug.mode = None
    release = scale_debug.compiled("cuda:0")
    assert "#define WPNB_DEBUG 0" in release.unit.source and release.key != compiled.key


def test_cuda_compiles_reach_the_compile_log(fake_gpu):
    """A %%kernel cell reads the compile log to say "compiled" or "cached"; CUDA compiles used to be
    missing from it, so a fresh GPU compile was reported as cached."""
    @wp.kernel
    def logged_on_gpu(x: wp.array(dtype=float), k: float):
        i = wp.tid()
        x[i] = x[i] + k * 3.0

    start = len(pipeline.compile_log)
    logged_on_gpu.compiled("cuda:0")
    entries = [e for e in pipeline.compile_log[start:] if e[0] == "test_cuda_compiles_reach_the_compile_log."
               "<locals>.logged_on_gpu"]
    assert len(entries) == 1 and entries[0][2] is True  # compiled now, by NVRTC


def test_a_launch_without_device_follows_the_current_default(fake_gpu):
    """The launcher cache used to be keyed by the raw `device` argument, so device=None stayed
    pinned to whichever device was the default at the first launch."""
    @wp.kernel
    def add_one(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    register(fake_gpu, add_one)
    on_gpu = wp.zeros(4)  # cuda:0 is the default with a GPU
    wp.launch(add_one, dim=4, inputs=[on_gpu])
    assert on_gpu.device == "cuda:0" and on_gpu.numpy().tolist() == [1, 1, 1, 1]
    with wp.ScopedDevice("cpu"):
        on_cpu = wp.zeros(4)
        wp.launch(add_one, dim=4, inputs=[on_cpu])
    assert on_cpu.device == "cpu" and on_cpu.numpy().tolist() == [1, 1, 1, 1]
    wp.launch(add_one, dim=4, inputs=[on_gpu])
    assert on_gpu.numpy().tolist() == [2, 2, 2, 2] and fake_gpu.launches == 2



def test_an_ahead_of_time_module_for_a_cuda_device(fake_gpu, tmp_path, monkeypatch):
    """wp.compile_aot_module / wp.load_aot_module for a CUDA device go through its target: the file
    name (sm<arch>), the source written beside it, the manifest naming CUDA's entry points and read
    back through the driver."""
    import json
    import re
    import sys
    (tmp_path / "wpnb_aot_cuda_mod.py").write_text(
        "import warp_nb as wp\n"
        "@wp.kernel\n"
        "def triple(x: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n"
        "    x[i] = x[i] * 3.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import wpnb_aot_cuda_mod as mod
    (path,) = wp.compile_aot_module(mod, device="cuda:0", module_dir=tmp_path / "aot")
    assert path.name.endswith(".sm90.cubin")
    source = path.with_name(path.name.split(".sm")[0] + ".cu").read_text()
    assert "_cuda_forward" in source and "_cpu_forward" not in source and "#define WPNB_CUDA 1" in source
    text = json.loads('"' + re.search(r'char wpnb_aot_manifest\[\] = "(.*)";', source).group(1) + '"').encode()
    (entry,) = json.loads(text)["kernels"]
    assert entry["entry"].endswith("_cuda_forward") and entry["backward_entry"].endswith("_cuda_backward")

    manifest = ctypes.create_string_buffer(text)  # what the driver reads from the module's global
    real_global = fake_gpu.cuModuleGetGlobal
    monkeypatch.setattr(fake_gpu, "cuModuleGetGlobal", lambda module, name: (
        (0, ctypes.addressof(manifest), len(manifest)) if b"manifest" in name else real_global(module, name)),
        raising=False)
    wp.load_aot_module(mod, device="cuda:0", module_dir=tmp_path / "aot")
    compiled = mod.triple.compiled("cuda:0")
    assert compiled.key.startswith("aot:") and compiled.unit.entry == entry["entry"]
    register(fake_gpu, mod.triple)
    x = wp.array([1.0, 2.0], dtype=float, device="cuda:0")
    wp.launch(mod.triple, 2, [x], device="cuda:0")
    assert x.numpy().tolist() == [3.0, 6.0]
    sys.modules.pop("wpnb_aot_cuda_mod", None)


def test_a_failed_check_on_the_gpu_is_raised_at_the_next_synchronisation(fake_gpu, monkeypatch):
    """Checked CUDA launches do not wait for the GPU to read their check state (that would make
    every checked launch synchronous); the first synchronisation after them reads it. The fake
    driver runs the CPU build, so the failure is written into the device-side state by hand, as
    the GPU's checked code writes it."""
    from warp_nb.runtime.debug import DebugState

    monkeypatch.setattr(wp.config, "bounds_check", True)

    @wp.kernel
    def shift(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i + 1]

    x = wp.ones(8, dtype=float, device="cuda:0")
    y = wp.zeros(8, dtype=float, device="cuda:0")
    register(fake_gpu, shift)
    copies = []
    real_copy = fake_gpu.cuMemcpyDtoHAsync
    fake_gpu.cuMemcpyDtoHAsync = lambda *a: copies.append(a) or real_copy(*a)
    for _ in range(3):
        wp.launch(shift, dim=7, inputs=[x, y], device="cuda:0")
    assert fake_gpu.launches == 3 and not copies  # no read-back per launch
    wp.synchronize_device("cuda:0")  # nothing failed: nothing raised
    state = DebugState.from_address(shift.compiled("cuda:0").loaded.debug_state)
    wp.launch(shift, dim=7, inputs=[x, y], device="cuda:0")
    state.failed, state.loc, state.axis, state.thread = 1, 0, 0, 6
    state.index[0], state.shape[0] = 8, 8
    with pytest.raises(IndexError, match=r"index 8 is out of bounds for axis 0 .* size 8 at wp.tid\(\) = 6 .*`.*shift`"):
        y.numpy()  # a copy to the host waits for the device, then reads the state
    assert not state.failed  # cleared on the device once reported
    wp.synchronize_device("cuda:0")  # reported once
    np.testing.assert_array_equal(y.numpy(), np.r_[np.ones(7), 0])


def test_hash_grid_on_a_gpu_gets_a_device_copy_of_its_tables(fake_gpu):
    """A grid made on cuda:0 hands kernels the address of a descriptor in device memory whose
    tables are device copies (a host address read by a GPU kernel is an illegal access), kept at
    the same address across rebuilds; its neighbour counts equal a CPU grid's."""
    rng = np.random.default_rng(3)
    pts = rng.random((200, 3)).astype(np.float32)
    host_points = wp.array(pts, dtype=wp.vec3, device="cpu")
    cpu_grid = wp.HashGrid(8, 8, 8, device="cpu")
    cpu_grid.build(host_points, 0.2)
    expected = wp.zeros(200, dtype=int, device="cpu")
    wp.launch(count_neighbours, dim=200, inputs=[cpu_grid.id, host_points, 0.2, expected,
                                                 wp.zeros(200, dtype=int, device="cpu")], device="cpu")

    points = wp.array(pts, dtype=wp.vec3, device="cuda:0")
    grid = wp.HashGrid(8, 8, 8, device="cuda:0")
    first_id = grid.id
    assert grid.id in fake_gpu.buffers and grid.id != ctypes.addressof(grid._desc)
    grid.build(points, 0.2)
    assert grid.id == first_id  # rebuilt in place: ids captured earlier stay valid
    from warp_nb.geometry.native import HashGridDesc
    on_device = HashGridDesc.from_address(grid.id)  # the fake driver's device memory is host memory
    assert on_device.num_points == 200 and on_device.point_ids != grid._desc.point_ids
    assert any(on_device.point_ids == b for b in fake_gpu.buffers)
    counts = wp.zeros(200, dtype=int, device="cuda:0")
    register(fake_gpu, count_neighbours)
    wp.launch(count_neighbours, dim=200, inputs=[grid.id, points, 0.2, counts,
                                                 wp.zeros(200, dtype=int, device="cuda:0")], device="cuda:0")
    assert counts.numpy().tolist() == expected.numpy().tolist() and expected.numpy().min() >= 1


def test_a_volume_on_a_gpu_is_refused_before_a_kernel_can_read_host_memory(fake_gpu):
    with pytest.raises(ValueError, match="wp.Volume on cuda:0: .*host memory only.*device='cpu'"):
        wp.Volume.load_from_numpy(np.zeros((8, 8, 8), np.float32), device="cuda:0")
    assert wp.Volume.load_from_numpy(np.zeros((8, 8, 8), np.float32), device="cpu").device == "cpu"


def test_copies_with_strided_views_on_a_gpu(fake_gpu):
    """wp.copy with a strided view on either side (CUDA to host, host to CUDA, CUDA to CUDA, with
    offsets and a count in row-major element order) equals numpy's result."""
    src = wp.array(np.arange(20, dtype=np.float32), device="cuda:0")
    host = wp.zeros(10, dtype=float, device="cpu")
    wp.copy(host, src[::2])
    assert host.numpy().tolist() == list(range(0, 20, 2))
    dst = wp.zeros(20, dtype=float, device="cuda:0")
    wp.copy(dst[1::2], wp.array(np.arange(10, dtype=np.float32), device="cpu"))
    expected = np.zeros(20, np.float32)
    expected[1::2] = np.arange(10)
    assert dst.numpy().tolist() == expected.tolist()
    grid = np.arange(20, dtype=np.float32).reshape(4, 5)
    a = wp.array(grid, device="cuda:0")
    b = wp.zeros((4, 2), dtype=float, device="cuda:0")
    wp.copy(b, a[:, 1:3])
    assert b.numpy().tolist() == grid[:, 1:3].tolist()
    for dtype in (wp.float16, wp.vec3d):  # zero and fill a strided view: the other elements stay
        v = wp.full(6, dtype(1), dtype=dtype, device="cuda:0")
        v[::2].zero_()
        v[1::2].fill_(dtype(2))
        assert v.numpy().reshape(6, -1)[:, 0].tolist() == [0, 2, 0, 2, 0, 2]
    c = wp.zeros(8, dtype=float, device="cuda:0")
    wp.copy(c[::2], src[::3], dest_offset=1, src_offset=2, count=3)  # offsets count elements of the views
    want = np.zeros(8, np.float32)
    want[::2][1:4] = np.arange(20)[::3][2:5]
    assert c.numpy().tolist() == want.tolist()


def test_strided_copies_on_a_gpu_move_bytes_between_element_types_of_one_size(fake_gpu):
    """As wp.copy between contiguous arrays (a memcpy): an int32 view into float32 is its bits, not
    its values converted (found by tests/fuzz/arrays_against_warp.py on the CPU's twin of this path)."""
    ints = wp.array(np.arange(6, dtype=np.int32), device="cuda:0")
    host = wp.zeros(3, dtype=float, device="cpu")
    wp.copy(host, ints[::2])
    assert host.numpy().view(np.int32).tolist() == [0, 2, 4]
    halves = wp.array(np.arange(8, dtype=np.float16).reshape(2, 2, 2), dtype=wp.mat22h, device="cpu")
    longs = wp.zeros(4, dtype=wp.int64, device="cuda:0")
    wp.copy(longs[::2], halves)
    assert longs.numpy()[::2].tobytes() == np.arange(8, dtype=np.float16).tobytes()


class _Counting:
    def __init__(self, inner):
        self.inner, self.allocated, self.freed = inner, [], []

    def allocate(self, size_in_bytes):
        ptr = self.inner.allocate(size_in_bytes)
        self.allocated.append((ptr, size_in_bytes))
        return ptr

    def deallocate(self, ptr, size_in_bytes):
        self.freed.append((ptr, size_in_bytes))
        self.inner.deallocate(ptr, size_in_bytes)


def test_custom_allocators_on_a_gpu(fake_gpu):
    """wp.set_device_allocator / ScopedAllocator route a device's arrays through a user's allocator;
    an array is freed through the allocator that made it (even after it was replaced); zero-size
    arrays never reach it; its failure propagates; the built-in allocator comes back."""
    import gc
    device = wp.get_device("cuda:0")
    original = wp.get_device_allocator(device)
    assert original is device.default_allocator and isinstance(original, wp.Allocator)
    counting = _Counting(device.default_allocator)
    wp.set_device_allocator(device, counting)
    a = wp.full(100, 2.0, dtype=float, device=device)
    wp.zeros(0, dtype=float, device=device)
    assert counting.allocated == [(a.ptr, 400)] and a.numpy().tolist() == [2.0] * 100
    wp.set_device_allocator(device, None)
    assert wp.get_device_allocator(device) is original
    del a
    gc.collect()
    assert counting.freed == counting.allocated
    with wp.ScopedAllocator(device, counting):
        assert wp.get_device_allocator(device) is counting
        b = wp.empty(8, dtype=wp.vec3, device=device)
        assert counting.allocated[-1] == (b.ptr, 96)
    assert wp.get_device_allocator(device) is original

    class Failing:
        def allocate(self, size_in_bytes):
            raise RuntimeError("deliberate failure")

        def deallocate(self, ptr, size_in_bytes):
            pass

    with pytest.raises(RuntimeError, match="deliberate failure"):
        with wp.ScopedAllocator(device, Failing()):
            wp.zeros(4, device=device)
    assert wp.get_device_allocator(device) is original
    with pytest.raises(RuntimeError, match="cannot be replaced"):
        wp.set_device_allocator("cpu", counting)
    with pytest.raises(TypeError, match="no allocate"):
        wp.set_device_allocator(device, object())


def test_memory_pool_queries_on_a_fake_gpu(fake_gpu):
    assert wp.is_mempool_supported("cuda:0")
    assert wp.get_mempool_used_mem_current("cuda:0") == 4096 and wp.get_mempool_used_mem_high("cuda:0") == 8192
    wp.set_mempool_release_threshold("cuda:0", 1 << 20)
    assert wp.get_mempool_release_threshold("cuda:0") == 1 << 20
    wp.set_mempool_release_threshold("cuda:0", 0.25)  # a fraction of the device's memory (1 GiB here)
    assert wp.get_mempool_release_threshold("cuda:0") == 1 << 28
    with pytest.raises(ValueError, match="threshold must be >= 0"):
        wp.set_mempool_release_threshold("cuda:0", -1)


def test_kernel_queries_on_a_fake_gpu(fake_gpu):
    props = wp.get_cuda_kernel_properties(axpy, device="cuda:0", block_dim=64)
    assert props == {"register_count": 24, "local_memory_size": 0}
    assert wp.get_suggested_block_size(axpy, "cuda:0") == (768, 132)
    assert wp.get_cuda_max_cluster_dim(axpy, "cuda:0") == 1
    with pytest.raises(ValueError, match="block_dim must be a positive integer"):
        wp.get_cuda_kernel_properties(axpy, device="cuda:0", block_dim=0)
