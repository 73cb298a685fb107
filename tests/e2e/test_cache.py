"""build + cache: compiled code is reused exactly when nothing it depends on changed; entries
are written atomically, damaged ones rebuilt, and two processes share one compile."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.toolchain import cache

pytestmark = pytest.mark.needs_cxx


def load_source(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


MODULE = """
import warp_nb as wp

SCALE = {scale}

@wp.func
def helper(x: float):
    return x * {factor}

@wp.kernel
def uses_helper(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = helper(a[i])

@wp.kernel
def uses_constant(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * float(SCALE)

@wp.kernel
def independent(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0
"""


def run_all(m):
    out = []
    for k in (m.uses_helper, m.uses_constant, m.independent):
        a = wp.ones(4)
        wp.launch(k, dim=4, inputs=[a])
        out.append(a.numpy()[0])
    return out


def test_only_changed_kernels_recompile(tmp_path, fresh_cache):
    before = cache.stats["compiled"]
    m = load_source(tmp_path, "cache_mod_a", MODULE.format(scale=3, factor=2.0))
    assert run_all(m) == [2.0, 3.0, 2.0]
    assert cache.stats["compiled"] - before == 3

    # the same source again (a new process would see the same): nothing compiles
    before = cache.stats["compiled"]
    m = load_source(tmp_path, "cache_mod_a", MODULE.format(scale=3, factor=2.0))
    run_all(m)
    assert cache.stats["compiled"] == before

    # edit the function: only the kernel that uses it recompiles
    m = load_source(tmp_path, "cache_mod_a", MODULE.format(scale=3, factor=5.0))
    assert run_all(m) == [5.0, 3.0, 2.0]
    assert cache.stats["compiled"] - before == 1

    # change a captured global constant: only the kernel that reads it recompiles
    before = cache.stats["compiled"]
    m = load_source(tmp_path, "cache_mod_a", MODULE.format(scale=7, factor=5.0))
    assert run_all(m) == [5.0, 7.0, 2.0]
    assert cache.stats["compiled"] - before == 1


def test_declaring_kernels_between_launches_does_not_recompile(tmp_path, fresh_cache):
    m = load_source(tmp_path, "cache_mod_b", MODULE.format(scale=1, factor=1.0))
    run_all(m)
    before = cache.stats["compiled"]

    @wp.kernel
    def declared_later(a: wp.array(dtype=float)):
        a[wp.tid()] = 9.0

    run_all(m)
    a = wp.zeros(2)
    wp.launch(declared_later, dim=2, inputs=[a])
    assert cache.stats["compiled"] - before == 1  # just the new kernel
    assert a.numpy().tolist() == [9.0, 9.0]


DAMAGED_CHILD = """
import sys, numpy as np
import warp_nb as wp
from warp_nb.toolchain import cache
sys.path.insert(0, sys.argv[1])
import damaged_mod as m
a = wp.ones(4)
wp.launch(m.k, dim=4, inputs=[a])
assert np.allclose(a.numpy(), 2.0), a.numpy()
print(cache.stats["compiled"], cache.stats["rebuilt_damaged"])
"""


@pytest.mark.parametrize("damage", ["garbage", "truncated", "no_metadata"])
def test_damaged_entry_is_rebuilt(tmp_path, damage):
    # separate processes: a library loaded in this process must not be overwritten under it
    (tmp_path / "damaged_mod.py").write_text(textwrap.dedent("""
        import warp_nb as wp

        @wp.kernel
        def k(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 2.0
        """))
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "c"))
    run = lambda: subprocess.run([sys.executable, "-c", DAMAGED_CHILD, str(tmp_path)], env=env,  # noqa: E731
                                 capture_output=True, text=True, timeout=120)
    first = run()
    assert first.returncode == 0, first.stderr[-2000:]
    assert first.stdout.split() == ["1", "0"]
    (lib,) = (tmp_path / "c" / cache.VERSION).glob("k_k_*.so")
    if damage == "garbage":
        lib.write_bytes(b"not a library")
    elif damage == "truncated":
        lib.write_bytes(lib.read_bytes()[:1000])
    else:
        lib.with_suffix(".json").unlink()
    second = run()
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout.split() == ["1", "1"]  # detected, rebuilt, and the kernel ran correctly
    third = run()
    assert third.stdout.split() == ["0", "0"]  # and the rebuilt entry is good


CHILD = """
import sys, numpy as np
import warp_nb as wp
from warp_nb.toolchain import cache
sys.path.insert(0, sys.argv[1])
import concurrent_mod as m
a = wp.ones(8)
wp.launch(m.k, dim=8, inputs=[a])
assert np.allclose(a.numpy(), 3.0)
print("compiled", cache.stats["compiled"])
"""


def test_two_processes_compile_once(tmp_path):
    (tmp_path / "concurrent_mod.py").write_text(textwrap.dedent("""
        import warp_nb as wp

        @wp.kernel
        def k(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 3.0 + float(i) * 0.0
        """))
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "shared_cache"))
    # warm the runtime library first so the two children race on the kernel only
    subprocess.run([sys.executable, "-c", "import warp_nb.runtime.native as r; r.library()"], env=env, check=True)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    counts = sorted(int(o[0].split()[-1]) for o in outs)
    assert counts == [0, 1]  # one compiled, the other waited for it and loaded it
    assert len(list((tmp_path / "shared_cache" / cache.VERSION).glob("k_k_*.so"))) == 1


def test_cache_dir_is_configurable(tmp_path):
    old = wp.config.kernel_cache_dir
    wp.config.kernel_cache_dir = str(tmp_path / "elsewhere")
    try:
        assert cache.cache_dir() == tmp_path / "elsewhere" / cache.VERSION
    finally:
        wp.config.kernel_cache_dir = old


def test_clear_and_entries(tmp_path, fresh_cache):
    m = load_source(tmp_path, "cache_mod_d", MODULE.format(scale=1, factor=1.0))
    run_all(m)
    names = {e["name"] for e in cache.entries()}
    assert {"k_uses_helper", "k_uses_constant", "k_independent"} <= names
    assert cache.clear() >= 3 and not list((fresh_cache / cache.VERSION).glob("k_*.so"))
    assert np.isfinite(1.0)


SHIFTING = """
import warp_nb as wp
{padding}
@wp.kernel
def first(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + {value}

@wp.kernel
def second(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 3.0
"""


def test_editing_one_kernel_leaves_the_others_cached_even_when_lines_move(tmp_path, fresh_cache):
    # warp-lang recompiles every kernel of a file after a one-line edit; here only the edited one
    m = load_source(tmp_path, "cache_mod_shift", SHIFTING.format(padding="", value="1.0"))
    for k in (m.first, m.second):
        wp.launch(k, dim=2, inputs=[wp.ones(2)])
    before = cache.stats["compiled"]
    # edit `first` and push `second` three lines down
    m = load_source(tmp_path, "cache_mod_shift", SHIFTING.format(padding="\n# a comment\nX = 1\n", value="2.0"))
    a, b = wp.ones(2), wp.ones(2)
    wp.launch(m.first, dim=2, inputs=[a])
    wp.launch(m.second, dim=2, inputs=[b])
    assert a.numpy().tolist() == [3.0, 3.0] and b.numpy().tolist() == [3.0, 3.0]
    assert cache.stats["compiled"] - before == 1  # `first` only


NO_COMPILER_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import warp_nb as wp
import cached_mod as m
a = wp.ones(8)
wp.launch(m.k, dim=8, inputs=[a])
assert np.allclose(a.numpy(), 5.0), a.numpy()
try:
    wp.launch(m.other, dim=8, inputs=[a])
except wp.CompilerNotFoundError as e:
    print("build refused:", type(e).__name__)
"""


def test_cached_kernels_run_on_a_machine_without_a_compiler(tmp_path):
    """A kernel in the cache launches with no C++ compiler on PATH (a lab machine that received a
    warm cache); a kernel that needs building still says what to install."""
    (tmp_path / "cached_mod.py").write_text(textwrap.dedent("""
        import warp_nb as wp

        @wp.kernel
        def k(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 5.0

        @wp.kernel(module="unique")
        def other(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 7.0
        """))
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "cache"))
    warm = "import sys; sys.path.insert(0, sys.argv[1]); import warp_nb as wp, cached_mod as m; " \
           "wp.launch(m.k, dim=8, inputs=[wp.ones(8)])"
    subprocess.run([sys.executable, "-c", warm, str(tmp_path)], env=env, check=True)
    env.pop("CXX", None)
    env["PATH"] = str(tmp_path / "no-bin")  # no g++, c++ or clang++ to be found
    proc = subprocess.run([sys.executable, "-c", NO_COMPILER_CHILD, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "build refused: CompilerNotFoundError" in proc.stdout


def test_a_hung_compiler_is_stopped_with_a_message(tmp_path):
    """A compiler that never finishes is stopped after wp.config.compile_timeout; nothing is cached."""
    fake = tmp_path / "hung-g++"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'hung-g++ 1.0'; exit 0; fi\nsleep 60\n")
    fake.chmod(0o755)
    code = textwrap.dedent("""
        import warp_nb as wp
        wp.config.compile_timeout = 1.0

        @wp.kernel
        def k(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 9.0

        try:
            wp.launch(k, dim=4, inputs=[wp.ones(4)])
        except wp.KernelCompileError as e:
            print("stopped:", "did not finish within 1 s" in str(e))
        """)
    script = tmp_path / "hung_launch.py"
    script.write_text(code)
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "cache"), CXX=str(fake))
    subprocess.run([sys.executable, "-c", "import warp_nb.runtime.native as r; r.library()"],
                   env=dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "cache")), check=True)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert "stopped: True" in proc.stdout, proc.stdout + proc.stderr[-3000:]
    assert not list((tmp_path / "cache" / cache.VERSION).glob("k_k_*.so"))


def test_build_folders_left_by_a_killed_compile_are_removed(tmp_path):
    directory = tmp_path / "cache" / cache.VERSION
    directory.mkdir(parents=True)
    stale, live = directory / ".build-stale", directory / ".build-live"
    for d in (stale, live):
        d.mkdir()
        (d / "k.cpp").write_text("// half written")
    old = os.path.getmtime(stale) - 3 * 3600
    os.utime(stale, (old, old))
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "cache"))
    # swept when a build starts (not on every lookup: a warm start does not read the whole folder)
    subprocess.run([sys.executable, "-c", "from warp_nb.toolchain import cache; cache.cache_dir()"], env=env,
                   check=True)
    assert stale.exists()
    build = "from warp_nb.toolchain import cache; cache.get_or_build('t', 'k', lambda p: p.write_bytes(b'x'))"
    subprocess.run([sys.executable, "-c", build], env=env, check=True)
    assert not stale.exists() and live.exists()  # a folder in use (recent) is left alone


def test_a_backward_launch_compiles_the_backward_entry_point_alone():
    """Forward launches use the unit compiled without the adjoint; the unit a backward launch
    compiles leaves the forward entry point out (about a quarter of its build time).
    (wp.compile_aot_module asks the front half for every entry point, as before.)"""
    @wp.kernel
    def squares_into(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(y, 0, x[i] * x[i])

    x = wp.array(np.arange(5, dtype=np.float32), requires_grad=True)
    y = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(squares_into, dim=5, inputs=[x, y])
    tape.backward(loss=y)
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.arange(5))
    assert y.numpy()[0] == 30.0

    forward = squares_into.compiled("cpu")
    backward = squares_into.compiled("cpu", backward=True)
    assert forward.unit.backward_entry is None and "_cpu_backward(" not in forward.unit.source
    assert backward.unit.entry is None and "_cpu_forward(" not in backward.unit.source
    assert backward.loaded.entry is None and backward.loaded.adjoint_entry
    # a forward launch after the backward pass runs the forward unit, as before it
    wp.launch(squares_into, dim=5, inputs=[x, y])
    assert y.numpy()[0] == 60.0


def test_a_tapes_backward_units_compile_together(monkeypatch):
    """tape.backward() builds the backward units of the tape's kernels together (bundles, built in
    parallel) before the first backward launch, instead of one per launch; gradients as by hand."""
    @wp.kernel
    def doubled_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i] * x[i]

    @wp.kernel
    def tripled_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 3.0 * x[i] * x[i]

    @wp.kernel
    def quintupled_square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 5.0 * x[i] * x[i]

    kernels = [doubled_square, tripled_square, quintupled_square]
    x = wp.array(np.linspace(0.5, 2.0, 6, dtype=np.float32), requires_grad=True)
    ys = [wp.zeros(6, requires_grad=True) for _ in kernels]
    loss = wp.zeros(1, requires_grad=True)

    @wp.kernel
    def total(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
        wp.atomic_add(loss, 0, y[wp.tid()])

    import warp_nb.program.module as module_code
    monkeypatch.setattr(module_code, "cpu_thread_count", lambda: 2)  # (bundles of two, whatever the machine)
    tape = wp.Tape()
    with tape:
        for k, y in zip(kernels, ys):
            wp.launch(k, dim=6, inputs=[x, y])
            wp.launch(total, dim=6, inputs=[y, loss])
    before = dict(cache.stats)
    tape.backward(loss=loss)
    together = cache.stats["compiled_together"] - before["compiled_together"]
    assert together == 4  # the three squares and `total`, in two bundles of two
    assert cache.stats["compiled"] - before["compiled"] == 4
    np.testing.assert_allclose(x.grad.numpy(), 2 * (2.0 + 3.0 + 5.0) * x.numpy(), rtol=1e-6)
    for k in kernels + [total]:
        assert k.is_ready(wp.get_device("cpu"), backward=True)
