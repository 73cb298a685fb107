"""wp.force_load over several modules: the kernels of all of them built together with at most
`max_workers` compilers (or wp.config.load_module_max_workers), each loaded module noted in
`Module.execs` as Warp notes it, and a module that does not compile raising only after the others
loaded. Each module here is unique to the test run, so nothing comes from the kernel cache of an
earlier run unless its code is the same (then it is still loaded and launchable)."""

import uuid

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def _kernel(offset: int, bad: bool = False):
    module = f"force_load_{uuid.uuid4().hex}"
    if bad:
        @wp.kernel(module=module)
        def broken(out: wp.array[int]):
            out[wp.tid()] = wp.no_such_builtin(1)  # noqa: F821

        return broken

    @wp.kernel(module=module)
    def shifted(out: wp.array[int]):
        i = wp.tid()
        out[i] = i + offset

    return shifted


@pytest.mark.parametrize("workers", [0, 2, None])
def test_force_load_loads_every_module(workers):
    kernels = [_kernel(k) for k in range(3)]
    wp.force_load(device="cpu", modules=[k.module for k in kernels], max_workers=workers)
    for k in kernels:
        assert any(ctx is None for ctx, _ in k.module.execs)
        assert k.is_ready(wp.get_device("cpu"))
    out = wp.zeros(4, dtype=int, device="cpu")
    for offset, k in enumerate(kernels):
        wp.launch(k, dim=4, inputs=[out], device="cpu")
        np.testing.assert_array_equal(out.numpy(), np.arange(4) + offset)


def test_a_bad_module_raises_after_the_good_ones_loaded():
    bad, good = _kernel(0, bad=True), _kernel(5)
    with pytest.raises(AttributeError, match="no_such_builtin"):
        wp.force_load(device="cpu", modules=[bad.module, good.module], max_workers=2)
    assert any(ctx is None for ctx, _ in good.module.execs)
    assert not bad.module.execs


def test_max_workers_is_checked():
    with pytest.raises(ValueError, match="max_workers"):
        wp.force_load(device="cpu", modules=[], max_workers=-1)
