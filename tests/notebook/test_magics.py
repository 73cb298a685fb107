"""%%kernel and friends in a real IPython shell: definitions, incremental compilation counted with
warp_nb.toolchain.cache.stats / pipeline.compile_log (never timed), errors at the cell's lines."""

import inspect
import time

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.toolchain import cache
from warp_nb.compiler import pipeline
from warp_nb.magics import cells

pytestmark = pytest.mark.needs_cxx


def run(ip, text):
    """Run a cell as Jupyter does (history on, so cells are numbered)."""
    return ip.run_cell(text, store_history=True)


def ok(ip, text):
    r = run(ip, text)
    assert r.error_in_exec is None and r.error_before_exec is None, r.error_in_exec
    return r


def saxpy_cell(name, scale="a"):
    return (f"%%kernel\n"
            f"def {name}(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):\n"
            f"    i = wp.tid()\n"
            f"    y[i] = {scale} * x[i] + y[i]\n")


def launch_saxpy(ip, name, a=2.0, n=8):
    x = np.arange(n, dtype=np.float32)
    ip.user_ns.update(_x=wp.array(x), _y=wp.ones(n))
    ok(ip, f"wp.launch({name}, dim={n}, inputs=[{a}, _x, _y])")
    return ip.user_ns["_y"].numpy(), x


def rendered(error) -> str:
    """What the notebook shows for an error raised by a magic."""
    if hasattr(error, "_render_traceback_"):
        return "\n".join(error._render_traceback_())
    return f"{type(error).__name__}: {error}"  # IPython's own UsageError, shown without a traceback


# --- definitions ------------------------------------------------------------------------------


def test_plain_def_becomes_a_kernel_defined_as_wp_kernel_would(ip, uniq):
    before = cache.stats["compiled"]
    ok(ip, saxpy_cell(f"saxpy_{uniq}"))
    k = ip.user_ns[f"saxpy_{uniq}"]
    assert isinstance(k, wp.Kernel) and k.key == f"saxpy_{uniq}"
    assert cache.stats["compiled"] == before + 1  # compiled when the cell ran, not at the first launch
    y, x = launch_saxpy(ip, f"saxpy_{uniq}")
    np.testing.assert_allclose(y, 2.0 * x + 1.0)


def test_cell_source_is_registered_for_inspect_and_tracebacks(ip, uniq):
    ok(ip, saxpy_cell(f"src_{uniq}"))
    k = ip.user_ns[f"src_{uniq}"]
    text = inspect.getsource(k.func)
    assert text.startswith(f"def src_{uniq}(") and "y[i] = a * x[i] + y[i]" in text
    # the %%kernel line is line 1 of the cell, as in the notebook's gutter
    assert k.func.__code__.co_firstlineno == 2


def test_func_cell_and_decorated_names_keep_their_meaning(ip, uniq):
    ok(ip, f"%%func\ndef twice_{uniq}(v: float) -> float:\n    return v * 2.0\n")
    assert isinstance(ip.user_ns[f"twice_{uniq}"], wp.Function)
    ok(ip, f"%%kernel\n@wp.struct\nclass P_{uniq}:\n    v: float\n\n@wp.func\ndef half_{uniq}(v: float) -> float:\n"
           f"    return v * 0.5\n\ndef k_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n"
           f"    x[i] = half_{uniq}(twice_{uniq}(x[i])) + 1.0\n")
    assert isinstance(ip.user_ns[f"half_{uniq}"], wp.Function)
    assert getattr(ip.user_ns[f"P_{uniq}"], "_wp_struct_", False)
    x = np.linspace(0, 1, 5).astype(np.float32)
    ip.user_ns["_a"] = wp.array(x)
    ok(ip, f"wp.launch(k_{uniq}, dim=5, inputs=[_a])")
    np.testing.assert_allclose(ip.user_ns["_a"].numpy(), x + 1.0)


# --- incremental compilation -------------------------------------------------------------------


