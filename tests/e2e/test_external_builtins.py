"""wp.build_experimental.add_builtin end to end: a tiny C++ library compiled here with the system's
C++ compiler (a header with inline functions and an adjoint, and a shared library the kernel links),
registered as builtins and called from kernels. Values are compared with numpy, the gradient with
central differences; the cache key follows the header's contents; kernels compiled before a
registration keep working; bad registrations are refused with messages that name the argument."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

LIBRARY_HEADER = "#pragma once\nnamespace tinyext { float cube(float x); }  // defined in the library\n"
HEADER = """#pragma once
namespace tinyext {
CUDA_CALLABLE inline float smooth_abs(float x, float eps) { return x * x / (x * x + eps) * (x < 0.0f ? -x : x) + eps * 0.0f; }
CUDA_CALLABLE inline void adj_smooth_abs(float x, float eps, float& adj_x, float& adj_eps, float adj_ret) {
    float s = x < 0.0f ? -1.0f : 1.0f, d = x * x + eps, a = x < 0.0f ? -x : x;
    adj_x += adj_ret * (2.0f * x * eps / (d * d) * a + x * x / d * s);
    adj_eps += adj_ret * (-x * x / (d * d) * a);
}
CUDA_CALLABLE inline int twice(int k) { return SCALE * k; }
}  // namespace tinyext
"""


def _compiler():
    return shutil.which("g++") or shutil.which("clang++")


@pytest.fixture(scope="module")
def tinyext(tmp_path_factory):
    """The header and the shared library, built once for this file."""
    folder = tmp_path_factory.mktemp("tinyext")
    header = folder / "tinyext.h"
    header.write_text("#define SCALE 2\n" + HEADER)
    source = folder / "tinyext.cpp"
    source.write_text('namespace tinyext { float cube(float x) { return x * x * x; } }\n')
    library = folder / "libtinyext.so"
    subprocess.run([_compiler(), "-shared", "-fPIC", "-O2", str(source), "-o", str(library)], check=True)
    library_header = folder / "tinyext_lib.h"  # (a kernel that includes it links the library: CPU only)
    library_header.write_text(LIBRARY_HEADER)
    add = wp.build_experimental.add_builtin
    add("tinyext_cube", {"x": wp.float32}, wp.float32, native_name="tinyext::cube", header=library_header,
        libraries=[str(library)])
    add("tinyext_smooth_abs", {"x": wp.float32, "eps": wp.float32}, wp.float32, native_name="tinyext::smooth_abs",
        is_differentiable=True, header=header)
    add("tinyext_twice", {"k": wp.int32}, wp.int32, native_name="tinyext::twice", header=header)
    return header, library


def smooth_abs(x, eps):
    return x * x / (x * x + eps) * np.abs(x)


@wp.kernel
def apply_ext(x: wp.array(dtype=float), k: wp.array(dtype=int), cubes: wp.array(dtype=float),
              smooth: wp.array(dtype=float), twice: wp.array(dtype=int)):
    i = wp.tid()
    cubes[i] = wp.tinyext_cube(x[i])
    smooth[i] = wp.tinyext_smooth_abs(x[i], 0.5)
    twice[i] = wp.tinyext_twice(k[i])


def test_external_builtins_match_numpy(tinyext):
    xv = np.random.default_rng(3).uniform(-2, 2, 64).astype(np.float32)
    kv = np.arange(-32, 32, dtype=np.int32)
    x, k = wp.array(xv), wp.array(kv)
    cubes, smooth, twice = wp.zeros(64), wp.zeros(64), wp.zeros(64, dtype=int)
    wp.launch(apply_ext, dim=64, inputs=[x, k, cubes, smooth, twice])
    np.testing.assert_allclose(cubes.numpy(), xv.astype(np.float64) ** 3, rtol=1e-6)
    np.testing.assert_allclose(smooth.numpy(), smooth_abs(xv.astype(np.float64), 0.5), rtol=1e-5)
    np.testing.assert_array_equal(twice.numpy(), 2 * kv)


@wp.kernel
def smooth_loss(x: wp.array(dtype=float), eps: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.tinyext_smooth_abs(x[i], eps))


def test_external_adjoint_matches_central_differences(tinyext):
    xv = np.random.default_rng(4).uniform(-2, 2, 16)
    xv = xv[np.abs(xv) > 0.1]  # away from the kink at 0
    x = wp.array(xv.astype(np.float32), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(smooth_loss, dim=len(xv), inputs=[x, 0.5, loss])
    tape.backward(loss)
    h = 1e-6
    numeric = (smooth_abs(xv + h, 0.5) - smooth_abs(xv - h, 0.5)) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-3, atol=1e-4)


def test_header_contents_are_in_the_cache_key(tinyext):
    header, _ = tinyext

    @wp.kernel(module="unique")
    def doubled(k: wp.array(dtype=int)):
        k[0] = wp.tinyext_twice(k[0])

    before = doubled.module.hash_module()
    original = header.read_text()
    try:
        header.write_text(original.replace("#define SCALE 2", "#define SCALE 3"))
        assert doubled.module.hash_module() != before

        @wp.kernel(module="unique")
        def tripled(k: wp.array(dtype=int)):
            k[0] = wp.tinyext_twice(k[0])

        k = wp.array(np.array([7], dtype=np.int32))
        wp.launch(tripled, dim=1, inputs=[k])
        assert k.numpy()[0] == 21  # built from the edited header, not fetched from the cache
    finally:
        header.write_text(original)


def test_kernels_compiled_before_a_registration_are_unchanged(tmp_path):
    @wp.kernel(module="unique")
    def plain(a: wp.array(dtype=float)):
        a[0] = a[0] + 1.0

    a = wp.zeros(1)
    wp.launch(plain, dim=1, inputs=[a])
    before = plain.module.hash_module()
    header = tmp_path / "late.h"
    header.write_text("namespace late { CUDA_CALLABLE inline float plus_two(float x) { return x + 2.0f; } }\n")
    wp.build_experimental.add_builtin("late_plus_two", {"x": wp.float32}, wp.float32, native_name="late::plus_two",
                                      header=header)
    assert plain.module.hash_module() == before
    wp.launch(plain, dim=1, inputs=[a])
    assert a.numpy()[0] == 2.0


def test_module_preamble_defines_the_function():
    """Warp's way: the C++ sits in the module's preamble; the default C++ name is wp::<name> (here
    `wp` is an alias of the namespace `wpnb`, where such a function is declared: docs/compat.md)."""
    @wp.kernel(module="unique")
    def halve(a: wp.array(dtype=wp.float64)):
        a[0] = wp.preamble_halve(a[0])

    wp.set_module_options({"extra_build_options": wp.ModuleBuildOptions(
        extra_cpu_preamble="namespace wpnb { CUDA_CALLABLE inline double preamble_halve(double x) { return 0.5 * x; } }"
    )}, module=halve.module)
    wp.build_experimental.add_builtin("preamble_halve", {"x": wp.float64}, wp.float64)
    a = wp.array(np.array([5.0]))
    wp.launch(halve, dim=1, inputs=[a])
    assert a.numpy()[0] == 2.5


def test_overloads_duplicates_and_conflicts(tmp_path):
    header = tmp_path / "ov.h"
    header.write_text("namespace ov { CUDA_CALLABLE inline float f(float x) { return x + 1.0f; }\n"
                      "CUDA_CALLABLE inline double f(double x) { return x + 2.0; } }\n")
    add = wp.build_experimental.add_builtin
    handle = add("ov_f", {"x": wp.float32}, wp.float32, native_name="ov::f", header=header)
    assert isinstance(handle, wp.Function)
    assert add("ov_f", {"x": wp.float32}, wp.float32, native_name="ov::f", header=header) is handle
    assert add("ov_f", {"x": wp.float64}, wp.float64, native_name="ov::f", header=header) is handle
    assert [tuple(o.input_types.values()) for o in handle.overloads] == [(wp.float32,), (wp.float64,)]
    with pytest.raises(RuntimeError, match="conflicting external builtin"):
        add("ov_f", {"x": wp.float32}, wp.int32, native_name="ov::f", header=header)

    @wp.kernel(module="unique")
    def both(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64)):
        a[0] = wp.ov_f(a[0])
        b[0] = wp.ov_f(b[0])

    a, b = wp.array(np.array([1.0], np.float32)), wp.array(np.array([1.0]))
    wp.launch(both, dim=1, inputs=[a, b])
    assert (a.numpy()[0], b.numpy()[0]) == (2.0, 3.0)
    with pytest.raises(RuntimeError, match="inside a kernel"):
        wp.ov_f(1.0)


def test_bad_registrations_are_refused(tmp_path):
    add = wp.build_experimental.add_builtin
    with pytest.raises(ValueError, match="valid Python identifier"):
        add("not-a-name")
    with pytest.raises(ValueError, match="qualified C\\+\\+ identifier"):
        add("bad_native", native_name="ns::bad-name")
    with pytest.raises(TypeError, match="mapping"):
        add("bad_inputs", [wp.float32])
    with pytest.raises(TypeError, match="parameter 'x'.*not a Warp type"):
        add("bad_type", {"x": dict}, wp.float32)
    with pytest.raises(TypeError, match="value_type.*not a Warp type"):
        add("bad_result", {"x": wp.float32}, list)
    with pytest.raises(FileNotFoundError, match="header=.*no such file"):
        add("missing_header", {"x": wp.float32}, wp.float32, header=tmp_path / "missing.h")
    with pytest.raises(ValueError, match="absolute path"):
        add("relative_header", {"x": wp.float32}, wp.float32, header="relative.h")
    (tmp_path / "h.h").write_text("\n")
    with pytest.raises(FileNotFoundError, match="libraries="):
        add("missing_library", {"x": wp.float32}, wp.float32, header=tmp_path / "h.h",
            libraries=[str(tmp_path / "libnone.so")])
    with pytest.raises(ValueError, match="wp.sin is a Warp builtin"):
        add("sin", {"x": wp.float32}, wp.float32, native_name="my::sin")
    with pytest.raises(ValueError, match="wp.vec3 is a Warp type"):
        add("vec3", {"x": wp.float32}, wp.float32)
    assert wp.sin(0.0) == 0.0  # the Warp builtin is untouched


def test_native_types_are_validated():
    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_float), ("b", ctypes.c_int32)]

    reg = wp.build_experimental.add_native_type
    assert reg(Pair, native_name="tiny::Pair", fields={"a": wp.float32, "b": wp.int32}, initializer="aggregate") is Pair
    with pytest.raises(ValueError, match="ctypes storage"):
        reg(Pair, native_name="tiny::Pair2", fields={"b": wp.float64})
    with pytest.raises(ValueError, match="declaration order"):
        reg(Pair, native_name="tiny::Pair3", fields={"b": wp.int32, "a": wp.float32}, initializer="aggregate")
    with pytest.raises(ValueError, match="qualified C\\+\\+ identifier"):
        reg(Pair, native_name="tiny Pair")

    class Other(ctypes.Structure):
        _fields_ = [("a", ctypes.c_double), ("b", ctypes.c_int32)]

    with pytest.raises(RuntimeError, match="different definition"):
        reg(Other, native_name="tiny::Pair", fields={"a": wp.float64, "b": wp.int32}, initializer="aggregate")


class Weights(ctypes.Structure):
    _fields_ = [("a", ctypes.c_float), ("b", ctypes.c_double)]


def test_native_value_type_as_a_kernel_parameter(tmp_path):
    """A C++ value type passed by value to a kernel and on to an external function (its layout has padding)."""
    header = tmp_path / "weights.h"
    header.write_text("namespace wts { struct Weights { float a; double b; };\n"
                      "CUDA_CALLABLE inline double blend(Weights w, double x) { return w.a * x + w.b; } }\n")
    wp.build_experimental.add_native_type(Weights, native_name="wts::Weights")
    wp.build_experimental.add_builtin("wts_blend", {"w": Weights, "x": wp.float64}, wp.float64,
                                      native_name="wts::blend", header=header)

    @wp.kernel(module="unique")
    def blend(w: Weights, x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
        i = wp.tid()
        out[i] = wp.wts_blend(w, x[i])

    xv = np.linspace(-1.0, 1.0, 9)
    out = wp.zeros(9, dtype=wp.float64)
    wp.launch(blend, dim=9, inputs=[Weights(1.5, -0.25), wp.array(xv), out])
    np.testing.assert_allclose(out.numpy(), 1.5 * xv - 0.25)
    with pytest.raises(TypeError, match="expects a Weights instance"):
        wp.launch(blend, dim=9, inputs=[1.0, wp.array(xv), out])


class Sample(ctypes.Structure):
    _fields_ = [("weight", ctypes.c_float), ("tag", ctypes.c_uint8), ("count", ctypes.c_int32)]


SAMPLE_PREAMBLE = "namespace smp { struct Sample { float weight; unsigned char tag; int count; }; }\n"


@pytest.fixture(scope="module")
def sample_type():
    return wp.build_experimental.add_native_type(
        Sample, native_name="smp::Sample", fields={"weight": wp.float32, "tag": wp.uint8, "count": wp.int32},
        initializer="aggregate")


def test_native_values_in_kernels_match_numpy(sample_type):
    """Arrays of a padded native type: built in a kernel, read back through numpy, fields read in a kernel."""
    @wp.kernel(module="unique")
    def make(w: wp.array(dtype=float), out: wp.array(dtype=Sample)):
        i = wp.tid()
        out[i] = Sample(w[i] * 2.0, wp.uint8(i % 3), i * 10)

    @wp.kernel(module="unique")
    def weigh(s: wp.array(dtype=Sample), out: wp.array(dtype=float)):
        i = wp.tid()
        v = s[i]
        out[i] = v.weight * float(v.count) + float(v.tag)

    for k in (make, weigh):
        wp.set_module_options({"extra_build_options": wp.ModuleBuildOptions(extra_cpu_preamble=SAMPLE_PREAMBLE)},
                              module=k.module)
    wv = np.linspace(0.0, 1.0, 7).astype(np.float32)
    samples = wp.zeros(7, dtype=Sample)
    wp.launch(make, dim=7, inputs=[wp.array(wv), samples])
    records = samples.numpy()
    assert records.dtype.itemsize == ctypes.sizeof(Sample)
    np.testing.assert_allclose(records["weight"], 2.0 * wv)
    np.testing.assert_array_equal(records["tag"], np.arange(7) % 3)
    np.testing.assert_array_equal(records["count"], np.arange(7) * 10)
    assert samples.list()[3].count == 30 and isinstance(samples.list()[3], Sample)

    again = wp.array(records, dtype=Sample)  # numpy's records back into an array
    out = wp.zeros(7)
    wp.launch(weigh, dim=7, inputs=[again, out])
    np.testing.assert_allclose(out.numpy(), 2.0 * wv * np.arange(7) * 10 + np.arange(7) % 3, rtol=1e-6)

    with pytest.raises(RuntimeError, match="Invalid source data type"):
        wp.array(np.zeros(2, dtype=[("weight", np.float32)]), dtype=Sample)
    with pytest.raises(ValueError, match="automatic differentiation"):
        wp.zeros(2, dtype=Sample, requires_grad=True)


def test_native_constructor_and_field_errors(sample_type):
    @wp.kernel(module="unique")
    def too_few(out: wp.array(dtype=Sample)):
        out[0] = Sample(1.0, wp.uint8(2))

    @wp.kernel(module="unique")
    def unknown_field(s: wp.array(dtype=Sample), out: wp.array(dtype=float)):
        out[0] = s[0].mass

    with pytest.raises(RuntimeError, match="all its fields"):
        wp.launch(too_few, dim=1, inputs=[wp.zeros(1, dtype=Sample)])
    with pytest.raises(RuntimeError, match="no field `mass`"):
        wp.launch(unknown_field, dim=1, inputs=[wp.zeros(1, dtype=Sample), wp.zeros(1)])


class Offset(ctypes.Structure):
    _fields_ = [("r", ctypes.c_float)]


def test_struct_with_a_native_field_in_a_differentiated_kernel():
    """A @wp.struct holding a native value: set from Python, read in a kernel whose backward pass is built
    (the native field carries no gradient; the float beside it does)."""
    wp.build_experimental.add_native_type(Offset, native_name="off::Offset", fields={"r": wp.float32},
                                          initializer="aggregate")

    @wp.struct
    class Scaled:
        offset: Offset
        scale: float

    @wp.kernel(module="unique")
    def affine(s: Scaled, a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = a[i] * s.scale + s.offset.r

    wp.set_module_options({"extra_build_options": wp.ModuleBuildOptions(
        extra_cpu_preamble="namespace off { struct Offset { float r; }; }")}, module=affine.module)
    s = Scaled()
    s.offset, s.scale = Offset(-0.5), 3.0
    av = np.linspace(-1, 1, 5).astype(np.float32)
    a, out = wp.array(av, requires_grad=True), wp.zeros(5, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(affine, dim=5, inputs=[s, a, out])
    tape.backward(grads={out: wp.ones(5)})
    np.testing.assert_allclose(out.numpy(), 3.0 * av - 0.5, rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), np.full(5, 3.0))


class Mismatched(ctypes.Structure):
    _fields_ = [("r", ctypes.c_float), ("g", ctypes.c_float)]


def test_a_native_layout_that_differs_from_its_ctypes_class_is_refused():
    """The C++ type says double where the ctypes class says float: the unit's layout checks refuse it when
    compiled, instead of kernels reading the host's bytes wrongly."""
    wp.build_experimental.add_native_type(Mismatched, native_name="mm::Mismatched",
                                          fields={"r": wp.float32, "g": wp.float32}, initializer="aggregate")

    @wp.kernel(module="unique")
    def read(s: wp.array(dtype=Mismatched), out: wp.array(dtype=float)):
        out[0] = s[0].g

    wp.set_module_options({"extra_build_options": wp.ModuleBuildOptions(
        extra_cpu_preamble="namespace mm { struct Mismatched { float r; double g; }; }")}, module=read.module)
    with pytest.raises(RuntimeError, match="Mismatched.*the C\\+\\+ type is not 8 bytes"):
        wp.launch(read, dim=1, inputs=[wp.zeros(1, dtype=Mismatched), wp.zeros(1)])


@pytest.mark.needs_nvrtc
def test_cuda_compiles_header_builtins_and_refuses_host_libraries(tinyext):
    """For CUDA (NVRTC, sm_90, no device needed): a builtin from a header of CUDA_CALLABLE functions
    compiles, with its adjoint; one defined in a host library is refused with a message naming it."""
    from warp_nb.compiler.pipeline import CompileOptions, compile_kernel
    from warp_nb.cuda.target import AotCudaTarget
    from warp_nb.toolchain import nvrtc
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    target = AotCudaTarget(90, use_ptx=True)
    options = CompileOptions("release", True, "")
    compile_kernel(smooth_loss, [wp.array(dtype=float), wp.float32, wp.array(dtype=float)], target, options)
    signature = [wp.array(dtype=float), wp.array(dtype=int), wp.array(dtype=float), wp.array(dtype=float),
                 wp.array(dtype=int)]
    with pytest.raises(RuntimeError, match="libtinyext.so.*cannot be linked into CUDA code"):
        compile_kernel(apply_ext, signature, target, options)
