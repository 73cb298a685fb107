"""`warp_nb.fem.cache`: suffix-keyed kernels, functions and structs (one compiled object per suffix,
closures over different values giving different results), pooled temporaries (reuse after
release, never while borrowed, per dtype family and device) and cached_arg_value."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.fem import cache


def _make(value, suffix):
    @cache.dynamic_func(suffix=suffix)
    def shifted(x: float):
        return x + value

    @cache.dynamic_kernel(suffix=suffix, kernel_options={"enable_backward": False})
    def apply(a: wp.array(dtype=float)):
        a[0] = shifted(a[0])

    return shifted, apply


@pytest.mark.needs_cxx
def test_dynamic_kernel_one_object_per_suffix():
    f1, k1 = _make(1.0, "one")
    _, k2 = _make(2.0, "two")
    f3, k3 = _make(3.0, "one")  # the suffix, not the closure, is the identity: the first one is kept
    assert k1 is k3 and f1 is f3 and k1 is not k2
    assert k1.key != k2.key and k1.key.startswith("apply_")
    assert k1.options["enable_backward"] is False
    results = []
    for k in (k1, k2):
        a = wp.zeros(1)
        wp.launch(k, dim=1, inputs=[a])
        results.append(a.numpy()[0])
    assert results == [1.0, 2.0]


def test_dynamic_kernel_options_are_part_of_the_key():
    def make(options):
        @cache.dynamic_kernel(suffix="s", kernel_options=options)
        def k(a: wp.array(dtype=float)):
            a[0] = 1.0
        return k
    assert make({"enable_backward": False}) is not make({"enable_backward": True})
    with pytest.raises(TypeError, match="kernel_options"):
        cache.dynamic_kernel(suffix="s", kernel_options=[("enable_backward", False)])


def test_dynamic_struct_per_suffix():
    def make(n):
        @cache.dynamic_struct(suffix=str(n))
        class Holder:
            v: wp.types.vector(length=n, dtype=float)
        return Holder
    assert make(2) is make(2)
    assert make(2) is not make(3)
    assert make(2).key != make(3).key
    assert len(make(3)().v) == 3


def test_temporaries_are_reused_after_release_only():
    store = cache.TemporaryStore()
    a = cache.borrow_temporary(store, shape=(10,), dtype=wp.vec3)
    assert isinstance(a, cache.Temporary) and a.shape == (10,) and a.dtype == wp.vec3
    a.fill_(wp.vec3(1.0, 2.0, 3.0))
    np.testing.assert_array_equal(a.numpy(), np.tile([1.0, 2.0, 3.0], (10, 1)))
    ptr = a.ptr
    b = cache.borrow_temporary(store, shape=(4,), dtype=wp.vec3)
    assert b.ptr != ptr  # a is still borrowed
    a.release()
    a.release()  # twice is harmless
    c = cache.borrow_temporary(store, shape=(2, 5), dtype=wp.vec3)  # same bytes, another shape
    assert c.ptr == ptr and c.shape == (2, 5)
    d = cache.borrow_temporary(store, shape=(10,), dtype=wp.float32)  # another scalar family: its own pool
    assert d.ptr != ptr
    c.release()
    e = cache.borrow_temporary(store, shape=(100,), dtype=wp.vec3)  # too large for the free buffer
    assert e.ptr != ptr
    e.release()
    store.clear()  # the free buffers are dropped; borrowed ones stay valid
    np.testing.assert_array_equal(b.numpy().shape, (4, 3))
    assert cache.borrow_temporary(store, shape=(10,), dtype=wp.vec3).shape == (10,)


def test_borrow_like_and_without_store():
    x = wp.zeros((3, 2), dtype=wp.float64, requires_grad=True)
    store = cache.TemporaryStore()
    t = cache.borrow_temporary_like(x, store)
    assert t.shape == (3, 2) and t.dtype == wp.float64 and t.requires_grad and t.grad is not None
    plain = cache.borrow_temporary(None, shape=4, dtype=float)
    assert plain.shape == (4,) and plain.dtype == wp.float32
    plain.release()
    assert plain.detach() is plain


def test_default_store():
    store = cache.TemporaryStore()
    cache.set_default_temporary_store(store)
    try:
        a = cache.borrow_temporary(None, shape=8, dtype=int)
        ptr = a.ptr
        a.release()
        assert cache.borrow_temporary(None, shape=8, dtype=int).ptr == ptr
    finally:
        cache.set_default_temporary_store(None)
    with pytest.raises(TypeError, match="temporary_store"):
        cache.set_default_temporary_store("store")


def test_detached_temporary_never_returns_to_the_pool():
    store = cache.TemporaryStore()
    a = cache.borrow_temporary(store, shape=6, dtype=float)
    ptr = a.ptr
    kept = a.detach()
    kept.release()  # no effect once detached
    assert cache.borrow_temporary(store, shape=6, dtype=float).ptr != ptr


def test_cached_arg_value_once_per_device():
    class Thing:
        calls = 0

        @cache.cached_arg_value
        def arg_value(self, device):
            Thing.calls += 1
            return ("value", str(device))

    t = Thing()
    assert t.arg_value("cpu") == ("value", "cpu")
    assert t.arg_value(None) == ("value", "cpu")
    assert Thing.calls == 1
    assert Thing().arg_value("cpu") == ("value", "cpu") and Thing.calls == 2


def test_pool_is_bypassed_during_graph_capture():
    """A captured graph refers to buffers by address: a temporary released while capturing must not
    be lent again (its memory stays with it)."""
    store = cache.TemporaryStore()
    with wp.ScopedCapture(device="cpu", force_module_load=False):
        first = cache.borrow_temporary(store, shape=64, dtype=float)
        ptr = first.ptr
        first.release()
        second = cache.borrow_temporary(store, shape=64, dtype=float)
    assert second.ptr != ptr and first.ptr == ptr
