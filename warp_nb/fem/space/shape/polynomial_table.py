"""Shape functions given as tables of monomial coefficients: the host side builds each node's
polynomial (scalar or vector valued) in the reference variables (x, y, z), and this module turns the
table into device functions for the value and its gradient. Lagrange bases come from inverting the
Vandermonde matrix of a node set on a monomial set; vector bases (Nedelec, Raviart-Thomas) are written
directly as polynomials.

The device functions evaluate in float64 and return the shape's scalar type: monomial coefficients of
cubic Lagrange bases reach the hundreds, and float32 cancellation would cost several digits.

Nothing here knows which element a table belongs to beyond how element coordinates map to (x, y, z)."""

import itertools
import math

import numpy as np

import warp_nb as wp

Poly = dict
"""A polynomial: {(a, b, c): coefficient} for x^a y^b z^c."""


def poly_var(axis: int, scale: float = 1.0, shift: float = 0.0) -> Poly:
    """scale * x_axis + shift."""
    exps = [0, 0, 0]
    exps[axis] = 1
    p = {tuple(exps): scale}
    if shift:
        p[(0, 0, 0)] = shift
    return p


def poly_const(c: float) -> Poly:
    return {(0, 0, 0): c}


def poly_add(*ps: Poly) -> Poly:
    out: Poly = {}
    for p in ps:
        for e, c in p.items():
            out[e] = out.get(e, 0.0) + c
    return out


def poly_scale(p: Poly, s: float) -> Poly:
    return {e: c * s for e, c in p.items()}


def poly_mul(*ps: Poly) -> Poly:
    out = poly_const(1.0)
    for p in ps:
        nxt: Poly = {}
        for (e1, c1), (e2, c2) in itertools.product(out.items(), p.items()):
            e = (e1[0] + e2[0], e1[1] + e2[1], e1[2] + e2[2])
            nxt[e] = nxt.get(e, 0.0) + c1 * c2
        out = nxt
    return out


def monomial_values(exponents, points) -> np.ndarray:
    """[point, monomial] values of x^a y^b z^c."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    exps = np.asarray(exponents, dtype=np.int64).reshape(-1, 3)
    return np.prod(pts[:, None, :] ** exps[None, :, :], axis=2)


def lagrange_table(exponents, nodes) -> np.ndarray:
    """Coefficients [node, monomial] of the basis that is 1 at its own node and 0 at the others."""
    vandermonde = monomial_values(exponents, nodes)
    if np.linalg.cond(vandermonde) > 1e12:
        raise ValueError("the node set is not unisolvent for the polynomial space")
    return np.linalg.inv(vandermonde).T


def monomials_up_to(degree: int, dimension: int):
    """Exponents of the monomials of total degree <= degree in `dimension` variables."""
    return [
        e + (0,) * (3 - dimension)
        for e in itertools.product(range(degree + 1), repeat=dimension)
        if sum(e) <= degree
    ]


def cube_integrals(exponents, dimension: int) -> np.ndarray:
    """Mean over [0,1]^d of each monomial."""
    return np.array([math.prod(1.0 / (e[i] + 1) for i in range(dimension)) for e in exponents])


def simplex_integrals(exponents, dimension: int) -> np.ndarray:
    """Mean over the unit simplex of each monomial: d! a! b! c! / (a + b + c + d)!"""
    return np.array(
        [math.factorial(dimension) * math.prod(math.factorial(k) for k in e) / math.factorial(sum(e) + dimension)
         for e in exponents]
    )


class PolynomialTable:
    """Per-node polynomials sharing one monomial list: coefficients[node, component, monomial]."""

    def __init__(self, exponents, coefficients, dimension: int):
        self.exponents = [tuple(int(k) for k in e) for e in exponents]
        self.coefficients = np.asarray(coefficients, dtype=np.float64)
        if self.coefficients.ndim == 2:
            self.coefficients = self.coefficients[:, None, :]
        self.dimension = dimension

    @staticmethod
    def from_polys(polys, dimension: int) -> "PolynomialTable":
        """polys[node][component] -> table over the union of their monomials."""
        exps = sorted({e for node in polys for comp in node for e in comp})
        coef = np.array([[[comp.get(e, 0.0) for e in exps] for comp in node] for node in polys])
        return PolynomialTable(exps, coef, dimension)

    @property
    def node_count(self) -> int:
        return self.coefficients.shape[0]

    @property
    def components(self) -> int:
        return self.coefficients.shape[1]

    def evaluate(self, points) -> np.ndarray:
        """[point, node, component] values at (x, y, z) points."""
        return np.einsum("pm,ncm->pnc", monomial_values(self.exponents, points), self.coefficients)

    def means(self, integrals) -> np.ndarray:
        """[node, component] mean over the element, from the monomials' means."""
        return self.coefficients @ integrals


