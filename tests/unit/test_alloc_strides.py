"""Allocating with explicit strides (`wp.zeros/empty(shape, strides=...)`): the capacity spans the
first to the last element, an empty allocation has capacity 0 and no address, and strides that do not
fit are refused with Warp's errors (ValueError for a wrong count, NotImplementedError for a negative
stride), which Warp's own tests match by their wording."""

import numpy as np
import pytest

import warp_nb as wp


def test_gapped_capacity():
    a = wp.empty((3, 3), dtype=wp.int32, strides=(16, 12))
    assert a.capacity == 4 + 2 * 16 + 2 * 12
    b = wp.empty((0, 3), dtype=wp.int32, strides=(4, 16))
    assert b.capacity == 0 and b.ptr is None


def test_wrong_stride_count():
    with pytest.raises(ValueError, match="Invalid number of strides, expected 2 strides, got 1"):
        wp.empty((0, 3), dtype=wp.int32, strides=(4,))


def test_negative_stride():
    with pytest.raises(NotImplementedError, match="Negative strides"):
        wp.empty((3, 3), dtype=wp.int32, strides=(16, -4))


def test_transposed_strides_hold_the_same_bytes():
    a = wp.zeros((2, 3), dtype=float, strides=(4, 8))  # column-major
    assert a.capacity == 24 and not a.is_contiguous
    np.testing.assert_array_equal(a.numpy(), np.zeros((2, 3), np.float32))
