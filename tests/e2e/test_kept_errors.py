"""An error from a kernel that failed to build, kept with its frames' locals (as IPython keeps the
last traceback for %debug), does not keep that kernel alive: once the next cell redefines it, the
failed definition is gone (wp.launch, wp.launch_tiled)."""

import gc
import os
import tempfile
import weakref
from importlib import util

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

FAILING = '''
import warp_nb as wp

@wp.kernel
def exercise(a: wp.array[float]):
    i = wp.tid()
    a[i] = None
'''

FIXED = '''
@wp.kernel
def exercise(a: wp.array[float]):
    i = wp.tid()
    a[i] = 2.0 * float(i)
'''


def _run_from_file(code: str, namespace: dict | None = None, name: str = "wpnb_kept_errors_module"):
    fd, path = tempfile.mkstemp(suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(code)
        if namespace is not None:  # a re-run cell: more code in the same module's namespace
            exec(compile(code, path, "exec"), namespace)  # noqa: S102 - the test's own code
            return None
        spec = util.spec_from_file_location(name, path)
        module = util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        os.remove(path)


def _frames_locals(error) -> list:
    kept, tb = [], error.__traceback__
    while tb is not None:
        kept.append(dict(tb.tb_frame.f_locals))
        tb = tb.tb_next
    return kept


@pytest.mark.parametrize("tiled", [False, True])
def test_a_kept_build_error_releases_the_failed_kernel(tiled):
    module = _run_from_file(FAILING)
    a = wp.zeros(4, dtype=float, device="cpu")
    failed = weakref.ref(module.exercise)
    kept = []
    with pytest.raises(wp.WarpCodegenTypeError) as caught:
        if tiled:  # the kernel only as an attribute here: no local of this frame holds it
            wp.launch_tiled(module.exercise, dim=4, inputs=[a], block_dim=1, device="cpu")
        else:
            wp.launch(module.exercise, dim=4, inputs=[a], device="cpu")
    kept.append((caught.value, _frames_locals(caught.value)))
    _run_from_file(FIXED, module.__dict__)
    gc.collect()
    assert failed() is None
    wp.launch(module.exercise, dim=4, inputs=[a], device="cpu")
    np.testing.assert_array_equal(a.numpy(), 2.0 * np.arange(4))
