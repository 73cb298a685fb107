"""Quadratures: which points of each element of a domain an integrand is evaluated at, with what
weights (`quadrature.py`: the protocol and the regular rules of reference elements; `explicit.py`:
points and weights given per element; `pic.py`: particles; `nodal.py`: a function space's nodes)."""

from .explicit import ExplicitQuadrature  # noqa: F401
from .nodal import NodalQuadrature  # noqa: F401
from .pic import PicQuadrature  # noqa: F401
from .quadrature import Quadrature, RegularQuadrature  # noqa: F401
