"""`LinearOperator` and `aslinearoperator`: what the solvers multiply by. An operator is a shape,
a scalar type, a device and a generalised product `matvec(x, y, z, alpha, beta)` computing
z = alpha A x + beta y (z may be y), plus an optional batch layout (`batch_offsets`: B + 1 scalar
offsets splitting the unknowns into B independent systems).

`aslinearoperator` wraps a `warp.sparse` BsrMatrix (its product is `bsr_mv`), a 2-d array (a dense
matrix: one thread per row) or a 1-d array (a diagonal, of scalars or vectors). The dense and
diagonal products work on scalar views, so x may hold scalars or vectors of them. Knows nothing
about the solvers."""


import functools
from typing import Callable

import warp_nb as wp

from ... import types as T
from ...arrays.array import array
from ._kernels import acc_type

FLOAT_SCALARS = (wp.float16, wp.float32, wp.float64)


def scalars(a: array) -> array:
    """The scalars of a contiguous array, as a one-dimensional array sharing its memory."""
    if not a.is_contiguous:
        raise ValueError("the solvers' vectors must be contiguous arrays (pass a .contiguous() copy)")
    n = a.size * T.type_length(a.dtype)
    if a.ndim == 1 and T.scalar_type_of(a.dtype) is a.dtype:
        return a  # already scalars (a vec1 array is viewed as its scalars below)
    return array(ptr=a.ptr, dtype=T.scalar_type_of(a.dtype), shape=(n,), device=a.device, owner=a)


def scalar_count(a: array) -> int:
    return a.size * T.type_length(a.dtype)


def is_bsr(A) -> bool:
    return all(hasattr(A, name) for name in ("offsets", "columns", "values", "block_shape"))


class LinearOperator:
    """Linear operator to be used as left-hand side of the iterative solvers.

    `matvec(x, y, z, alpha, beta)` computes z = alpha A x + beta y (z may be y). `batch_offsets`
    (an int32 array of B + 1 scalar offsets) splits the unknowns into B independent systems that
    the solvers iterate together; scalars at or past the last offset are inactive.
    `max_batch_length` bounds a batch's length (kept for Warp's CUDA reductions; checked here)."""

    def __init__(self, shape: tuple[int, int], dtype: type, device, matvec: Callable,
                 batch_offsets: array | None = None, max_batch_length: int | None = None):
        if max_batch_length is not None and batch_offsets is None:
            raise ValueError("max_batch_length requires batch_offsets (the batch layout it bounds)")
        if batch_offsets is not None:
            if not isinstance(batch_offsets, array) or batch_offsets.ndim != 1 or batch_offsets.shape[0] < 2 \
                    or T.scalar_type_of(batch_offsets.dtype) is not wp.int32:
                raise ValueError("batch_offsets must be a one-dimensional int32 array of B + 1 offsets")
        if max_batch_length is not None:
            if isinstance(max_batch_length, bool) or int(max_batch_length) != max_batch_length or max_batch_length < 0:
                raise ValueError(f"max_batch_length must be a non-negative integer, got {max_batch_length!r}")
            max_batch_length = int(max_batch_length)
        self._shape = (int(shape[0]), int(shape[1]))
        self._dtype = dtype
        self._device = wp.get_device(device)
        self._matvec = matvec
        self._batch_offsets = batch_offsets
        self._max_batch_length = max_batch_length
        self._diag = None  # scalar view of the diagonal when the operator is one (Jacobi is fused then)

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    @property
    def dtype(self) -> type:
        return self._dtype

    @property
    def scalar_type(self):
        return T.scalar_type_of(self._dtype)

    @property
    def device(self):
        return self._device

    @property
    def matvec(self) -> Callable:
        return self._matvec

    @property
    def batch_offsets(self) -> array | None:
        return self._batch_offsets

    @property
    def batch_count(self) -> int:
        return 1 if self._batch_offsets is None else self._batch_offsets.shape[0] - 1

    @property
    def max_batch_length(self) -> int | None:
        return self._max_batch_length


def aslinearoperator(A, batch_offsets: array | None = None, max_batch_length: int | None = None) -> LinearOperator:
    """A as a LinearOperator: a `warp.sparse` BsrMatrix, a 2-d array (dense matrix), a 1-d array
    (diagonal matrix, of scalars or vectors), or a LinearOperator (returned as it is, the batch
    arguments ignored)."""
    if isinstance(A, LinearOperator):
        return A
    if max_batch_length is not None and batch_offsets is None:
        raise ValueError("max_batch_length requires batch_offsets (the batch layout it bounds)")
    if is_bsr(A):
        return _bsr_operator(A, batch_offsets, max_batch_length)
    if isinstance(A, array):
        if T.scalar_type_of(A.dtype) not in FLOAT_SCALARS:
            raise TypeError(f"aslinearoperator: A must hold float16, float32 or float64 values, got "
                            f"{T.type_name(A.dtype)}")
        if A.ndim == 2:
            return _dense_operator(A, batch_offsets, max_batch_length)
        if A.ndim == 1:
            return diagonal_operator(A, batch_offsets, max_batch_length)
        raise ValueError(f"aslinearoperator: A must be a 1-d (diagonal) or 2-d (dense) array, got {A.ndim} dimensions")
    raise TypeError(f"aslinearoperator: A must be a warp.sparse BsrMatrix, a warp array or a LinearOperator, "
                    f"got {type(A).__name__}")


