"""Arrays that allocate no bytes: as in Warp, `ptr` is None (their gradient's too) and `capacity` is
0, while kernels, views, copies, numpy, graph captures and saved graphs take them as before (a
kernel sees a null data pointer and size 0). A view keeps the address it was given."""

import os

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def touch_if_nonempty(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if a.shape[0] > 0:
        out[i] = a[0]
    else:
        out[i] = 7.0


@pytest.mark.parametrize("make", [
    lambda: wp.zeros(0, dtype=float, requires_grad=True),
    lambda: wp.empty((0, 3), dtype=wp.vec3, requires_grad=True),
    lambda: wp.array(np.zeros(0, np.float32), dtype=float, requires_grad=True),
    lambda: wp.empty((0, 3), dtype=wp.int32, strides=(4, 16), requires_grad=True),
])
def test_empty_allocation_has_no_address(make):
    a = make()
    assert a.ptr is None and a.grad.ptr is None
    assert a.capacity == 0 and a.size == 0
    assert a.numpy().size == 0
    assert wp.clone(a).ptr is None
    assert a.__ctype__().data == 0
    a.zero_()
    wp.copy(wp.clone(a), a)


def test_views_keep_their_address():
    b = wp.zeros(4, dtype=float)
    assert b[2:2].ptr is not None and b[2:2].size == 0
    assert wp.array(ptr=b.ptr, shape=(0,), dtype=float).ptr == b.ptr


def test_empty_array_in_a_launch_a_capture_and_a_saved_graph(tmp_path):
    empty = wp.zeros(0, dtype=float)
    out = wp.zeros(8, dtype=float)
    wp.launch(touch_if_nonempty, dim=8, inputs=[empty, out])
    np.testing.assert_allclose(out.numpy(), 7.0)
    out.zero_()
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        wp.launch(touch_if_nonempty, dim=8, inputs=[empty, out])
    wp.capture_launch(capture.graph)
    np.testing.assert_allclose(out.numpy(), 7.0)
    out.zero_()
    path = os.path.join(tmp_path, "empty")
    wp.capture_save(capture.graph, path, inputs={"empty": empty}, outputs={"out": out})
    loaded = wp.capture_load(path)
    wp.capture_launch(loaded)
    result = wp.zeros(8, dtype=float)
    loaded.get_param("out", result)
    np.testing.assert_allclose(result.numpy(), 7.0)
