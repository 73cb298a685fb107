"""A module's life: what its hash covers (kernel options, build settings, inline hints), the block
dim a CPU launch resolves to (runtime/block_dim.py), Module.load's ModuleExec, unload, references
and dependents, and wp.load_module reporting a kernel that does not compile."""

import importlib.util

import numpy as np
import pytest

import warp_nb as wp
from warp_nb._src.context import ModuleBuilder
from warp_nb.runtime.block_dim import resolve_block_dim


@pytest.fixture
def cpu_blocks():
    """Set wp.config.enable_cpu_blocks for a test, restored after it."""
    before = wp.config.enable_cpu_blocks

    def set_to(value):
        wp.config.enable_cpu_blocks = value

    yield set_to
    wp.config.enable_cpu_blocks = before


def _module_from(tmp_path, text, name):
    path = tmp_path / f"{name}.py"
    path.write_text("import warp_nb as wp\n" + text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the block dim ------------------------------------------------------------------------------

def test_cpu_block_dim_resolves_to_one_lane_unless_enabled_and_asked(cpu_blocks):
    cpu = wp.get_device("cpu")
    for enabled in (False, True):
        cpu_blocks(enabled)
        for asked in (None, -3, 0, 1):
            assert resolve_block_dim(cpu, asked) == 1
        assert resolve_block_dim(cpu, 8) == (8 if enabled else 1)
        with pytest.raises(ValueError, match="at most 1024 on CPU"):
            resolve_block_dim(cpu, 1025)


@wp.kernel
def _lanes(out: wp.array(dtype=wp.int32)):
    out[wp.tid()] = wp.block_dim()


@wp.kernel
def _scale_by_lanes(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * float(wp.block_dim())


@pytest.mark.needs_cxx
def test_launch_and_recorded_command_keep_their_block_dim(cpu_blocks):
    out = wp.zeros(5, dtype=wp.int32, device="cpu")
    cpu_blocks(True)
    wp.launch(_lanes, dim=5, inputs=[out], device="cpu")  # not asked: one lane, as in Warp
    np.testing.assert_array_equal(out.numpy(), np.ones(5))
    cmd = wp.launch(_lanes, dim=5, inputs=[out], device="cpu", block_dim=4, record_cmd=True)
    assert cmd.block_dim == 4 and cmd.module_exec.block_dim == 4
    cpu_blocks(False)
    cmd.launch()  # replays with the lanes it was made with
    np.testing.assert_array_equal(out.numpy(), np.full(5, 4))
    assert wp.Launch(_lanes, "cpu", block_dim=4).block_dim == 1
    with pytest.raises(ValueError, match="at most 1024 on CPU"):
        wp.launch(_lanes, dim=1, inputs=[out], device="cpu", block_dim=2048)


@pytest.mark.needs_cxx
def test_tape_backward_runs_with_the_forward_block_dim(cpu_blocks):
    x = wp.array(np.arange(6, dtype=np.float32), dtype=float, device="cpu", requires_grad=True)
    y = wp.zeros_like(x, requires_grad=True)
    cpu_blocks(True)
    with wp.Tape() as tape:
        wp.launch(_scale_by_lanes, dim=6, inputs=[x], outputs=[y], device="cpu", block_dim=3)
    assert tape.launches[0][6] == 3
    cpu_blocks(False)
    tape.backward(grads={y: wp.ones_like(y)})
    np.testing.assert_allclose(y.numpy(), x.numpy() * 3.0)
    np.testing.assert_allclose(x.grad.numpy(), np.full(6, 3.0))  # dy/dx = the lanes, 3


# --- the module hash ----------------------------------------------------------------------------

def test_kernel_options_and_verify_fp_enter_the_hash():
    def make(registers):
        @wp.kernel(cuda_max_registers=registers, module="unique")
        def k(a: wp.array(dtype=int)):
            a[wp.tid()] = 0

        return k.module

    assert make(32).hash_module() == make(32).hash_module()
    assert make(32).hash_module() != make(64).hash_module()
    module = make(16)
    before = wp.config.verify_fp
    try:
        wp.config.verify_fp = False
        off = module.hash_module()
        wp.config.verify_fp = True
        assert module.hash_module() != off
    finally:
        wp.config.verify_fp = before


def test_a_kernel_that_does_not_compile_still_hashes_by_its_definition(tmp_path):
    text = "@wp.func\ndef f():\n    wp.print({})\n\n@wp.kernel\ndef k():\n    print(f())\n"
    a = _module_from(tmp_path, text.format(17), "wpnb_life_hash_a")
    b = _module_from(tmp_path, text.format(17), "wpnb_life_hash_b")
    c = _module_from(tmp_path, text.format(42), "wpnb_life_hash_c")
    hashes = [wp.get_module(m.__name__).hash_module() for m in (a, b, c)]
    assert hashes[0] == hashes[1] != hashes[2]


@pytest.mark.needs_cxx
def test_inline_hint_is_written_into_the_cpp_and_runs():
    text = {}
    for inline in (None, True, False):
        @wp.func(inline=inline, module="unique")
        def add_one(x: float) -> float:
            return x + 1.0

        @wp.kernel(module=add_one.module)
        def k(a: wp.array(dtype=float)):
            a[wp.tid()] = add_one(a[wp.tid()])

        a = wp.array(np.arange(3, dtype=np.float32), device="cpu")
        wp.launch(k, dim=3, inputs=[a], device="cpu")
        np.testing.assert_allclose(a.numpy(), np.arange(3) + 1.0)
        text[inline] = (ModuleBuilder(k.module).codegen("cpu"), k.module.hash_module())
    assert "WPNB_FORCEINLINE_FN" in text[True][0] and "WPNB_NOINLINE_FN" in text[False][0]
    assert "WPNB_FORCEINLINE_FN" not in text[None][0] and "WPNB_NOINLINE_FN" not in text[None][0]
    assert len({h for _, h in text.values()}) == 3


# --- load, unload, references -------------------------------------------------------------------

_PROVIDER = "@wp.func\ndef twice(x: float):\n    return 2.0 * x\n"
_CONSUMER = """
import wpnb_life_provider as p

@wp.kernel
def k(a: wp.array(dtype=float)):
    f = p.twice
    a[wp.tid()] = f(a[wp.tid()])
"""


@pytest.mark.needs_cxx
def test_load_unload_references_and_dependents(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "wpnb_life_provider.py").write_text("import warp_nb as wp\n" + _PROVIDER)
    consumer = _module_from(tmp_path, _CONSUMER, "wpnb_life_consumer")
    provider = __import__("wpnb_life_provider")
    module, provider_module = consumer.k.module, provider.twice.module
    assert provider_module in module.references and module in provider_module.dependents

    @wp.kernel(module="unique")
    def other(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    wp.set_module_options({"deterministic": True}, module=other.module)  # invalid (not a DeterministicMode)
    assert module in provider_module.dependents  # another module's bad options do not break the search

    loaded = module.load("cpu")
    assert loaded is module.load("cpu") and (None, 1) in module.execs
    assert loaded.get_kernel_hooks(consumer.k).forward
    module.unload()
    assert not module.execs and not module.hashers
    a = wp.array([1.0, 2.0], dtype=float, device="cpu")
    wp.launch(consumer.k, dim=2, inputs=[a], device="cpu")  # loads again
    np.testing.assert_allclose(a.numpy(), [2.0, 4.0])


_ONE_BAD = """
@wp.kernel
def bad(a: wp.array(dtype=float)):
    a[0] = undefined_name

@wp.kernel
def good(a: wp.array(dtype=float)):
    a[wp.tid()] = 7.0
"""


@pytest.mark.needs_cxx
def test_load_module_reports_a_bad_kernel_and_its_sibling_still_runs(tmp_path):
    m = _module_from(tmp_path, _ONE_BAD, "wpnb_life_one_bad")
    with pytest.raises(Exception, match="undefined_name"):
        wp.load_module(m, device="cpu")
    assert m.good.module.load("cpu") is None  # not every kernel compiled
    a = wp.zeros(3, dtype=float, device="cpu")
    wp.launch(m.good, dim=3, inputs=[a], device="cpu")
    np.testing.assert_allclose(a.numpy(), np.full(3, 7.0))
