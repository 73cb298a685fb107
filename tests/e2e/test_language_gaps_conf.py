"""Small language behaviours matched to warp-lang 1.19 (probed): an enum member's `.value` in a
kernel, wp.inverse_approx and wp.div_approx of composites (exact on the CPU), an unknown attribute of
a value as an AttributeError naming it, and one C++ struct for one @wp.struct defined alike in two
Python modules (their kernels hash alike and may be used together)."""

import enum
import importlib.util
import sys

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


class Bits(enum.IntFlag):
    A = 1
    B = 4


def test_an_enum_member_value_in_a_kernel():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=int)):
        out[0] = Color.GREEN.value
        out[1] = int(Color.RED.value) + Bits.B.value
        out[2] = Bits.A | Bits.B.value

    out = wp.zeros(3, dtype=int, device="cpu")
    wp.launch(k, dim=1, inputs=[out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [2, 5, 5])


def test_inverse_approx_and_div_approx_of_composites_are_exact_on_the_cpu():
    @wp.kernel(module="unique")
    def k(m: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat),
          inv: wp.array(dtype=wp.mat33), vs: wp.array(dtype=wp.vec3), qs: wp.array(dtype=wp.quat)):
        i = wp.tid()
        inv[i] = wp.inverse_approx(m[i])
        vs[i] = wp.div_approx(v[i], 4.0)
        qs[i] = wp.div_approx(2.0, q[i])

    rng = np.random.default_rng(3)
    m = rng.uniform(1.0, 5.0, (5, 3, 3)).astype(np.float32)
    v = rng.uniform(-1.0, 1.0, (5, 3)).astype(np.float32)
    q = rng.uniform(1.0, 2.0, (5, 4)).astype(np.float32)
    outs = [wp.zeros(5, dtype=t, device="cpu") for t in (wp.mat33, wp.vec3, wp.quat)]
    wp.launch(k, dim=5, inputs=[wp.array(m, dtype=wp.mat33), wp.array(v, dtype=wp.vec3), wp.array(q, dtype=wp.quat),
                               *outs], device="cpu")
    np.testing.assert_allclose(outs[0].numpy(), np.linalg.inv(m), rtol=1e-4)
    np.testing.assert_allclose(outs[1].numpy(), v / 4.0, rtol=1e-6)
    np.testing.assert_allclose(outs[2].numpy(), 2.0 / q, rtol=1e-6)


CAPTURED = wp.vec3(1.0, 2.0, 3.0)


def test_an_unknown_attribute_is_an_attribute_error_naming_the_value():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[0] = CAPTURED.foo

    with pytest.raises(AttributeError, match=r"`foo` is not an attribute of 'CAPTURED' \(vec3f\)") as info:
        wp.launch(k, dim=1, inputs=[wp.zeros(1, device="cpu")], device="cpu")
    assert "line" in str(info.value)


_STRUCT_MODULE = """
import warp_nb as wp

@wp.struct
class Pair:
    a: float
    b: wp.vec2

@wp.kernel
def total(p: Pair, out: wp.array(dtype=float)):
    out[0] = p.a + p.b[0] + p.b[1] + {extra}
"""


def _load(tmp_path, name, extra):
    path = tmp_path / f"{name}.py"
    path.write_text(_STRUCT_MODULE.format(extra=extra))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_one_struct_defined_alike_in_two_modules_is_one_cpp_struct(tmp_path):
    one, two, other = (_load(tmp_path, f"conf_struct_{i}", extra) for i, extra in enumerate(("0.0", "0.0", "1.0")))
    assert one.total.module.hash_module() == two.total.module.hash_module()
    assert one.total.module.hash_module() != other.total.module.hash_module()

    @wp.kernel(module="unique")
    def both(p: one.Pair, q: two.Pair, out: wp.array(dtype=float)):  # one unit defines the C++ struct once
        out[0] = p.a + q.a

    p, q = one.Pair(), two.Pair()
    p.a, q.a = 1.5, 2.0
    out = wp.zeros(1, device="cpu")
    wp.launch(both, dim=1, inputs=[p, q, out], device="cpu")
    assert out.numpy()[0] == 3.5


def test_replacing_an_array_field_releases_the_old_gradient():
    import gc
    import weakref

    @wp.struct
    class Holder:
        data: wp.array(dtype=float)

    for replacement in (None, "array"):
        s = Holder()
        old = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu", requires_grad=True)
        grad = weakref.ref(old.grad)
        s.data = old
        del old
        gc.collect()
        assert grad() is not None  # the field keeps the array and its gradient alive
        s.data = None if replacement is None else wp.array([4.0, 5.0, 6.0], dtype=float, device="cpu")
        gc.collect()
        assert grad() is None


def test_list_of_a_struct_array_gives_data_less_array_fields():
    """As warp-lang 1.19 (probed): array fields of the elements of .list() keep their dtype and ndim
    but no memory (the copy does not keep the arrays alive)."""
    @wp.struct
    class Inner:
        v: wp.array2d(dtype=float)

    @wp.struct
    class Outer:
        a: wp.array(dtype=int)
        inner: Inner
        x: float

    s = Outer()
    s.a = wp.zeros(3, dtype=int, device="cpu")
    s.inner.v = wp.zeros((2, 2), dtype=float, device="cpu")
    s.x = 2.5
    items = wp.full(2, s, dtype=Outer, device="cpu").list()
    assert items[1].x == 2.5
    assert items[1].a.dtype is wp.int32 and items[1].a.ndim == 1
    assert items[1].inner.v.dtype is wp.float32 and items[1].inner.v.ndim == 2
    assert not any(bytes(items[1].a.__ctype__()))
