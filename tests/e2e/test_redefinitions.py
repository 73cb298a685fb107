"""Functions and structs defined more than once under one name, as Warp treats them: a second
`def` in the same scope adds or replaces an overload in a new object and leaves the old object as
it was; functions and structs made by separate calls of one factory are separate; two structs of
one name with different fields can meet in one kernel; an int literal picks the int overload over
the float one whichever was defined last; `Module.mark_modified()` makes kernels read their
closure variables again."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.func
def answer():
    return 1


answer_first = answer


@wp.func
def answer():  # noqa: F811  (a redefinition: the earlier object keeps its body)
    return 2


@wp.func
def power(x: float):
    return x * x


@wp.func
def power(x: int):  # noqa: F811  (an overload of another type)
    return x * x * x


@wp.func
def power(x: float):  # noqa: F811  (replaces the float overload, keeps the int one)
    return x * x * x * x


@wp.kernel
def call_both(out: wp.array[float]):
    out[0] = float(answer())
    out[1] = float(answer_first())
    out[2] = float(power(2))
    out[3] = power(2.0)


def test_a_redefined_func_leaves_the_old_object_and_keeps_other_overloads():
    out = wp.zeros(4, dtype=float, device="cpu")
    wp.launch(call_both, dim=1, inputs=[out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [2.0, 1.0, 8.0, 16.0])
    assert answer is not answer_first and len(power.overloads) == 2


def _make_scaler(factor: float):
    @wp.func
    def scale(x: float):
        return x * factor

    return scale


double, triple = _make_scaler(2.0), _make_scaler(3.0)


@wp.kernel
def call_factories(out: wp.array[float]):
    out[0] = double(1.0)
    out[1] = triple(1.0)


def test_functions_from_separate_factory_calls_are_separate():
    out = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(call_factories, dim=1, inputs=[out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0])


@wp.struct
class Pair:
    v: float


PairScalar = Pair


@wp.struct
class Pair:  # noqa: F811  (same name, other fields)
    v: wp.vec2


@wp.kernel
def both_pairs(a: PairScalar, b: Pair, out: wp.array[float]):
    out[0] = a.v
    out[1] = b.v[0] + b.v[1]


def test_two_structs_of_one_name_with_different_fields_in_one_kernel():
    a, b = PairScalar(), Pair()
    a.v, b.v = 5.0, wp.vec2(1.0, 2.0)
    out = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(both_pairs, dim=1, inputs=[a, b, out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [5.0, 3.0])


def test_mark_modified_rereads_closure_variables():
    limit = 3

    @wp.kernel
    def fill(out: wp.array[int]):
        out[0] = limit

    out = wp.zeros(1, dtype=int, device="cpu")
    wp.launch(fill, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 3
    limit = 7  # noqa: F841  (read by the kernel when it compiles again)
    fill.module.mark_modified()
    wp.launch(fill, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 7
