"""The CUDA runtime: streams and events with Warp's ordering rules, copies in every direction,
pinned memory, several GPUs, interop without copies, and clean refusals."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_gpu
DEVICE = "cuda:0"


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_streams_and_events_order_work():
    a = wp.zeros(1 << 20, device=DEVICE)
    s1, s2 = wp.Stream(DEVICE), wp.Stream(DEVICE)
    with wp.ScopedStream(s1):
        for _ in range(10):
            wp.launch(add_one, dim=a.size, inputs=[a])
    event = s1.record_event()
    s2.wait_event(event)
    with wp.ScopedStream(s2):
        wp.launch(add_one, dim=a.size, inputs=[a])
    s2.synchronize()
    assert (a.numpy() == 11.0).all()
    start, end = wp.Event(DEVICE, enable_timing=True), wp.Event(DEVICE, enable_timing=True)
    start.record(s1)
    wp.launch(add_one, dim=a.size, inputs=[a], device=DEVICE)
    end.record(s1)
    assert wp.get_event_elapsed_time(start, end) >= 0.0


def test_copies_between_host_and_device():
    host = wp.array(np.arange(10, dtype=np.float32))
    dev = wp.zeros(10, device=DEVICE)
    wp.copy(dev, host)
    wp.launch(add_one, dim=10, inputs=[dev], device=DEVICE)
    back = wp.zeros(10)
    wp.copy(back, dev, dest_offset=2, src_offset=0, count=8)
    assert back.numpy().tolist() == [0, 0] + list(range(1, 9))
    pinned = wp.zeros(10, pinned=True)
    wp.copy(pinned, dev)  # asynchronous into pinned memory: needs wp.synchronize()
    wp.synchronize()
    assert pinned.numpy().tolist() == list(range(1, 11))
    assert wp.clone(dev).numpy().tolist() == list(range(1, 11))
    assert dev[::2].numpy().tolist() == [1, 3, 5, 7, 9]  # strided device views download too


def test_several_gpus():
    if wp.get_cuda_device_count() < 2:
        pytest.skip("one GPU on this machine")
    a = wp.array(np.arange(5, dtype=np.float32), device="cuda:0")
    b = wp.zeros(5, device="cuda:1")
    wp.copy(b, a)  # peer copy
    with wp.ScopedDevice("cuda:1"):
        wp.launch(add_one, dim=5, inputs=[b])
    assert b.numpy().tolist() == [1, 2, 3, 4, 5]


def test_refusals():
    with pytest.raises(wp.DeviceError, match="does not exist"):
        wp.zeros(1, device=f"cuda:{wp.get_cuda_device_count()}")
    with pytest.raises(TypeError, match="is an array on cpu but the launch is on cuda:0"):
        wp.launch(add_one, dim=4, inputs=[wp.zeros(4, device="cpu")], device=DEVICE)  # (default: cuda:0)
    from warp_nb.cuda.driver import CUDAOutOfMemoryError
    with pytest.raises(CUDAOutOfMemoryError):
        wp.empty((1 << 30, 1 << 20), dtype=wp.uint8, device=DEVICE)  # 1 PiB (each axis within int32)
    wp.zeros(1 << 20, device=DEVICE)  # still usable afterwards


def test_cuda_array_interface_and_dlpack():
    a = wp.array(np.arange(6, dtype=np.float32), device=DEVICE)
    cai = a.__cuda_array_interface__
    assert cai["data"][0] == a.ptr and cai["shape"] == (6,)
    cupy = pytest.importorskip("cupy", reason="cupy is not installed")
    c = cupy.asarray(a)  # zero-copy through __cuda_array_interface__
    c += 1
    assert a.numpy().tolist() == [1, 2, 3, 4, 5, 6]
    back = wp.from_dlpack(c)
    assert back.ptr == a.ptr and back.device == DEVICE


def test_torch_on_the_gpu():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = torch.arange(4, dtype=torch.float32, device="cuda:0")
    a = wp.from_torch(t)
    wp.launch(add_one, dim=4, inputs=[a], device=DEVICE)
    wp.synchronize()
    assert t.tolist() == [1, 2, 3, 4]
    assert wp.to_torch(a).data_ptr() == t.data_ptr()
