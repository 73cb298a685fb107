"""Quadratures: which points of each element of a domain an integrand is evaluated at, with what
weights (`quadrature.py`: the protocol and the regular rules of reference elements)."""

from .quadrature import Quadrature, RegularQuadrature  # noqa: F401
