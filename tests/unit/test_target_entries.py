"""The device seam: the emitter writes the text every target shares and describes the entry points
a kernel needs; each target adds its prelude and writes and names its entry points
(emit.for_target, called by the pipeline's front half, so the cache key covers them). A new device
kind is a target object: the stub target below is one, and the front half takes it as it is."""

import textwrap

import pytest

import warp_nb as wp
from warp_nb.compiler.adjoint import adjoint_unit
from warp_nb.compiler.emit import emit_kernel, for_target
from warp_nb.compiler.emit.bundle import bundle_source, can_join
from warp_nb.compiler.parse import parse_source
from warp_nb.compiler.pipeline import CompileOptions, front_half
from warp_nb.compiler.scope import Scope
from warp_nb.compiler.typecheck import Context, typecheck_kernel
from warp_nb.cuda.target import AotCudaTarget
from warp_nb.runtime.target import CpuTarget, Target
from warp_nb.types.array_type import ArrayType

SUM = """
def k(a: wp.array2d(dtype=float), total: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(total, 0, a[i, j])
"""


def typed(src: str = SUM, mode="release"):
    params = (ArrayType(wp.float32, 2), ArrayType(wp.float32, 1))
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp}
    return typecheck_kernel(parse_source(textwrap.dedent(src), "k.py"), list(params), scope, Context(mode))


def _need_nvrtc():
    """The CUDA target's cache key has the NVRTC version: skip where there is no NVRTC."""
    from warp_nb.toolchain import nvrtc
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")


class StubTarget(Target):
    """A device kind that only writes text: what a new kind implements for the front half."""

    name = "stub"
    prelude = ("#define WPNB_STUB 1", '#include "prelude.h"')

    def entry_name(self, entry) -> str:
        return f"{entry.symbol}_stub_{entry.direction}"

    def entry_point(self, entry) -> str:
        return f"// stub entry: {entry.tid_count} indices, {len(entry.accumulators)} accumulators\n"

    def key_parts(self, options) -> tuple:
        return ("stub",)


def test_the_emitted_text_has_no_entry_points_and_describes_them():
    unit = emit_kernel(typed(), "release")
    assert unit.entry is None and unit.backward_entry is None and unit.prelude == ()
    assert "WPNB_KERNEL" not in unit.source and "WPNB_CPU" not in unit.source and "WPNB_CUDA" not in unit.source
    (forward,) = unit.entry_points
    assert (forward.direction, forward.tid_count, forward.lanes, forward.body) == ("forward", 2, 1, "body")
    names = tuple(p.name for p in typed().params)  # (the C++ names of the parameters)
    assert [a.array.name for a in forward.accumulators] == [names[1]] and forward.arrays == names


def test_each_target_writes_and_names_its_own_entry_points():
    base = emit_kernel(typed(), "release")
    sym = typed().symbol
    cpu, cuda = for_target(base, CpuTarget()), for_target(base, AotCudaTarget(90, use_ptx=True))
    assert (cpu.entry, cuda.entry) == (f"{sym}_cpu_forward", f"{sym}_cuda_forward")
    assert f"WPNB_KERNEL void {sym}_cpu_forward(" in cpu.source and "_cuda_forward" not in cpu.source
    assert f"WPNB_KERNEL void {sym}_cuda_forward(" in cuda.source and "_cpu_forward" not in cuda.source
    # the prelude names the target before any native header; the shared text is unchanged
    for unit, macro in ((cpu, "WPNB_CPU"), (cuda, "WPNB_CUDA")):
        assert unit.source.index(f"#define {macro} 1") < unit.source.index("#include ")
        assert [k for k, _ in unit.sections][:len(base.sections)] == [k for k, _ in base.sections]
    assert cpu.sections[-1][0] == f"entry:{sym}_cpu_forward"