def test_rerun_of_an_unchanged_cell_compiles_and_retypes_nothing(ip, uniq):
    cell = saxpy_cell(f"re_{uniq}")
    ok(ip, cell)
    k = ip.user_ns[f"re_{uniq}"]
    compiled, log = cache.stats["compiled"], len(pipeline.compile_log)
    t0 = time.perf_counter()
    ok(ip, cell)
    elapsed = time.perf_counter() - t0
    assert cache.stats["compiled"] == compiled and len(pipeline.compile_log) == log
    assert ip.user_ns[f"re_{uniq}"] is k  # the same kernel object: nothing was re-typed
    assert cells.LAST.reused
    assert elapsed < 0.1


def test_editing_a_cell_recompiles_that_cell_only(ip, uniq):
    ok(ip, saxpy_cell(f"a_{uniq}"))
    ok(ip, saxpy_cell(f"b_{uniq}"))
    b = ip.user_ns[f"b_{uniq}"]
    b_code = b.compiled()
    compiled = cache.stats["compiled"]
    ok(ip, saxpy_cell(f"a_{uniq}", scale="3.0 * a"))
    assert cache.stats["compiled"] == compiled + 1
    assert ip.user_ns[f"b_{uniq}"] is b and b.compiled() is b_code  # the other cell kept its code
    y, x = launch_saxpy(ip, f"a_{uniq}", a=1.0)
    np.testing.assert_allclose(y, 3.0 * x + 1.0)
    y, x = launch_saxpy(ip, f"b_{uniq}", a=1.0)
    np.testing.assert_allclose(y, x + 1.0)


def _func_cell(uniq, factor):
    return f"%%func\ndef shape_{uniq}(v: float) -> float:\n    return v * {factor}\n"


def test_editing_a_func_recompiles_exactly_the_kernels_that_use_it(ip, uniq):
    ok(ip, _func_cell(uniq, "2.0"))
    user_cell = ok(ip, f"%%kernel\ndef user_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n"
                       f"    x[i] = shape_{uniq}(x[i])\n")
    ok(ip, f"%%kernel\ndef other_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] + 1.0\n")
    other = ip.user_ns[f"other_{uniq}"]
    other_code = other.compiled()
    compiled, log = cache.stats["compiled"], len(pipeline.compile_log)
    ok(ip, _func_cell(uniq, "3.0"))
    assert cache.stats["compiled"] == compiled + 1  # the one kernel using it, nothing else
    assert [key for key, _, _ in pipeline.compile_log[log:]] == [f"user_{uniq}"]
    assert other.compiled() is other_code
    assert cells.LAST.dependents == [(f"user_{uniq}", f"cell [{user_cell.execution_count}]", True)]
    ip.user_ns["_a"] = wp.array(np.ones(4, dtype=np.float32))
    ok(ip, f"wp.launch(user_{uniq}, dim=4, inputs=[_a])")
    np.testing.assert_allclose(ip.user_ns["_a"].numpy(), 3.0)
    # the old definition again: the dependent comes back from the cache, compiling nothing
    compiled = cache.stats["compiled"]
    ok(ip, _func_cell(uniq, "2.0"))
    assert cache.stats["compiled"] == compiled
    assert cells.LAST.dependents == [(f"user_{uniq}", f"cell [{user_cell.execution_count}]", False)]
    ok(ip, f"wp.launch(user_{uniq}, dim=4, inputs=[_a])")
    np.testing.assert_allclose(ip.user_ns["_a"].numpy(), 6.0)


def test_a_func_redefined_in_an_ordinary_cell_reaches_kernels_at_their_next_launch(ip, uniq):
    ok(ip, f"@wp.func\ndef g_{uniq}(v: float) -> float:\n    return v + 1.0\n")
    ok(ip, f"%%kernel\ndef use_g_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = g_{uniq}(x[i])\n")
    ok(ip, f"@wp.func\ndef g_{uniq}(v: float) -> float:\n    return v + 5.0\n")
    ip.user_ns["_a"] = wp.zeros(3)
    ok(ip, f"wp.launch(use_g_{uniq}, dim=3, inputs=[_a])")
    np.testing.assert_allclose(ip.user_ns["_a"].numpy(), 5.0)


