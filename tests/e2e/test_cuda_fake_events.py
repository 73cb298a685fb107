"""wp.Event with Warp's parameters (device, cuda_event, enable_timing, interprocess) on the fake
driver of tests/e2e/test_cuda_fake.py, and the IPC handles warp_nb does not export."""

import pytest

import warp_nb as wp
from tests.e2e.test_cuda_fake import fake_gpu  # noqa: F401 (the fixture)


def test_events_on_a_fake_gpu(fake_gpu):  # noqa: F811
    # Warp's Event parameters: interprocess is taken (warp_nb exports no IPC handle: ipc_handle raises the
    # RuntimeError Warp raises where IPC is unsupported), not with enable_timing (ValueError, as Warp's doc
    # says); an event made elsewhere (cuda_event) is used and never destroyed here
    e = wp.Event("cuda:0", interprocess=True)
    assert e.interprocess and not e.enable_timing
    with pytest.raises(RuntimeError, match="IPC is not supported"):
        e.ipc_handle()
    with pytest.raises(RuntimeError, match="IPC is not supported"):
        wp.zeros(3, device="cuda:0").ipc_handle()
    with pytest.raises(ValueError, match="cannot be combined"):
        wp.Event("cuda:0", enable_timing=True, interprocess=True)
    destroyed = []
    fake_gpu.cuEventDestroy = lambda ev: destroyed.append(ev) or (0,)
    outside = object()
    borrowed = wp.Event("cuda:0", cuda_event=outside)
    assert borrowed.handle is outside
    del borrowed, e
    assert outside not in destroyed and len(destroyed) == 1
