"""Kernels loaded together are compiled together: a module's first launch builds the kernels that
are not in the cache a few per translation unit (emit/bundle.py), and each kernel still has its own
cache entry, which a later process finds kernel by kernel."""

import subprocess
import sys
import textwrap

import numpy as np

import warp_nb as wp
from tests.support import builtin_cases as bc
from warp_nb.toolchain import cache

MODULE = '''
import warp_nb as wp

@wp.func
def sq(x: float):
    return x * x

''' + "\n".join(f'''
@wp.kernel
def k{n}(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = sq(a[i]) + {n}.0
''' for n in range(10)) + '''

def make(offset: float):
    @wp.kernel
    def same_name(a: wp.array(dtype=float)):  # one Python name, two keys, two bodies
        a[wp.tid()] = offset
    return same_name

first = wp.Kernel(make(1.0).func, key="same_name_1")
second = wp.Kernel(make(2.0).func, key="same_name_2")
'''


def test_a_module_compiles_its_kernels_together(tmp_path, fresh_cache):
    module = bc.import_source(tmp_path / "mod_bundled.py", MODULE)
    before, together = cache.stats["compiled"], cache.stats["compiled_together"]
    a = wp.full(3, 2.0)
    wp.launch(module.k4, dim=3, inputs=[a])
    assert a.numpy().tolist() == [8.0] * 3
    # 13 kernels in the module, 12 different codes (the last `same_name` made by the decorator is the
    # code of `second`), all compiled at the first launch; at most one on its own (a bundle left
    # with a single kernel, since the `same_name` kernels cannot share a translation unit)
    assert cache.stats["compiled"] - before == 12
    assert cache.stats["compiled_together"] - together >= 11
    for n in range(10):
        b = wp.full(2, 3.0)
        wp.launch(getattr(module, f"k{n}"), dim=2, inputs=[b])
        np.testing.assert_allclose(b.numpy(), 9.0 + n)
    for k, value in ((module.first, 1.0), (module.second, 2.0)):
        c = wp.zeros(2)
        wp.launch(k, dim=2, inputs=[c])
        assert c.numpy().tolist() == [value, value]
    entries = [e for e in cache.entries() if e["name"].startswith("k_k")]
    assert len(entries) == 10  # one cache entry per kernel
    # a new process finds each kernel in the cache on its own, compiling nothing
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import warp_nb as wp
        wp.config.kernel_cache_dir = {str(fresh_cache)!r}
        from warp_nb.toolchain import cache
        import mod_bundled as m
        a = wp.full(1, 2.0)
        wp.launch(m.k7, dim=1, inputs=[a])
        print(a.numpy()[0], cache.stats["compiled"])
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["11.0", "0"], out.stderr[-2000:]