# --- errors ----------------------------------------------------------------------------------


def test_kernel_error_is_raised_at_the_cell_line_and_the_old_definition_stays(ip, uniq):
    ok(ip, saxpy_cell(f"e_{uniq}"))
    good = ip.user_ns[f"e_{uniq}"]
    r = run(ip, f"%%kernel\ndef e_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = nope_{uniq} + 1.0\n")
    assert isinstance(r.error_in_exec, wp.KernelNameError)
    text = rendered(r.error_in_exec)
    assert f"cell [{r.execution_count}], line 4" in text
    assert f"x[i] = nope_{uniq} + 1.0" in text and "^^^^" in text
    assert "Traceback" not in text and "warp_nb" not in text and "site-packages" not in text
    assert ip.user_ns[f"e_{uniq}"] is good
    y, x = launch_saxpy(ip, f"e_{uniq}")
    np.testing.assert_allclose(y, 2.0 * x + 1.0)


def test_an_ordinary_cells_kernel_error_names_the_cell_not_a_temp_file(ip, uniq):
    """@wp.kernel in an ordinary cell: IPython compiles it from /tmp/ipykernel_.../<hash>.py, and
    the error names `cell [N], line L` as the %%kernel magic does."""
    cell = (f"@wp.kernel\ndef bad_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n"
            f"    x[i] = missing_{uniq} * 2.0\n")
    defined = run(ip, cell)
    assert defined.error_in_exec is None  # errors surface at launch, as in Warp
    ip.user_ns["_x"] = wp.zeros(2)
    r = run(ip, f"wp.launch(bad_{uniq}, dim=2, inputs=[_x])")
    assert isinstance(r.error_in_exec, wp.KernelNameError)
    message = str(r.error_in_exec)
    assert f"cell [{defined.execution_count}], line 4" in message
    assert "ipykernel_" not in message and ".py, line" not in message


def test_a_cell_magic_below_a_comment_says_it_must_come_first(ip, uniq):
    r = run(ip, f"# my kernel\n%%kernel\ndef m_{uniq}(x: wp.array(dtype=float)):\n    i = wp.tid()\n")
    assert "must be the first line of its cell" in str(r.error_in_exec)
    assert "line 2" in str(r.error_in_exec) and f"m_{uniq}" not in ip.user_ns
    ok(ip, f"v_{uniq} = 1  # a %%kernel inside a comment is left alone\nw_{uniq} = v_{uniq} + 1\n")
    assert ip.user_ns[f"w_{uniq}"] == 2


def test_one_failing_kernel_does_not_stop_the_others_of_its_cell(ip, uniq):
    r = run(ip, f"%%kernel\ndef fine_{uniq}(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n\n"
                f"def broken_{uniq}(x: wp.array(dtype=float)):\n    x[wp.tid()] = wp.vec3(1.0)\n")
    assert isinstance(r.error_in_exec, wp.KernelError)
    assert f"fine_{uniq}" in ip.user_ns and f"broken_{uniq}" not in ip.user_ns
    assert "line 6" in rendered(r.error_in_exec)


