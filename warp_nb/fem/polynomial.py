"""`warp.fem.Polynomial`: the families of 1-D point sets that Lagrange shape functions interpolate at and
regular quadratures integrate with, on the unit segment [0, 1]. Host-side numpy only: what comes out is
points, weights (summing to 1) and Lagrange scales; nothing here knows about elements or kernels.

The Gauss-Legendre and Gauss-Lobatto-Legendre points are computed (Newton iterations on Legendre
polynomials) rather than tabulated, so every count works (Warp's table stops at 5 points). Points come
in ascending order, except Gauss-Legendre sets of up to 5 points, which come in Warp's order."""

from enum import Enum

import numpy as np


class Polynomial(Enum):
    """A family of 1-D interpolation / quadrature points on [0, 1]."""

    GAUSS_LEGENDRE = "GL"
    """Gauss-Legendre: open points, exact quadrature up to degree 2n-1."""

    LOBATTO_GAUSS_LEGENDRE = "LGL"
    """Gauss-Lobatto-Legendre: both ends included, exact quadrature up to degree 2n-3."""

    EQUISPACED_CLOSED = "closed"
    """Equispaced points including both ends (closed Newton-Cotes weights)."""

    EQUISPACED_OPEN = "open"
    """Equispaced points excluding both ends (open Newton-Cotes weights)."""

    def __str__(self):
        return self.value


def is_closed(family: Polynomial) -> bool:
    """Whether the family's points include both ends of the segment (nodes shared between elements)."""
    return family in (Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED)


def _legendre(n: int, x: np.ndarray):
    """P_n(x) and P_n'(x) on [-1, 1] by the three-term recurrence."""
    p0, p1 = np.ones_like(x), x.copy()
    if n == 0:
        return p0, np.zeros_like(x)
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
    dp = n * (x * p1 - p0) / (x * x - 1.0)
    return p1, dp


def _gauss_legendre(n: int):
    """Roots of P_n (Newton from Chebyshev guesses) and their weights, on [-1, 1]."""
    x = np.cos(np.pi * (np.arange(n) + 0.75) / (n + 0.5))
    for _ in range(100):
        p, dp = _legendre(n, x)
        step = p / dp
        x -= step
        if np.max(np.abs(step)) < 1e-15:
            break
    _, dp = _legendre(n, x)
    return x, 2.0 / ((1.0 - x * x) * dp * dp)


def _gauss_lobatto(n: int):
    """The ends and the roots of P_{n-1}' on [-1, 1], with weights 2 / (n (n-1) P_{n-1}(x)^2)."""
    m = n - 1
    # The interior points are the roots of P_m'; Newton on P_m' uses P_m'' from Legendre's equation.
    x = -np.cos(np.pi * np.arange(1, m) / m)
    for _ in range(100):
        p, dp = _legendre(m, x)
        ddp = (2.0 * x * dp - m * (m + 1) * p) / (1.0 - x * x)
        step = dp / ddp
        x -= step
        if len(x) == 0 or np.max(np.abs(step)) < 1e-15:
            break
    x = np.concatenate(([-1.0], np.sort(x), [1.0]))
    with np.errstate(divide="ignore", invalid="ignore"):  # P_m' divides by 0 at the ends; unused there
        p, _ = _legendre(m, x)
    return x, 2.0 / (m * (m + 1) * p * p)


def _newton_cotes_weights(coords: np.ndarray) -> np.ndarray:
    """Weights on [0, 1] integrating exactly every polynomial the points interpolate (moment equations)."""
    n = len(coords)
    vandermonde = np.vander(coords, n, increasing=True).T
    moments = 1.0 / np.arange(1, n + 1)
    return np.linalg.solve(vandermonde, moments)


_WARP_GAUSS_LEGENDRE_ORDER = {1: [0], 2: [0, 1], 3: [1, 0, 2], 4: [2, 1, 3, 0], 5: [2, 3, 1, 4, 0]}
"""Warp's order of its tabulated Gauss-Legendre points, as indices into the ascending ones. Node and
quadrature point numbering follow it, so spaces and rules built on these points number like Warp's."""


def quadrature_1d(point_count: int, family: Polynomial):
    """Points and weights (summing to 1) of `point_count` points of `family` on [0, 1]."""
    family = Polynomial(family)
    if point_count < 1:
        raise ValueError(f"point_count must be at least 1, got {point_count}")
    if family == Polynomial.GAUSS_LEGENDRE:
        x, w = _gauss_legendre(point_count)
        order = np.argsort(x)
        if point_count in _WARP_GAUSS_LEGENDRE_ORDER:
            order = order[_WARP_GAUSS_LEGENDRE_ORDER[point_count]]
        return 0.5 * (x[order] + 1.0), 0.5 * w[order]
    if family == Polynomial.LOBATTO_GAUSS_LEGENDRE:
        if point_count < 2:
            raise ValueError("Gauss-Lobatto-Legendre quadrature needs at least 2 points")
        x, w = _gauss_lobatto(point_count)
        return 0.5 * (x + 1.0), 0.5 * w
    if family == Polynomial.EQUISPACED_CLOSED:
        if point_count < 2:
            raise ValueError("closed equispaced points need at least 2 points")
        coords = np.linspace(0.0, 1.0, point_count)
    else:
        coords = np.arange(1, point_count + 1) / (point_count + 1)
    return coords, _newton_cotes_weights(coords)


def lagrange_scales(coords: np.ndarray) -> np.ndarray:
    """1 / prod_{j != i} (x_i - x_j): the factor that makes the i-th Lagrange polynomial 1 at x_i."""
    coords = np.asarray(coords, dtype=np.float64)
    n = len(coords)
    scales = np.ones(n)
    for i in range(n):
        for j in range(n):
            if j != i:
                scales[i] /= coords[i] - coords[j]
    return scales
