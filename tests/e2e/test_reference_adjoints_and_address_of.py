"""Gradients through calls with wp.ref[T] arguments, and wp.address_of. A call that writes its
argument takes the adjoint of the value after it and gives that of the value before it: checked
against central finite differences for every kind of storage a reference can name (a local, a
component, a struct field, an array element, a view's element, a nested struct-array field), in
loops, branches and inside a function. wp.address_of values against numpy."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


# x <- x * y: the adjoint snippet reads x before the call and rewrites adj_x in place
@wp.func_native("x = x * y;", adj_snippet="adj_y += x * adj_x;\nadj_x = y * adj_x;")
def _scale_ref(x: wp.ref[wp.float64], y: wp.float64): ...


# x <- 2 x + y^2: an adjoint that does not read x. In the backward pass an array element holds
# what the kernel last wrote into it, so a snippet that needs x's old value gets the new one
# there (as in Warp); storage in arrays is tested with this one
@wp.func_native("x = 2.0 * x + y * y;", adj_snippet="adj_y += 2.0 * y * adj_x;\nadj_x = 2.0 * adj_x;")
def _affine_ref(x: wp.ref[wp.float64], y: wp.float64): ...


# a func_grad on a function whose wp.ref parameter is an array
@wp.func
def _pick(values: wp.ref[wp.array(dtype=wp.float64)], i: int) -> wp.float64:
    return values[i] * values[i]


@wp.func_grad(_pick)
def _adj_pick(values: wp.ref[wp.array(dtype=wp.float64)], i: int, adj_ret: wp.float64):
    wp.adjoint[values][i] += 2.0 * values[i] * adj_ret


@wp.struct
class _Inner:
    value: wp.float64


@wp.struct
class _Outer:
    inner: _Inner
    v: wp.vec3d


@wp.func
def _scaled_twice(x: wp.float64, y: wp.float64) -> wp.float64:
    t = x + wp.float64(0.0)  # a local of the function, written through the reference
    _scale_ref(t, y)
    _scale_ref(t, y)
    return t


@wp.kernel
def _local(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    t = a[i] + wp.float64(1.0)
    u = t * b[i]  # t read before the call
    _scale_ref(t, b[i])
    out[i] = wp.sin(t) + u * t


@wp.kernel
def _component(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = wp.vec3d(a[i], a[i] * a[i], b[i])
    _scale_ref(v.y, b[i])
    _scale_ref(v[2], a[i])
    out[i] = wp.dot(v, v)


@wp.kernel
def _field(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    o = _Outer()
    o.inner.value = a[i]
    o.v = wp.vec3d(b[i], a[i], 1.0)
    _scale_ref(o.inner.value, b[i])
    _scale_ref(o.v.x, o.inner.value)
    out[i] = o.inner.value * o.v.x + o.v.y


@wp.kernel
def _element(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64),
             c: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    c[i, 1] = a[i]
    _affine_ref(c[i, 1], b[i])
    row = c[i]
    window = row[1:2]
    _affine_ref(window[0], a[i])  # an element of a view of a view
    out[i] = c[i, 1] * c[i, 1]


@wp.kernel
def _struct_array(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64),
                  outers: wp.array(dtype=_Outer)):
    i = wp.tid()
    outers[i].inner.value = a[i]
    outers[i].v = wp.vec3d(b[i], b[i], b[i])
    _affine_ref(outers[i].inner.value, b[i])
    _affine_ref(outers[i].v.z, a[i])
    out[i] = outers[i].inner.value + outers[i].v.z * outers[i].v.x


@wp.kernel
def _loop_branch_func(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64),
                      n: int):
    i = wp.tid()
    t = a[i]
    for _k in range(n):  # a dynamic loop: reversed by recomputation
        _scale_ref(t, b[i])
        t = t + a[i]
    if b[i] > 0.0:
        _scale_ref(t, a[i])
    out[i] = t + _scaled_twice(a[i], b[i])


@wp.kernel
def _custom_grad(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = _pick(a, i) * b[i]


_CASES = {
    "local": (_local, []),
    "component": (_component, []),
    "field": (_field, []),
    "element": (_element, [("c", (5, 3), wp.float64)]),
    "struct_array": (_struct_array, [("outers", 5, _Outer)]),
    "loop_branch_func": (_loop_branch_func, [3]),
    "custom_grad": (_custom_grad, []),
}


def _run(kernel, extra, a, b, weights, backward):
    """sum(weights * out) of one launch on fresh arrays, and with `backward` the gradients of it."""
    arrays = [wp.array(a, dtype=wp.float64, requires_grad=True), wp.array(b, dtype=wp.float64, requires_grad=True)]
    out = wp.zeros(len(a), dtype=wp.float64, requires_grad=True)
    rest = [wp.zeros(x[1], dtype=x[2], requires_grad=True) if isinstance(x, tuple) else x for x in extra]
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, len(a), inputs=arrays + [out] + rest)
    value = float(np.dot(weights, out.numpy()))
    if not backward:
        return value
    tape.backward(grads={out: wp.array(weights, dtype=wp.float64)})
    return value, arrays[0].grad.numpy(), arrays[1].grad.numpy()


@pytest.mark.parametrize("case", sorted(_CASES))
def test_gradients_through_reference_calls_match_finite_differences(case):
    kernel, extra = _CASES[case]
    rng = np.random.default_rng(7)
    a, b = rng.uniform(0.5, 1.5, 5), rng.uniform(-1.2, 1.2, 5)
    b[0] = 0.7  # the branch taken at least once
    weights = rng.uniform(-1.0, 1.0, 5)
    _, grad_a, grad_b = _run(kernel, extra, a, b, weights, backward=True)
    da, db = rng.standard_normal(5), rng.standard_normal(5)
    h = 1e-6
    central = (_run(kernel, extra, a + h * da, b + h * db, weights, False)
               - _run(kernel, extra, a - h * da, b - h * db, weights, False)) / (2 * h)
    np.testing.assert_allclose(grad_a @ da + grad_b @ db, central, rtol=1e-6, atol=1e-8)


def test_reference_call_without_hand_written_adjoint_is_refused_in_backward_kernels():
    @wp.func_native("x = x + 1.0;")
    def no_adjoint(x: wp.ref[wp.float64]): ...

    @wp.func
    def user(x: wp.ref[wp.float64]):
        x += 1.0

    for callee in (no_adjoint, user):
        @wp.kernel(module="unique")
        def k(a: wp.array(dtype=wp.float64)):
            callee(a[0])

        with pytest.raises(TypeError, match="Cannot call .* with wp.ref"):
            wp.launch(k, 1, inputs=[wp.zeros(1, dtype=wp.float64)])


@wp.func_native("*(double*)ptr = *(double*)ptr * 2.0 + 1.0;")
def _poke(ptr: wp.uint64): ...


@wp.kernel(enable_backward=False)
def _addresses(a: wp.array2d(dtype=wp.float64), outers: wp.array(dtype=_Outer), out: wp.array2d(dtype=wp.float64),
               ptrs: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    t = a[i, 0]
    _poke(wp.address_of(t))
    out[i, 0] = t
    v = wp.vec3d(1.0, a[i, 1], 3.0)
    _poke(wp.address_of(v.y))
    out[i, 1] = v[1]
    o = _Outer()
    o.inner.value = a[i, 2]
    _poke(wp.address_of(o.inner.value))
    out[i, 2] = o.inner.value
    _poke(wp.address_of(a[i, 3]))
    _poke(wp.address_of(outers[i].v.z))
    row = a[i]
    ptrs[i] = wp.address_of(row[3])
    for _k in range(2):  # a loop's variable keeps its address
        _poke(wp.address_of(t))
    out[i, 3] = t


def test_address_of_gives_the_storage_a_snippet_writes():
    rng = np.random.default_rng(3)
    a_np = rng.uniform(-2.0, 2.0, (4, 4))
    a = wp.array(a_np, dtype=wp.float64)
    outers = wp.zeros(4, dtype=_Outer)
    out = wp.zeros((4, 4), dtype=wp.float64)
    ptrs = wp.zeros(4, dtype=wp.uint64)
    wp.launch(_addresses, 4, inputs=[a, outers, out, ptrs])
    poke = lambda x: 2.0 * x + 1.0  # noqa: E731
    got = out.numpy()
    np.testing.assert_allclose(got[:, :3], poke(a_np[:, :3]))
    np.testing.assert_allclose(got[:, 3], poke(poke(poke(a_np[:, 0]))))
    np.testing.assert_allclose(a.numpy()[:, 3], poke(a_np[:, 3]))
    np.testing.assert_allclose(outers.numpy()["v"][:, 2], 1.0)
    np.testing.assert_array_equal(ptrs.numpy(), a.ptr + np.arange(4) * a.strides[0] + 3 * 8)


@pytest.mark.parametrize("source, message", [
    ("x = 1.0\n    out[0] = wp.address_of(x)", r"x = wp\.float32\(1\.0\)"),
    ("x = 0\n    out[0] = wp.address_of(x)", r"x = wp\.int32\(0\)"),
    ("out[0] = wp.address_of(wp.vec3(1.0, 2.0, 3.0).x)", "address_of"),
    ("out[0] = wp.address_of(out)", "element of an array"),
])
def test_address_of_refuses_what_cannot_be_written(source, message, tmp_path):
    path = tmp_path / "address_of_kernels.py"
    path.write_text("import warp_nb as wp\n\n@wp.kernel(enable_backward=False, module='unique')\n"
                    f"def k(out: wp.array(dtype=wp.uint64)):\n    {source}\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 (the kernel's source file)
    with pytest.raises(TypeError, match=message) as info:
        wp.launch(namespace["k"], 1, inputs=[wp.zeros(1, dtype=wp.uint64)])
    assert "address_of_kernels.py" in str(info.value) and "warp_nb" not in str(info.value)


def test_overloads_differing_only_by_refness_are_refused():
    @wp.func
    def f(x: wp.int32) -> wp.int32:
        return x

    with pytest.raises(RuntimeError, match="differ only by `wp.ref"):
        @wp.func
        def f(x: wp.ref[wp.int32]):  # noqa: F811
            x += 1
