"""`import warp_nb` leaves the compiler and the rarely first-needed parts unloaded (they load on
first use, PEP 562), and everything reached through them still works from a fresh process:
the names, the subpackages, and the hooks other layers call before anything asked for them (a
saved graph rebuilding its meshes)."""

import subprocess
import sys

LAZY = ["warp_nb.compiler.pipeline", "warp_nb.geometry", "warp_nb.textures", "warp_nb.program.aot",
        "warp_nb.launch.apic_save", "warp_nb.launch.apic_load", "warp_nb.jax_experimental",
        "warp_nb.utils.diagnostics", "warp_nb.utils.map"]


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_leaves_the_compiler_and_rare_parts_unloaded():
    code = f"import sys, warp_nb; print([m for m in {LAZY!r} if m in sys.modules])"
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
