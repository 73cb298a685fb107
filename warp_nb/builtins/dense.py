"""Warp's small dense linear algebra builtins (dense.h) on flat row-major float arrays: one
thread computes a whole product, Cholesky factorization or solve. Not differentiated here
(Warp differentiates dense_solve)."""

from .. import types as T
from .registry import FLOAT, Array, Exact, Scalar, builtin, ov

_F = Scalar("T", FLOAT)
_I = Exact(T.int32)
_A = Array(_F, 1)
_common = dict(header="arrays/dense.h", category="linalg", side_effects=True, differentiable=False)

builtin("dense_gemm", ov(_I, _I, _I, _I, _I, _A, _A, _A, names=("m", "n", "p", "t1", "t2", "A", "B", "C")),
        doc="C (m x n) = op(A) op(B), row-major flat arrays: op(A) is m x p (A stored p x m and transposed when "
            "t1 is nonzero), op(B) is p x n (B stored n x p and transposed when t2 is nonzero).", **_common)
builtin("dense_chol", ov(_I, _A, _F, _A, names=("n", "A", "regularization", "L")),
        doc="The lower Cholesky factor L of A + regularization I (n x n, row-major); the upper part of L is "
            "left as it was.", **_common)
builtin("dense_subs", ov(_I, _A, _A, _A, names=("n", "L", "b", "x")),
        doc="x = (L L^T)^-1 b by forward and back substitution with the Cholesky factor L.", **_common)
builtin("dense_solve", ov(_I, _A, _A, _A, _A, names=("n", "A", "L", "b", "x")),
        doc="x = A^-1 b given L, A's Cholesky factor from dense_chol (Warp also propagates gradients to A and b; "
            "warp_nb does not yet).", **_common)

del T, FLOAT, Array, Exact, Scalar
