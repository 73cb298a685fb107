"""An application's subclass of wp.array / wp.indexedarray / wp.fabricarray is its native family
wherever the family is accepted (Warp's GH-1723): launch arguments of typed and generic kernels,
struct fields, the tape, wp.map and the array operators; the object itself is kept and its
constructor is never called by warp_nb. Values are compared with numpy on the same data."""

import collections.abc
from typing import Any
from unittest import mock

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.types.array_family import native_family

pytestmark = pytest.mark.needs_cxx

made = []


class Tagged(wp.array):
    def __init__(self, *args, tag, **kwargs):
        made.append(tag)
        self.tag = tag
        super().__init__(*args, **kwargs)


class TaggedChild(Tagged):
    pass


class TaggedIndexed(wp.indexedarray):
    def __init__(self, *args, tag, **kwargs):
        self.tag = tag
        super().__init__(*args, **kwargs)


@wp.kernel
def scale_typed(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * 3.0


@wp.kernel
def scale_generic(a: Any, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * 3.0


@wp.kernel
def read_indexed(a: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i]


@wp.kernel
def square(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * a[i]


@wp.struct
class Holder:
    arr: wp.array(dtype=float)


@wp.kernel
def read_holder(h: Holder, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = h.arr[i]


def values():
    return np.array([1.5, -2.0, 3.25, 4.0], dtype=np.float32)


def test_family_of_subclasses_and_impostors():
    a = TaggedChild(values(), tag="x", dtype=float)
    assert native_family(a) is wp.array
    assert native_family(wp.zeros(2)) is wp.array
    assert native_family(np.zeros(2)) is None
    # a mock claims to be an array (isinstance passes) but has no storage: not an array
    fake = mock.Mock(spec=wp.array)
    assert isinstance(fake, wp.array) and native_family(fake) is None
    with pytest.raises(TypeError, match=r"argument `a`.*passed value has type Mock"):
        wp.launch(scale_typed, 1, inputs=[fake], outputs=[wp.empty(1, dtype=float)])


@pytest.mark.parametrize("kernel", [scale_typed, scale_generic], ids=["typed", "generic"])
def test_launch_takes_a_subclass_as_its_family(kernel):
    a = TaggedChild(values(), tag="in", dtype=float)
    out = Tagged(tag="out", shape=4, dtype=float)
    made.clear()
    wp.launch(kernel, 4, inputs=[a], outputs=[out])
    np.testing.assert_allclose(out.numpy(), values() * 3.0)
    assert made == [] and out.tag == "out"  # nothing was constructed, the objects are the caller's


def test_generic_kernel_shares_one_specialization_with_the_parent():
    out = wp.empty(4, dtype=float)
    wp.launch(scale_generic, 4, inputs=[wp.array(values(), dtype=float)], outputs=[out])
    count = len(scale_generic.overloads)
    wp.launch(scale_generic, 4, inputs=[TaggedChild(values(), tag="c", dtype=float)], outputs=[out])
    assert len(scale_generic.overloads) == count


def test_indexed_subclass_and_wrong_family():
    data = wp.array(values(), dtype=float)
    idx = wp.array([3, 0, 2], dtype=wp.int32)
    ia = TaggedIndexed(data, [idx], tag="view")
    out = wp.empty(3, dtype=float)
    wp.launch(read_indexed, 3, inputs=[ia], outputs=[out])
    np.testing.assert_allclose(out.numpy(), values()[[3, 0, 2]])
    with pytest.raises(TypeError, match=r"argument `a`.*expects an array of type"):
        wp.launch(scale_typed, 3, inputs=[ia], outputs=[out])
    with pytest.raises(TypeError, match=r"argument `a`.*expects an array of type"):
        wp.launch(read_indexed, 3, inputs=[wp.array(values()[:3], dtype=float)], outputs=[out])


def test_two_families_are_refused_naming_the_argument():
    class Both(wp.array, wp.indexedarray):
        pass

    both = Both.__new__(Both)
    with pytest.raises(TypeError, match="more than one native array family"):
        native_family(both)
    with pytest.raises(TypeError, match=r"argument `a`.*more than one native array family"):
        wp.launch(scale_typed, 1, inputs=[both], outputs=[wp.empty(1, dtype=float)])


def test_own_descriptor_is_used_and_checked():
    class Redirected(Tagged):
        def __ctype__(self):
            d = type(super().__ctype__()).from_buffer_copy(super().__ctype__())
            d.data = self.elsewhere.ptr
            return d

    class Broken(Tagged):
        def __ctype__(self):
            return wp.array.__ctype__(wp.zeros((2, 2), dtype=float))  # a 2-D descriptor for a 1-D array

    a = Redirected(values(), tag="r", dtype=float)
    a.elsewhere = wp.array(values() * 10.0, dtype=float)
    out = wp.empty(4, dtype=float)
    wp.launch(scale_typed, 4, inputs=[a], outputs=[out])
    np.testing.assert_allclose(out.numpy(), values() * 30.0)  # the subclass's descriptor decides, as in Warp
    with pytest.raises(RuntimeError, match=r"APIC capture.*argument `a`.*own storage"), wp.ScopedCapture(
            device="cpu", apic=True, force_module_load=False):
        wp.launch(scale_typed, 4, inputs=[a], outputs=[out])
    with pytest.raises(TypeError, match=r"argument `a`.*incompatible descriptor"):
        wp.launch(scale_typed, 4, inputs=[Broken(values(), tag="b", dtype=float)], outputs=[out])


def test_struct_field_takes_a_subclass():
    a = Tagged(values(), tag="field", dtype=float)
    h = Holder()
    h.arr = a
    assert h.arr is a
    out = wp.empty(4, dtype=float)
    wp.launch(read_holder, 4, inputs=[h], outputs=[out])
    np.testing.assert_allclose(out.numpy(), values())
    with pytest.raises(TypeError, match="Struct field 'arr'"):
        h.arr = TaggedIndexed(wp.array(values(), dtype=float), [wp.array([0], dtype=wp.int32)], tag="wrong")


def test_gradients_through_a_subclass():
    a = Tagged(values(), tag="x", dtype=float, requires_grad=True)
    b = Tagged(tag="y", shape=4, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, 4, inputs=[a], outputs=[b])
    tape.backward(grads={b: wp.ones(4, dtype=float)})
    np.testing.assert_allclose(a.grad.numpy(), 2.0 * values(), rtol=1e-6)


def test_map_and_operators_on_subclasses():
    a = TaggedChild(values(), tag="m", dtype=float)
    np.testing.assert_allclose(wp.map(lambda x: x * x, a).numpy(), values() ** 2, rtol=1e-6)
    ia = TaggedIndexed(wp.array(values(), dtype=float), [wp.array([2, 1], dtype=wp.int32)], tag="ops")
    np.testing.assert_allclose((ia - 2.0).numpy(), values()[[2, 1]] - 2.0)
    np.testing.assert_allclose((-ia).numpy(), -values()[[2, 1]])


def test_a_subclass_may_mix_in_an_abc():
    class SequenceArray(Tagged, collections.abc.Sequence):
        pass

    a = SequenceArray(values(), tag="seq", dtype=float)
    out = wp.empty(4, dtype=float)
    wp.launch(scale_typed, 4, inputs=[a], outputs=[out])
    np.testing.assert_allclose(out.numpy(), values() * 3.0)


def test_a_subclass_is_not_an_annotation():
    with pytest.raises(TypeError, match="Subscript syntax not supported for Tagged"):
        Tagged[float]
    instance = Tagged(values(), tag="ann", dtype=float)
    with pytest.raises(TypeError, match="as an annotation"):
        @wp.kernel
        def bad(a: instance):  # an array object where a type belongs
            pass
