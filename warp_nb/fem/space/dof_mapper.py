"""Dof mappers: how the degrees of freedom stored at a node (`dof_dtype`) become the value a field
takes there (`value_dtype`), for spaces whose values are constrained tensors.

Every mapper here is linear with an orthonormal basis B_k of its values under Warp's inner product
`0.5 * (a : b)`: `dof_to_value(d) = sum_k d_k B_k` and `value_to_dof(v)_k = 0.5 * (B_k : v)`, so a
round trip of a dof is the identity and a value's symmetric (or skew) part is what survives. The
bases are Warp's (read from its documented behaviour: Voigt keeps the diagonal scaled by sqrt(2),
DB16 splits it into trace and deviatoric parts). `dof_to_value` and `value_to_dof` are device
functions that can also be called from Python."""


import math
from enum import Enum

import numpy as np

import warp_nb as wp

from ... import types as T

_S2 = math.sqrt(2.0)


def _sym(n, i, j):
    m = np.zeros((n, n))
    m[i, j] = m[j, i] = 1.0
    return m


def _skew(n, i, j):
    m = np.zeros((n, n))
    m[i, j], m[j, i] = -1.0, 1.0
    return m


class DofMapper:
    """Base: a node's dofs (`dof_dtype`, DOF_SIZE scalars) and the value they stand for (`value_dtype`)."""

    value_dtype: type
    dof_dtype: type
    DOF_SIZE: int

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        raise NotImplementedError


class IdentityMapper(DofMapper):
    """The dofs are the value itself (what spaces without a mapper use)."""

    def __init__(self, dtype: type):
        self.value_dtype = self.dof_dtype = dtype
        self.DOF_SIZE = T.type_length(dtype) if (T.type_is_vector(dtype) or T.type_is_matrix(dtype)) else 1

        @wp.func
        def identity(x: dtype):
            return x

        self.dof_to_value = self.value_to_dof = identity

    @property
    def name(self) -> str:
        return f"{T.type_name(self.dof_dtype)}_{self.DOF_SIZE}"


class _BasisMapper(DofMapper):
    """A mapper given by an orthonormal basis of its values (see the module's docstring), each B_k
    written as a scale a_k times a pattern P_k of small integers. `value_to_dof` divides P_k : v by
    a_k |P_k|^2 (rounded as float32 arithmetic rounds a_k * |P_k|^2): a unit dof's round trip is then
    exact and the other dofs come out exactly zero, as Warp's test of its mappers requires."""

    def __init__(self, value_dtype: type, basis: list):
        self.value_dtype = value_dtype
        scalar = T.type_scalar_type(value_dtype)
        self.DOF_SIZE = len(basis)
        # one float32 dof is Warp's Python `float` (what its test of mappers tells scalars from vectors by)
        single = float if scalar == T.float32 else scalar
        self.dof_dtype = single if len(basis) == 1 else T.vector(length=len(basis), dtype=scalar)
        n = value_dtype._shape_[0]
        mat_t = T.matrix(shape=(n, n), dtype=scalar)
        count = len(basis)
        dof_t = scalar if count == 1 else self.dof_dtype
        np_s = np.float64 if scalar == T.float64 else np.float32
        scales = [np_s(a) for a, _ in basis]
        divisors = [np_s(a) * np_s(float(np.sum(P * P))) for a, P in basis]
        pattern_t = T.matrix(shape=(count, n * n), dtype=scalar)
        vec_t = T.vector(length=count, dtype=scalar)
        PATTERN = pattern_t(*np.concatenate([P.reshape(-1) for _, P in basis]).tolist())
        SCALE = vec_t(*[float(a) for a in scales])
        DIVISOR = vec_t(*[float(d) for d in divisors])

        @wp.func
        def _value_of(k: int, d: scalar, v: mat_t):
            ad = d * SCALE[k]
            for i in range(n):
                for j in range(n):
                    v[i, j] = v[i, j] + ad * PATTERN[k, i * n + j]
            return v

        @wp.func
        def _dof_of(k: int, val: mat_t):
            p = scalar(0.0)
            for i in range(n):
                for j in range(n):
                    p += PATTERN[k, i * n + j] * val[i, j]
            return p / DIVISOR[k]

        if count == 1:
            @wp.func
            def dof_to_value(dof: dof_t):
                return _value_of(0, dof, mat_t())

            @wp.func
            def value_to_dof(val: mat_t):
                return _dof_of(0, val)
        else:
            @wp.func
            def dof_to_value(dof: dof_t):
                v = mat_t()
                for k in range(count):
                    v = _value_of(k, dof[k], v)
                return v

            @wp.func
            def value_to_dof(val: mat_t):
                d = dof_t()
                for k in range(count):
                    d[k] = _dof_of(k, val)
                return d

        self.dof_to_value, self.value_to_dof = dof_to_value, value_to_dof


def _square_matrix_type(dtype, who: str):
    if not T.type_is_matrix(dtype) or dtype._shape_ not in ((2, 2), (3, 3)):
        raise TypeError(f"{who}: `dtype` must be a 2x2 or 3x3 matrix type, got {dtype!r}")
    return dtype


class SymmetricTensorMapper(_BasisMapper):
    """Symmetric 2x2 (3 dofs) or 3x3 (6 dofs) tensors."""

    class Mapping(Enum):
        VOIGT = 0
        """Diagonal entries scaled by sqrt(2), then the off-diagonal pairs."""
        DB16 = 1
        """Trace and deviatoric diagonal parts, then the off-diagonal pairs."""

    def __init__(self, dtype: type, mapping: Mapping = Mapping.VOIGT):
        dtype = _square_matrix_type(dtype, "SymmetricTensorMapper")
        self.mapping = SymmetricTensorMapper.Mapping(mapping)
        n = dtype._shape_[0]
        off = [(1.0, _sym(n, 0, 1))] if n == 2 else [(1.0, _sym(3, 1, 2)), (1.0, _sym(3, 0, 2)), (1.0, _sym(3, 0, 1))]
        if self.mapping == SymmetricTensorMapper.Mapping.VOIGT:
            diag = [(_S2, np.diag(np.eye(n)[i])) for i in range(n)]
        elif n == 2:
            diag = [(1.0, np.eye(2)), (1.0, np.diag([1.0, -1.0]))]
        else:
            diag = [(math.sqrt(2.0 / 3.0), np.eye(3)), (1.0, np.diag([1.0, -1.0, 0.0])),
                    (1.0 / math.sqrt(3.0), np.diag([-1.0, -1.0, 2.0]))]
        super().__init__(dtype, diag + off)

    @property
    def name(self) -> str:
        return f"{self.mapping}_{self.DOF_SIZE}"


class SkewSymmetricTensorMapper(_BasisMapper):
    """Skew-symmetric 2x2 (1 dof) or 3x3 (3 dofs, the axial vector) tensors."""

    def __init__(self, dtype: type):
        dtype = _square_matrix_type(dtype, "SkewSymmetricTensorMapper")
        if dtype._shape_[0] == 2:
            basis = [(1.0, _skew(2, 0, 1))]
        else:
            basis = [(1.0, _skew(3, 1, 2)), (1.0, _skew(3, 2, 0)), (1.0, _skew(3, 0, 1))]
        super().__init__(dtype, basis)

    @property
    def name(self) -> str:
        return f"SkewSymmetricTensorMapper_{self.DOF_SIZE}"
