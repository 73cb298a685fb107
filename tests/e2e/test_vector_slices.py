"""Slices of vectors and matrices as Warp has them: an empty slice in a kernel is Warp's vec0 (mat00
for a matrix), equal to vec0(), and assigning or adding one changes nothing; from Python scope a
slice is a vector or matrix of its shape (numpy's slice of the components), so `v[1:] *= 2.0` and
`m[:2, :2] /= 2.0` work on it."""

import numpy as np
import pytest

import warp_nb as wp

vec0 = wp.types.vector(0, float)
mat00 = wp.types.matrix((0, 0), float)


@wp.kernel
def empty_slices(v_out: wp.array(dtype=wp.vec4), m_out: wp.array(dtype=wp.mat44), equal: wp.array(dtype=int)):
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    m = wp.mat44(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0)
    if v[123:] == vec0():
        equal[0] = 1
    if v[:-123] == vec0():
        equal[1] = 1
    if m[9:] == mat00():
        equal[2] = 1
    v[5:] = vec0()
    v[:-9] += vec0()
    m[7:] = mat00()
    v_out[0] = v
    m_out[0] = m


@pytest.mark.needs_cxx
def test_empty_slices_in_kernels_are_vec0_and_change_nothing():
    v_out, m_out, equal = wp.zeros(1, dtype=wp.vec4), wp.zeros(1, dtype=wp.mat44), wp.zeros(3, dtype=int)
    wp.launch(empty_slices, 1, inputs=[v_out, m_out, equal])
    np.testing.assert_array_equal(equal.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(v_out.numpy()[0], [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(m_out.numpy()[0], np.arange(1.0, 17.0).reshape(4, 4))


@pytest.mark.parametrize("key", [slice(1, None), slice(None, -1), slice(None, None, -2), slice(7, None)])
def test_python_vector_slices_are_vectors(key):
    values = np.array([1.0, 2.0, 3.0, 4.0])
    part = wp.vec4(*values)[key]
    assert isinstance(part, wp.types.vector(len(values[key]), wp.float32))
    np.testing.assert_array_equal(np.array(part), values[key])


def test_python_matrix_slices_are_matrices_and_update_in_place():
    values = np.arange(16.0).reshape(4, 4)
    m = wp.mat44(*values.reshape(-1))
    block = m[:2, 1:]
    assert block._shape_ == (2, 3)
    np.testing.assert_array_equal(np.array(block).reshape(2, 3), values[:2, 1:])
    assert m[9:]._shape_ == (0, 0)  # empty: mat00, as Warp
    assert isinstance(m[3, :1], wp.types.vector(1, wp.float32))
    m[:2, :2] /= 2.0
    values[:2, :2] /= 2.0
    np.testing.assert_array_equal(np.array(m).reshape(4, 4), values)
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    v[:] %= wp.vec4(3.0, 3.0, 3.0, 3.0)
    np.testing.assert_array_equal(np.array(v), np.fmod([1.0, 2.0, 3.0, 4.0], 3.0))
