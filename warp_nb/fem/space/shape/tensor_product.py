"""Tensor-product shape functions on squares and cubes: a node (i, j[, k]) carries the product of 1-D
functions f_i(x) f_j(y) [f_k(z)], with node index i * n^(d-1) + j * n^(d-2) + k (last axis fastest, as
Warp orders them). The 1-D functions are Lagrange polynomials through a point family, or uniform
B-splines; both are evaluated in float64 and returned in the shape's scalar type.

Also the host-side side quadrature used for trace weights. Knows nothing about node types."""

import numpy as np

import warp_nb as wp

from ...polynomial import lagrange_scales


def make_lagrange_1d(points):
    """Device functions (value(t, i), derivative(t, i)) of the Lagrange polynomials through `points`."""
    n = len(points)
    vec_t = wp.types.vector(length=n, dtype=wp.float64)
    X = vec_t(*[float(p) for p in points])
    SCALE = vec_t(*lagrange_scales(np.asarray(points)).tolist())
    f64 = wp.float64

    @wp.func
    def lagrange_value(t: f64, i: int):
        w = SCALE[i]
        for k in range(n):
            if k != i:
                w *= t - X[k]
        return w

    @wp.func
    def lagrange_derivative(t: f64, i: int):
        d = f64(0.0)
        for m in range(n):
            if m != i:
                p = SCALE[i]
                for k in range(n):
                    if k != i and k != m:
                        p *= t - X[k]
                d += p
        return d

    return lagrange_value, lagrange_derivative


def make_tensor_functions(value_1d, derivative_1d, n: int, dimension: int, scalar_type):
    """(value(coords, node), gradient(coords, node)) for the tensor product of n 1-D functions per axis."""
    S = scalar_type
    coords_t = wp.types.vector(length=3, dtype=S)
    f64 = wp.float64

    if dimension == 2:
        grad_t = wp.types.vector(length=2, dtype=S)

        @wp.func
        def tensor_value_2d(coords: coords_t, node_index_in_elt: int):
            i = node_index_in_elt // n
            j = node_index_in_elt - i * n
            return S(value_1d(f64(coords[0]), i) * value_1d(f64(coords[1]), j))

        @wp.func
        def tensor_gradient_2d(coords: coords_t, node_index_in_elt: int):
            i = node_index_in_elt // n
            j = node_index_in_elt - i * n
            x = f64(coords[0])
            y = f64(coords[1])
            return grad_t(S(derivative_1d(x, i) * value_1d(y, j)), S(value_1d(x, i) * derivative_1d(y, j)))

        return tensor_value_2d, tensor_gradient_2d

    grad_t = wp.types.vector(length=3, dtype=S)

    @wp.func
    def tensor_value_3d(coords: coords_t, node_index_in_elt: int):
        i = node_index_in_elt // (n * n)
        j = (node_index_in_elt // n) % n
        k = node_index_in_elt % n
        return S(value_1d(f64(coords[0]), i) * value_1d(f64(coords[1]), j) * value_1d(f64(coords[2]), k))

    @wp.func
    def tensor_gradient_3d(coords: coords_t, node_index_in_elt: int):
        i = node_index_in_elt // (n * n)
        j = (node_index_in_elt // n) % n
        k = node_index_in_elt % n
        x = f64(coords[0])
        y = f64(coords[1])
        z = f64(coords[2])
        vx = value_1d(x, i)
        vy = value_1d(y, j)
        vz = value_1d(z, k)
        return grad_t(
            S(derivative_1d(x, i) * vy * vz), S(vx * derivative_1d(y, j) * vz), S(vx * vy * derivative_1d(z, k))
        )

    return tensor_value_3d, tensor_gradient_3d


def tensor_node_coords(points, dimension: int) -> np.ndarray:
    """[node, 3] coordinates of the tensor grid of `points`, last axis fastest."""
    grid = [tuple(float(points[i]) for i in idx) + (0.0,) * (3 - dimension)
            for idx in np.ndindex(*([len(points)] * dimension))]
    return np.array(grid)


def tensor_node_weights(weights, dimension: int) -> np.ndarray:
    return np.array([float(np.prod([weights[i] for i in idx])) for idx in np.ndindex(*([len(weights)] * dimension))])


def box_side_means(evaluate, node_xyz, dimension: int, tol: float = 1e-9) -> np.ndarray:
    """Per node, the mean of its (scalar) basis function over the first side x_a in {0, 1} it lies on;
    0 for nodes on no side. `evaluate(points)` returns [point, node] values."""
    from ...polynomial import Polynomial, quadrature_1d

    x1, w1 = quadrature_1d(8, Polynomial.GAUSS_LEGENDRE)
    side_pts = list(np.ndindex(*([len(x1)] * (dimension - 1))))
    out = np.zeros(len(node_xyz))
    for n, p in enumerate(node_xyz):
        for axis in range(dimension):
            if abs(p[axis]) < tol or abs(p[axis] - 1.0) < tol:
                others = [a for a in range(dimension) if a != axis]
                pts, wts = [], []
                for idx in side_pts:
                    q = [0.0, 0.0, 0.0]
                    q[axis] = round(p[axis])
                    for a, i in zip(others, idx):
                        q[a] = x1[i]
                    pts.append(q)
                    wts.append(np.prod([w1[i] for i in idx]))
                out[n] = np.dot(wts, evaluate(np.array(pts))[:, n])
                break
    return out
