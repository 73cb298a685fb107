"""The `warp._src` names Warp's suite imports that warp_nb gives real behaviour (warp_nb/_src/): the
native-library version check, and the modules of stand-ins that let a file import."""

import types

import pytest

import warp_nb as wp
from warp_nb._src import builtins as src_builtins
from warp_nb._src import context


def lib(**symbols):
    return types.SimpleNamespace(**symbols)


def test_library_versions_are_the_package_version():
    assert context.get_warp_version() == wp.config.version == context.get_warp_clang_version()


def test_verify_library_version_names_what_went_wrong():
    context._verify_library_version(lib(v=lambda: b"1.2.3"), "x", "v", "1.2.3")
    with pytest.raises(RuntimeError, match="Version mismatch.*9.9.9.*1.2.3.*multiple Warp installations"):
        context._verify_library_version(lib(v=lambda: b"9.9.9"), "x", "v", "1.2.3")
    for bad, words in ((lib(), "does not export v"), (lib(v=lambda: None), "empty version"),
                       (lib(v=lambda: b""), "empty version")):
        with pytest.raises(RuntimeError, match=words) as e:
            context._verify_library_version(bad, "x", "v", "1.2.3")
        assert "1.2.3" not in str(e.value)

    def boom():
        raise ValueError("native call failed")

    with pytest.raises(RuntimeError, match="Failed to read") as e:
        context._verify_library_version(lib(v=boom), "x", "v", "1.2.3")
    assert isinstance(e.value.__cause__, ValueError)


def test_builtin_declarations_are_stand_ins():
    with pytest.raises(NotImplementedError, match="warp._src.builtins.tile_full_value_func"):
        src_builtins.tile_full_value_func()


def test_init_kernel_cache_versions_the_folder_once(tmp_path, monkeypatch):
    import os

    from warp_nb._src import build

    saved = (wp.config.kernel_cache_dir, build._resolved_kernel_cache_dir)
    try:
        build.init_kernel_cache(path=str(tmp_path))
        want = os.path.join(os.path.realpath(tmp_path), wp.config.version)
        assert wp.config.kernel_cache_dir == want and os.path.isdir(want)
        build.init_kernel_cache(path=want)  # the folder it chose: not versioned again
        assert wp.config.kernel_cache_dir == want
        assert not os.path.isdir(os.path.join(want, wp.config.version))
        monkeypatch.setenv("WARP_CACHE_PATH", str(tmp_path / "env"))
        build.init_kernel_cache()
        assert wp.config.kernel_cache_dir == os.path.join(os.path.realpath(tmp_path / "env"), wp.config.version)
        assert build._add_long_path_prefix("C:\\a\\b") == "\\\\?\\C:\\a\\b"
    finally:
        wp.config.kernel_cache_dir, build._resolved_kernel_cache_dir = saved


def test_init_kernel_cache_is_where_kernels_go(tmp_path):
    from warp_nb._src import build
    from warp_nb.toolchain import cache

    saved = (wp.config.kernel_cache_dir, build._resolved_kernel_cache_dir)
    try:
        build.init_kernel_cache(path=str(tmp_path))
        # warp_nb's own cache keeps its kernels in the folder chosen, not in a version folder inside it
        assert cache.cache_dir() == tmp_path.resolve() / wp.config.version
    finally:
        wp.config.kernel_cache_dir, build._resolved_kernel_cache_dir = saved


def test_kernel_cache_dir_is_the_resolved_folder_once_initialised(tmp_path):
    # probed in warp-lang 1.19: wp.config.kernel_cache_dir is None after import and the versioned
    # folder (~/.cache/warp/1.19.0) after wp.init() or a call that initialises, such as
    # wp.get_cpu_kernel_cache_key() (its doc example archives that folder)
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("WARP_NB_CACHE_DIR", "WARP_CACHE_PATH")}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    for call in ("wp.get_cpu_kernel_cache_key()", "wp.init()"):
        code = f"import warp_nb as wp\nprint(wp.config.kernel_cache_dir)\n{call}\nprint(wp.config.kernel_cache_dir)"
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split() == ["None", str(tmp_path / "warp_nb" / wp.config.version)]


def test_a_cache_folder_set_back_is_not_versioned_again(tmp_path):
    # a test (or a user) that saves wp.config.kernel_cache_dir, points it elsewhere and sets it back
    # finds its kernels where they were (not in <folder>/<version>/<version>)
    from warp_nb.toolchain import cache

    saved = wp.config.kernel_cache_dir
    try:
        wp.config.kernel_cache_dir = str(tmp_path / "a")
        first = cache.cache_dir()
        chosen = wp.config.kernel_cache_dir
        assert chosen == str(tmp_path / "a" / wp.config.version) == str(first)
        wp.config.kernel_cache_dir = str(tmp_path / "b")
        assert cache.cache_dir() == tmp_path / "b" / wp.config.version
        wp.config.kernel_cache_dir = chosen
        assert cache.cache_dir() == first
    finally:
        wp.config.kernel_cache_dir = saved

def test_pluggable_logger_receives_warnings_and_scopes_restore(capsys):
    import warnings

    from warp_nb import errors

    class Capture:
        def __init__(self):
            self.got = []

        def debug(self, m):
            self.got.append(("debug", m))

        def info(self, m):
            self.got.append(("info", m))

        def warning(self, m, category=None, stacklevel=1):
            self.got.append(("warning", m))

        def error(self, m):
            self.got.append(("error", m))

    original = wp.get_logger()
    cap = Capture()
    with wp.ScopedLogger(cap) as scope:
        assert scope.logger is cap and wp.get_logger() is cap
        errors.warn("from warp_nb")
        errors.log_error("bad")
    assert wp.get_logger() is original
    assert cap.got == [("warning", "from warp_nb"), ("error", "bad")]
    with pytest.raises(TypeError):
        wp.set_logger(object())
    with pytest.raises(TypeError):
        wp.Logger()
    errors.LoggerBasic().error("x")
    assert capsys.readouterr().err == "Warp Error: x\n"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        errors.warn("shown")  # the default logger: a Python warning pointing at this line
    assert seen[0].filename == __file__ and str(seen[0].message) == "shown"