@pytest.mark.parametrize("cell, words", [
    ("%%kernel\ndef bad(x: wp.array(dtype=float)\n    i = wp.tid()\n", ["SyntaxError", "line 2", "no name changed"]),
    ("%%kernel\nNEW_NAME_{u} = 5\n", ["has no `def`"]),
    ("%%kernel\n", ["cell body is empty"]),
    ("%%kernel --fast\ndef k_{u}(x: wp.array(dtype=float)):\n    pass\n", ["unrecognized arguments: --fast", "Usage"]),
    ("%%kernel --mode quick\ndef k_{u}(x: wp.array(dtype=float)):\n    pass\n", ["invalid choice", "Usage"]),
    ("%%kernel --device cuda:7\ndef k_{u}(x: wp.array(dtype=float)):\n    pass\n", ["cuda:7", "not available"]),
    ("%%kernel --device tpu\ndef k_{u}(x: wp.array(dtype=float)):\n    pass\n", ["not a device name"]),
    ("%%kernel\ndef k_{u}(x: wp.array(dtype=float), n: missing_type_{u}):\n    pass\n", ["missing_type_", "line 2"]),
    ("%%func --device cpu\ndef f_{u}(v: float) -> float:\n    return v\n", ["unrecognized arguments"]),
])
def test_bad_input_gives_one_paragraph_and_leaves_the_namespace_unchanged(ip, uniq, cell, words):
    before = dict(ip.user_ns)
    r = run(ip, cell.replace("{u}", uniq))
    assert r.error_in_exec is not None
    text = rendered(r.error_in_exec)
    for w in words:
        assert w in text, text
    assert "Traceback" not in text
    changed = {k for k in ip.user_ns if k not in before or ip.user_ns[k] is not before[k]}
    assert not {k for k in changed if not k.startswith("_")}, changed


# --- options and line magics -------------------------------------------------------------------


def test_mode_debug_turns_out_of_bounds_into_index_error(ip, uniq):
    ok(ip, f"%%kernel --mode debug\ndef oob_{uniq}(x: wp.array(dtype=float)):\n    x[wp.tid() + 1] = 1.0\n")
    assert ip.user_ns[f"oob_{uniq}"].mode == "debug"
    ip.user_ns["_a"] = wp.zeros(4)
    r = run(ip, f"wp.launch(oob_{uniq}, dim=4, inputs=[_a])")
    assert isinstance(r.error_in_exec, IndexError)


def test_source_magic_shows_forward_and_adjoint(ip, uniq, capsys):
    ok(ip, saxpy_cell(f"cpp_{uniq}"))
    shown = ip.run_line_magic("wp_source", f"cpp_{uniq}")
    assert f"cpp_{uniq}" in shown.data and "adj_" in shown.data
    forward = ip.run_line_magic("wp_source", f"cpp_{uniq} --forward")
    assert "adj_" not in forward.data
    assert "<span" in shown._repr_html_()  # highlighted
    r = run(ip, "%wp_source np")
    assert "not a kernel" in rendered(r.error_in_exec)
    # a kernel of an ordinary cell: the comments name its cell, not IPython's temporary file
    plain = run(ip, f"@wp.kernel\ndef plain_{uniq}(x: wp.array(dtype=float)):\n    x[wp.tid()] = 1.0\n")
    text = ip.run_line_magic("wp_source", f"plain_{uniq} --forward").data
    assert f"cell [{plain.execution_count}]" in text and "ipykernel" not in text


def test_time_magic_and_kernel_time_option(ip, uniq, capsys):
    ok(ip, saxpy_cell(f"tm_{uniq}").replace("%%kernel", "%%kernel --time"))
    capsys.readouterr()
    launch_saxpy(ip, f"tm_{uniq}")
    assert f"tm_{uniq}: 1 launch in this cell" in capsys.readouterr().out
    ok(ip, f"%wp_time wp.launch(tm_{uniq}, dim=8, inputs=[1.0, _x, _y])")
    out = capsys.readouterr().out
    assert f"tm_{uniq}" in out and "launches" in out
    ok(ip, "%wp_time off")
    from warp_nb.launch import launcher
    assert not launcher.listeners


def test_device_and_cache_magics(ip, capsys):
    ok(ip, "%wp_device")
    assert "default device: cpu" in capsys.readouterr().out
    ok(ip, "%wp_device cpu")
    assert wp.get_device().alias == "cpu"
    r = run(ip, "%wp_device cuda:9")
    assert "cuda:9" in rendered(r.error_in_exec)
    ok(ip, "%wp_cache")
    assert "this session" in capsys.readouterr().out
    from warp_nb.magics import cache_info
    info = cache_info()
    assert info["entries"] >= 1 and info["compiled"] == cache.stats["compiled"]


