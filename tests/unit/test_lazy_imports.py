"""`import warp_nb` leaves the compiler and the rarely first-needed parts unloaded (they load on
first use, PEP 562), and everything reached through them still works from a fresh process:
the names, the subpackages, and the hooks other layers call before anything asked for them (a
saved graph rebuilding its meshes)."""

import subprocess
import sys

LAZY = ["warp_nb.compiler.pipeline", "warp_nb.geometry", "warp_nb.textures", "warp_nb.program.aot",
        "warp_nb.launch.apic_save", "warp_nb.launch.apic_load", "warp_nb.jax_experimental",
        "warp_nb.utils.diagnostics", "warp_nb.utils.map",
        # the parser and the IR load with the first @wp.kernel / @wp.func, not with the package
        "warp_nb.compiler.syntax", "warp_nb.compiler.parse", "warp_nb.compiler.static_eval", "warp_nb.compiler.ir",
        "warp_nb.compiler.param_access",
        # the C++ toolchain and the cache on disk load with the first compile or load of a kernel
        "warp_nb.toolchain.cxx", "warp_nb.toolchain.cache", "warp_nb.toolchain.headers",
        # modules that define kernels when they load: wp.utils' and wp.array's operators'
        "warp_nb.utils.array_ops", "warp_nb.utils.reduce", "warp_nb.utils.scan", "warp_nb.utils.sort",
        "warp_nb.utils.graph_coloring", "warp_nb.utils.mesh_adjacency", "warp_nb.utils.functions",
        # wp.autograd's gradient checks (wp.Tape shares the package)
        "warp_nb.autograd.check", "warp_nb.autograd.jacobians", "warp_nb.autograd.plot"]
#: standard-library modules that `import warp_nb` itself does not load (numpy is imported first:
#: what it loads is not ours to defer)
LAZY_STDLIB = ["subprocess", "hashlib", "json", "concurrent.futures", "logging", "tempfile"]


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_leaves_the_compiler_and_rare_parts_unloaded():
    code = f"import sys, warp_nb; print([m for m in {LAZY!r} if m in sys.modules])"
    assert _run(code) == "[]"


def test_import_loads_no_subprocess_hashing_json_or_thread_pool():
    code = (f"import sys, numpy; before = set(sys.modules); import warp_nb\n"
            f"print([m for m in {LAZY_STDLIB!r} if m in set(sys.modules) - before])")
    assert _run(code) == "[]"


def test_lazy_utils_autograd_and_array_operators_work_from_a_fresh_process():
    code = ("import numpy as np, warp_nb as wp\n"
            "from warp_nb.utils import *\n"
            "a = wp.array(np.arange(4, dtype=np.float32))\n"
            "print((a + a).numpy().tolist(), (-a).numpy().tolist(), wp.utils.array_sum(a),"
            " callable(wp.autograd.gradcheck), callable(array_scan), wp.ScopedLogLevel.__name__,"
            " {'array_sum', 'radix_sort_pairs', 'ScopedTimer'} <= set(dir(wp.utils)),"
            " {'gradcheck', 'jacobian'} <= set(dir(wp.autograd)),"
            " {'ScopedLogLevel', 'transform_expand', 'Tape', 'ScopedTimer'} <= set(dir(wp)),"
            " wp.utils.reduce.__name__, wp.autograd.check.__name__)")  # submodules, as attributes
    # (-a of 0.0 is +0.0: a float's neg is 0 - x, as Warp's)
    assert _run(code) == ("[0.0, 2.0, 4.0, 6.0] [0.0, -1.0, -2.0, -3.0] 6.0 True True ScopedLogLevel True True True"
                          " warp_nb.utils.reduce warp_nb.autograd.check")


def test_every_name_dir_lists_resolves():
    code = ("import warp_nb as wp\n"
            "missing = [n for n in dir(wp) if not n.startswith('__') and not hasattr(wp, n)]\n"
            "missing += ['utils.' + n for n in dir(wp.utils) if not n.startswith('__') and not hasattr(wp.utils, n)"
            " and n != 'AllocatorRmm']\n"  # AllocatorRmm needs rmm installed (an ImportError without it, as in Warp)
            "missing += ['autograd.' + n for n in dir(wp.autograd) if not n.startswith('__')"
            " and not hasattr(wp.autograd, n)]\n"
            "print(missing)")
    assert _run(code) == "[]"


def test_lazy_names_and_subpackages_resolve():
    code = ("import warp_nb as wp\n"
            "from warp_nb import Volume, capture_save\n"
            "print(wp.Mesh.__name__, wp.geometry.HashGrid.__name__, wp.Texture2D.__name__, wp.map.__name__,"
            " callable(wp.compile_aot_module), callable(wp.jax_kernel), Volume.__name__, 'Mesh' in dir(wp))")
    assert _run(code) == "Mesh HashGrid Texture2D map True True Volume True"


def test_a_mesh_is_rebuilt_before_anything_asked_for_wp_mesh():
    code = ("import numpy as np, sys, warp_nb\n"
            "from warp_nb.runtime import live_handles\n"
            "m = live_handles.make_mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32),"
            " np.array([0, 1, 2], np.int32), False)\n"
            "print(type(m).__name__, m.points.shape[0])")
    assert _run(code) == "Mesh 3"