def test_a_backward_unit_gets_a_backward_entry_point_from_the_target():
    kernel = typed()
    base = emit_kernel(kernel, "release", adjoint_unit(kernel, True))
    assert [e.direction for e in base.entry_points] == ["forward", "backward"]
    assert base.entry_points[1].accumulators == () and base.entry_points[1].body == "backward_body"
    unit = for_target(base, StubTarget())
    assert (unit.entry, unit.backward_entry) == (f"{kernel.symbol}_stub_forward", f"{kernel.symbol}_stub_backward")
    assert "// stub entry: 2 indices, 1 accumulators" in unit.source


def test_a_new_device_kind_is_one_target_object_for_the_front_half():
    @wp.kernel(module="unique")
    def scale(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] * 2.0

    stub = front_half(scale, scale.param_types, CompileOptions(), StubTarget())
    cpu = front_half(scale, scale.param_types, CompileOptions(), CpuTarget())
    assert stub.unit.entry.endswith("_stub_forward") and "#define WPNB_STUB 1" in stub.unit.source
    assert stub.key != cpu.key  # its entry points and prelude are in the text, its key parts in the key
    assert front_half(scale, scale.param_types, CompileOptions()).key is None


@pytest.mark.needs_nvrtc
def test_each_target_compiles_its_own_build_preamble():
    @wp.kernel(module="unique")
    def neg(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = -a[i]

    _need_nvrtc()
    opts = wp.ModuleBuildOptions(extra_cpu_preamble="#define ONLY_CPU 1", extra_cuda_preamble="#define ONLY_CUDA 1")
    sources = {name: front_half(neg, neg.param_types, CompileOptions(), t, build_options=opts).unit.source
               for name, t in (("cpu", CpuTarget()), ("cuda", AotCudaTarget(90, True)), ("none", None))}
    assert "ONLY_CPU" in sources["cpu"] and "ONLY_CUDA" not in sources["cpu"]
    assert "ONLY_CUDA" in sources["cuda"] and "ONLY_CPU" not in sources["cuda"]
    assert "ONLY_" not in sources["none"]  # (the module hash has the options' digest instead)
    assert sources["cpu"].index('#include "') < sources["cpu"].index("ONLY_CPU") < sources["cpu"].index("_body")


def test_units_join_a_bundle_only_for_the_same_target():
    a = for_target(emit_kernel(typed(), "release"), CpuTarget())
    b = for_target(emit_kernel(typed(SUM.replace("def k", "def k2")), "release"), CpuTarget())
    c = for_target(emit_kernel(typed(SUM.replace("def k", "def k3")), "release"), StubTarget())
    assert can_join([a], b) and not can_join([a], c)
    text = bundle_source([a, b])
    assert text.count("#define WPNB_CPU 1") == 1 and a.entry in text and b.entry in text


@pytest.mark.needs_nvrtc
def test_the_cache_key_differs_per_target():
    _need_nvrtc()

    @wp.kernel(module="unique")
    def inc(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + 1.0

    keys = {front_half(inc, inc.param_types, CompileOptions(), t).key
            for t in (CpuTarget(), AotCudaTarget(90, True), AotCudaTarget(90, False), AotCudaTarget(80, True))}
    assert len(keys) == 4


def test_module_codegen_gives_the_devices_entry_points(tmp_path):
    import sys
    (tmp_path / "wpnb_codegen_mod.py").write_text(textwrap.dedent("""
        import warp_nb as wp
        @wp.kernel
        def twice(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = 2.0 * a[i]
        """))
    sys.path.insert(0, str(tmp_path))
    try:
        import wpnb_codegen_mod  # noqa: F401
    finally:
        sys.path.remove(str(tmp_path))
    builder = wp._src.context.ModuleBuilder(wp.get_module("wpnb_codegen_mod"))
    cpu, cuda = builder.codegen("cpu"), builder.codegen("cuda")
    assert "_cpu_forward" in cpu and "_cuda_forward" not in cpu and "#define WPNB_CPU 1" in cpu
    assert "_cuda_forward" in cuda and "_cpu_forward" not in cuda and "#define WPNB_CUDA 1" in cuda