def node_quadrature_weights(table: PolynomialTable, node_xyz, mean_of, fallback: str = "lumped") -> np.ndarray:
    """Weights of a nodal quadrature rule (summing to 1), from the basis of a scalar table.

    The basis functions' means when they are all positive: that rule integrates the interpolant
    exactly. Otherwise (P2 triangle vertices have mean 0) `fallback` decides: "uniform" gives every
    node 1 / N (what Warp does for non-conforming bases; right for node sets symmetric about the
    centre), "lumped" a rule usable for mass lumping: weights proportional to the means of the squared
    basis functions (always positive), corrected by the smallest change that integrates constants and
    linear functions exactly. `mean_of(exponents)` gives each monomial's mean over the element."""
    means = table.means(mean_of(table.exponents))[:, 0]
    if means.min() > 1e-3 / len(means):
        return means / means.sum()
    if fallback == "uniform":
        return np.full(len(means), 1.0 / len(means))
    coef = table.coefficients[:, 0, :]
    exps = np.asarray(table.exponents)
    products = mean_of([tuple(a + b) for a in exps for b in exps]).reshape(len(exps), len(exps))
    w = np.einsum("nm,mk,nk->n", coef, products, coef)
    w /= w.sum()
    d = table.dimension
    xyz = np.asarray(node_xyz, dtype=np.float64)[:, :d]
    constraints = np.vstack([np.ones(len(w)), xyz.T])
    targets = np.concatenate([[1.0], [mean_of([tuple(np.eye(3, dtype=int)[a])])[0] for a in range(d)]])
    correction = np.linalg.lstsq(constraints, targets - constraints @ w, rcond=None)[0]
    return w + correction


def make_table_functions(table: PolynomialTable, to_xyz, scalar_type):
    """Device functions (value(coords, node), gradient(coords, node)) for a table. `to_xyz` is a
    @wp.func mapping element coordinates (float64 vec3) to the reference variables (x, y, z)."""
    N, C = table.node_count, table.components
    M = len(table.exponents)
    D = table.dimension
    P = max(1, max(max(e) for e in table.exponents))
    f64 = wp.float64
    S = scalar_type
    coords_t = wp.types.vector(length=3, dtype=S)
    pow_t = wp.types.vector(length=P + 1, dtype=f64)
    coef_t = wp.types.vector(length=N * C * M, dtype=f64)
    exp_t = wp.types.vector(length=3 * M, dtype=wp.int32)
    COEF = coef_t(*table.coefficients.reshape(-1).tolist())
    EXP = exp_t(*[int(k) for e in table.exponents for k in e])
    value_t = S if C == 1 else wp.types.vector(length=C, dtype=S)
    grad_t = wp.types.vector(length=D, dtype=S) if C == 1 else wp.types.matrix(shape=(C, D), dtype=S)

    @wp.func
    def _powers(t: f64):
        p = pow_t()
        p[0] = f64(1.0)
        for k in range(1, P + 1):
            p[k] = p[k - 1] * t
        return p

    @wp.func
    def _dpow(p: pow_t, a: int):
        if a == 0:
            return f64(0.0)
        return f64(a) * p[a - 1]

    @wp.func
    def _component(xyz: wp.vec3d, node: int, comp: int):
        px = _powers(xyz[0])
        py = _powers(xyz[1])
        pz = _powers(xyz[2])
        base = (node * C + comp) * M
        coef = COEF
        exps = EXP
        v = f64(0.0)
        # a while loop: a constant range would be unrolled, copying the tables once per monomial
        m = 0
        while m < M:
            v += coef[base + m] * px[exps[3 * m]] * py[exps[3 * m + 1]] * pz[exps[3 * m + 2]]
            m += 1
        return v

    @wp.func
    def _component_gradient(xyz: wp.vec3d, node: int, comp: int):
        px = _powers(xyz[0])
        py = _powers(xyz[1])
        pz = _powers(xyz[2])
        base = (node * C + comp) * M
        coef = COEF
        exps = EXP
        g = wp.vec3d()
        m = 0
        while m < M:
            a = exps[3 * m]
            b = exps[3 * m + 1]
            c = exps[3 * m + 2]
            k = coef[base + m]
            g += k * wp.vec3d(_dpow(px, a) * py[b] * pz[c], px[a] * _dpow(py, b) * pz[c], px[a] * py[b] * _dpow(pz, c))
            m += 1
        return g

    if C == 1:

        @wp.func
        def value(coords: coords_t, node_index_in_elt: int):
            return S(_component(to_xyz(wp.vec3d(coords)), node_index_in_elt, 0))

        @wp.func
        def gradient(coords: coords_t, node_index_in_elt: int):
            g = _component_gradient(to_xyz(wp.vec3d(coords)), node_index_in_elt, 0)
            r = grad_t()
            for j in range(D):
                r[j] = S(g[j])
            return r

    else:

        @wp.func
        def value(coords: coords_t, node_index_in_elt: int):
            xyz = to_xyz(wp.vec3d(coords))
            r = value_t()
            for i in range(C):
                r[i] = S(_component(xyz, node_index_in_elt, i))
            return r

        @wp.func
        def gradient(coords: coords_t, node_index_in_elt: int):
            xyz = to_xyz(wp.vec3d(coords))
            r = grad_t()
            for i in range(C):
                g = _component_gradient(xyz, node_index_in_elt, i)
                for j in range(D):
                    r[i, j] = S(g[j])
            return r

    return value, gradient


@wp.func
def xyz_from_cube_coords(c: wp.vec3d):
    """Square and cube coordinates are (x, y, z) already."""
    return c


@wp.func
def xyz_from_triangle_coords(c: wp.vec3d):
    """Barycentric (1 - x - y, x, y) -> (x, y, 0)."""
    return wp.vec3d(c[1], c[2], wp.float64(0.0))