@functools.cache
def _product_kernels(scalar):
    acc = acc_type(scalar)
    row_acc = wp.float64  # a dense row's sum: b - A x at a restart is only as exact as this sum
    vec = wp.array(dtype=scalar)
    key = T.type_name(scalar)

    def dense_mv(A: wp.array2d(dtype=scalar), x: vec, y: vec, z: vec, alpha: acc, beta: acc):
        i = wp.tid()
        s = row_acc(0.0)
        for j in range(A.shape[1]):
            s += row_acc(A[i, j]) * row_acc(x[j])
        v = row_acc(alpha) * s
        if beta != acc(0.0):  # beta = 0 ignores y, which may hold anything (Warp's convention)
            v += row_acc(beta) * row_acc(y[i])
        z[i] = scalar(v)

    def diag_mv(d: vec, x: vec, y: vec, z: vec, alpha: acc, beta: acc):
        i = wp.tid()
        v = alpha * acc(d[i]) * acc(x[i])
        if beta != acc(0.0):
            v += beta * acc(y[i])
        z[i] = scalar(v)

    def identity_mv(x: vec, y: vec, z: vec, alpha: acc, beta: acc):
        i = wp.tid()
        v = alpha * acc(x[i])
        if beta != acc(0.0):
            v += beta * acc(y[i])
        z[i] = scalar(v)

    return {name: wp.kernel(f, key=f"linear_{name}_{key}", enable_backward=False)
            for name, f in (("dense_mv", dense_mv), ("diag_mv", diag_mv), ("identity_mv", identity_mv))}


def _dense_operator(A: array, batch_offsets, max_batch_length) -> LinearOperator:
    scalar = T.scalar_type_of(A.dtype)
    if T.type_length(A.dtype) != 1:
        raise TypeError(f"aslinearoperator: a dense matrix must hold scalars, got {T.type_name(A.dtype)}")
    kernel = _product_kernels(scalar)["dense_mv"]

    def matvec(x, y, z, alpha, beta):
        xs, ys, zs = scalars(x), scalars(y), scalars(z)
        _check_lengths("x", xs, A.shape[1], "y", ys, A.shape[0])
        wp.launch(kernel, dim=A.shape[0], inputs=[A, xs, ys, zs, float(alpha), float(beta)], device=A.device)

    return LinearOperator(A.shape, scalar, A.device, matvec, batch_offsets, max_batch_length)


def diagonal_operator(d: array, batch_offsets=None, max_batch_length=None) -> LinearOperator:
    """The diagonal matrix whose diagonal holds d's scalars (d of scalars or vectors)."""
    ds = scalars(d)
    n = ds.shape[0]
    kernel = _product_kernels(ds.dtype)["diag_mv"]

    def matvec(x, y, z, alpha, beta):
        xs, ys, zs = scalars(x), scalars(y), scalars(z)
        _check_lengths("x", xs, n, "y", ys, n)
        wp.launch(kernel, dim=n, inputs=[ds, xs, ys, zs, float(alpha), float(beta)], device=d.device)

    op = LinearOperator((n, n), d.dtype, d.device, matvec, batch_offsets, max_batch_length)
    op._diag = ds
    return op


def identity_operator(n: int, scalar, device) -> LinearOperator:
    kernel = _product_kernels(scalar)["identity_mv"]

    def matvec(x, y, z, alpha, beta):
        xs, ys, zs = scalars(x), scalars(y), scalars(z)
        _check_lengths("x", xs, n, "y", ys, n)
        wp.launch(kernel, dim=n, inputs=[xs, ys, zs, float(alpha), float(beta)], device=device)

    return LinearOperator((n, n), scalar, device, matvec)


def _block_view(a: array, length: int, scalar) -> array:
    """a's scalars seen as an array of `length`-vectors (what bsr_mv takes for blocks of that size)."""
    s = scalars(a)
    if length == 1:
        return s
    if T.type_length(a.dtype) == length and T.kind_of(a.dtype) == "vector":
        return a
    return array(ptr=s.ptr, dtype=T.vector(length, scalar), shape=(s.shape[0] // length,), device=s.device, owner=s)


def _bsr_operator(A, batch_offsets, max_batch_length) -> LinearOperator:
    from ...sparse import bsr_mv

    rows, cols = A.block_shape
    scalar = A.scalar_type

    def matvec(x, y, z, alpha, beta):
        xs, ys, zs = scalars(x), scalars(y), scalars(z)
        _check_lengths("x", xs, A.shape[1], "y", ys, A.shape[0])
        if zs.ptr != ys.ptr and beta != 0.0:
            wp.copy(zs, ys)
        bsr_mv(A, _block_view(x, cols, scalar), _block_view(z, rows, scalar), alpha=alpha, beta=beta)

    return LinearOperator(A.shape, scalar, A.device, matvec, batch_offsets, max_batch_length)


def _check_lengths(xname, x, xn, yname, y, yn) -> None:
    if x.shape[0] != xn:
        raise ValueError(f"matvec: {xname} has {x.shape[0]} scalars, the operator has {xn} columns")
    if y.shape[0] != yn:
        raise ValueError(f"matvec: {yname} has {y.shape[0]} scalars, the operator has {yn} rows")
