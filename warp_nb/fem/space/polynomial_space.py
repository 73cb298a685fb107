"""`make_polynomial_space`: the function space of a geometry's cells with polynomial shape
functions of a degree and element basis, on the topology that numbers their nodes:
- a Grid2D / Grid3D with tensor-product Lagrange shapes: the refined lattice (topology.py);
- a mesh: nodes keyed by the mesh entity they lie on (mesh_topology.py);
- any geometry with `discontinuous=True`: nodes owned by their cell.
Other combinations (higher degree on meshes, serendipity on grids) are refused with what is
missing, not approximated."""

from __future__ import annotations

from ... import types as T
from ..polynomial import Polynomial
from .function_space import FunctionSpace
from .mesh_topology import MeshEntityTopology, vertex_table
from .topology import DiscontinuousTopology, GridLatticeTopology


def _shape_function(element, degree: int, element_basis, family):
    from . import shape
    factory = getattr(shape, "make_element_shape_function", None)
    if factory is not None:
        return factory(element, degree=degree, element_basis=element_basis, family=family)
    # until the shape part gives its factory: tensor-product Lagrange on squares
    from ..geometry.element import Element
    if Element(element) == Element.SQUARE and element_basis in (None, "lagrange"):
        return shape.SquareBipolynomialShapeFunctions(degree, family)
    raise NotImplementedError(f"make_polynomial_space: no shape functions for {Element(element).name} yet")


def make_polynomial_space(geo, dtype=T.float32, dof_mapper=None, degree: int = 1, element_basis=None,
                          discontinuous: bool = False, family: Polynomial | None = None) -> FunctionSpace:
    """A space of `dtype` values (scalar, vector or matrix) over the cells of `geo`, interpolated by
    polynomials of `degree` (Lagrange by default; `element_basis` picks another family)."""
    if dof_mapper is not None:
        raise NotImplementedError("make_polynomial_space: dof mappers are not supported by warp_nb.fem yet")
    if not isinstance(degree, int) or degree < 0:
        raise ValueError(f"make_polynomial_space: `degree` must be a non-negative integer, got {degree!r}")
    from . import shape
    lagrange = shape.ElementBasis.LAGRANGE if hasattr(shape, "ElementBasis") else "lagrange"
    basis = lagrange if element_basis is None else element_basis
    shape = _shape_function(geo.reference_cell(), degree, basis, family)
    if discontinuous or degree == 0:
        topology = DiscontinuousTopology(geo, shape.NODES_PER_ELEMENT)
    elif hasattr(geo, "res") and basis == lagrange:
        topology = GridLatticeTopology(geo, degree)
    elif basis == lagrange and vertex_table(geo) is not None:
        topology = MeshEntityTopology(geo, shape)
    else:
        raise NotImplementedError(f"make_polynomial_space: continuous {getattr(basis, 'name', basis)} spaces of degree {degree} "
                                  f"on {type(geo).__name__} are not supported by warp_nb.fem yet (degree 1 on "
                                  "meshes, any degree on grids, or discontinuous=True are)")
    return FunctionSpace(topology, shape, dtype)
