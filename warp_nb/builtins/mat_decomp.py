"""3x3 and 2x2 matrix decompositions (mat_decomp.h): svd3, svd2, qr3, eig3. Each has Warp's two
forms: results returned as a tuple (`U, sigma, V = wp.svd3(A)`) and the output-argument form
(`wp.svd3(A, U, sigma, V)`, which rebinds the variables U, sigma, V); both differentiate through
the registry's adjoint. Float types only; float16 is decomposed in float32."""

from .registry import FLOAT, Mat, Scalar, Vec, builtin, ov

F = Scalar("T", FLOAT)
M3, V3, M2, V2 = Mat(3, 3, F), Vec(3, F), Mat(2, 2, F), Vec(2, F)
_d = dict(header="core/mat_decomp.h", category="matrix")

builtin("svd3", ov(M3, names=("A",), outputs=(M3, V3, M3)), **_d,
        doc="Singular value decomposition A = U diag(sigma) V^T: |sigma| descending, sigma0, sigma1 >= 0, sigma2 "
            "with the sign of det(A), det(U) = det(V) = +1; Warp's method and signs, iterated to convergence. "
            "The gradient drops the terms of equal singular values.")
builtin("svd2", ov(M2, names=("A",), outputs=(M2, V2, M2)), **_d,
        doc="2x2 singular value decomposition A = U diag(sigma) V^T (closed form): sigma0 >= sigma1 >= 0, V a "
            "rotation by an angle in (-3pi/4, pi/4], det(U) the sign of det(A) (Warp's conventions). The gradient "
            "drops the terms of equal singular values.")
builtin("qr3", ov(M3, names=("A",), outputs=(M3, M3)), **_d,
        doc="QR decomposition A = Q R: Q orthogonal (det +1), R upper triangular with R00, R11 >= 0. "
            "Gradient needs full rank (0 for a rank-deficient A, as in Warp).")
builtin("eig3", ov(M3, names=("A",), outputs=(M3, V3)), **_d,
        doc="Eigen decomposition of the symmetric part of A: A = Q diag(d) Q^T, eigenvectors in Q's columns "
            "(det +1), eigenvalues unsorted, in Warp's order and with its vectors' signs. The gradient drops the "
            "terms of equal eigenvalues; with respect to A it is symmetric.")