def test_clear_cache_function(ip, uniq, fresh_cache):
    from warp_nb.magics import cache_info, clear_cache
    ok(ip, saxpy_cell(f"clr_{uniq}"))
    assert cache_info()["entries"] == 1
    assert clear_cache() == 1 and cache_info()["entries"] == 0


def test_every_magic_docstring_has_an_example(ip):
    for kind, name in [("cell", "kernel"), ("cell", "func"), ("line", "wp_device"), ("line", "wp_source"),
                       ("line", "wp_time"), ("line", "wp_cache")]:
        doc = ip.find_magic(name, kind).__doc__
        assert "Example" in doc, name


def test_source_option_displays_the_cells_kernels(ip, uniq, monkeypatch):
    shown = []
    import IPython.display
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    ok(ip, saxpy_cell(f"shw_{uniq}").replace("%%kernel", "%%kernel --source"))
    assert len(shown) == 1 and f"shw_{uniq}" in shown[0].data and "adj_" not in shown[0].data


def test_cell_number_is_right_whether_ipython_counts_before_or_after_running():
    from types import SimpleNamespace as NS

    current_cell_number = cells.current_cell_number
    body = "def k(x: wp.array(dtype=float)):\n    pass\n"
    history = ["", "import warp_nb as wp", "%%kernel\n" + body]
    counted_after = NS(execution_count=2, history_manager=NS(input_hist_raw=history))  # IPython 8
    counted_before = NS(execution_count=3, history_manager=NS(input_hist_raw=history))  # IPython 9
    no_history = NS(execution_count=2, history_manager=NS(input_hist_raw=history[:2]))
    assert current_cell_number(counted_after, body) == 2
    assert current_cell_number(counted_before, body) == 2
    assert current_cell_number(no_history, body) == 2


def test_magic_help_is_plain_text_with_the_right_prefix(ip):
    """`%%kernel?` says `Usage: %%kernel ...` (IPython's default shows `%kernel` after a reST `::`)."""
    kernel_doc = ip.find_magic("kernel", "cell").__doc__
    assert kernel_doc.startswith("Usage: %%kernel [--device DEVICE]")
    assert ip.find_magic("func", "cell").__doc__.startswith("Usage: %%func")
    assert ip.find_magic("wp_device", "line").__doc__.startswith("Usage: %wp_device")
    for kind, name in [("cell", "kernel"), ("cell", "func"), ("line", "wp_device"), ("line", "wp_cache")]:
        assert "::" not in ip.find_magic(name, kind).__doc__, name


def test_the_compile_line_says_the_time_once(ip, uniq, capsys):
    """One line per cell, with one time (the cell's): `1 kernel: 1 compiled [251.8 ms]`, then
    `1 kernel: 1 cached [...]` when the unchanged cell runs again."""
    import re
    for expected in ("1 compiled", "(cell unchanged: nothing re-typed)"):
        ok(ip, saxpy_cell(f"timed_{uniq}"))
        line = capsys.readouterr().out.strip().splitlines()[-1]
        assert expected in line, line
        assert len(re.findall(r"\d+(\.\d+)? (ms|s)\b", line)) == 1, line


def test_loading_the_extension_again_is_quiet(ip, capsys):
    """`%load_ext warp_nb` once more (a lab's first cell run twice) does nothing and says nothing;
    IPython's message for other extensions is left as it was (issue 24 item 2)."""
    capsys.readouterr()
    for _ in range(2):
        ok(ip, "%load_ext warp_nb")
    assert capsys.readouterr().out == ""
    ok(ip, "%load_ext autoreload")
    ok(ip, "%load_ext autoreload")
    assert "The autoreload extension is already loaded" in capsys.readouterr().out
    ok(ip, "%unload_ext autoreload")
    assert "extension" in ip.find_line_magic("load_ext").__doc__  # %load_ext? reads as IPython's
