"""`make_element_based_space_topology`: the node numbering of a shape function's nodes over the cells of a
geometry (Warp's factory of the same name), chosen by the geometry and the shape's family:
- `discontinuous=True`, or a constant shape: every cell owns its nodes (topology.py);
- a Nedelec / Raviart-Thomas shape: one node per edge or side, with orientation signs (oriented_topology.py);
- a geometry of several environments (replicated.py): the base geometry's nodes, once per environment;
- a Nanogrid: nodes on its vertex, edge and face grids, or its padded B-spline grid (nanogrid_topology.py);
- a Grid2D / Grid3D: the refined lattice (Lagrange) or the control-point lattice (B-splines);
- a mesh (and a grid's serendipity nodes): nodes keyed by the mesh entity they lie on (mesh_topology.py).
A shape of another element than the geometry's cells, or a family that has no continuous numbering
there (non-conforming polynomials), is refused with a ValueError as in Warp; combinations warp_nb lacks
are refused with NotImplementedError."""

from __future__ import annotations

from ..geometry.element import Element
from .mesh_topology import MeshEntityTopology, vertex_table
from .topology import DiscontinuousTopology, GridLatticeTopology, SpaceTopology


def shape_family(shape):
    """(element, ElementBasis) of a shape function of warp_nb's families, (None, None) for another."""
    from . import shape as shapes
    if isinstance(shape, shapes.ConstantShapeFunction):
        return shape._element, shapes.ElementBasis.LAGRANGE
    for (element, basis), cls in shapes._FAMILIES.items():  # (triangles' Lagrange first: they also serve serendipity)
        if type(shape) is cls:
            return element, basis
    return None, None


def make_element_based_space_topology(geo, shape, discontinuous: bool = False) -> SpaceTopology:
    """The topology of `shape`'s nodes over the cells of `geo` (continuous unless `discontinuous`)."""
    from .shape import ElementBasis, ShapeFunction
    if not hasattr(geo, "reference_cell"):
        raise TypeError(f"make_element_based_space_topology: `geo` must be a fem geometry, got {type(geo).__name__}")
    if not isinstance(shape, ShapeFunction):
        raise TypeError(f"make_element_based_space_topology: `shape` must be a fem shape function, got "
                        f"{type(shape).__name__}")
    element, basis = shape_family(shape)
    if element is not None and element != Element(geo.reference_cell()):
        raise ValueError(f"Unsupported shape function {shape.name}: its element is {element.name}, the cells of "
                         f"{geo.name} are {Element(geo.reference_cell()).name}")
    if discontinuous or shape.ORDER == 0:
        return DiscontinuousTopology(geo, shape.NODES_PER_ELEMENT)
    if shape.value != ShapeFunction.Value.Scalar:  # Nedelec, Raviart-Thomas: oriented edge or side nodes
        from .oriented_topology import OrientedEntityTopology
        return OrientedEntityTopology(geo, shape)
    if basis is None:
        raise NotImplementedError(f"make_element_based_space_topology: continuous nodes of the shape function "
                                  f"{type(shape).__name__} are not supported by warp_nb.fem (its own families are)")
    if basis == ElementBasis.NONCONFORMING_POLYNOMIAL:
        raise ValueError(f"Unsupported shape function {shape.name}: non-conforming polynomials have no continuous "
                         "topology (use discontinuous=True)")
    if hasattr(geo, "base_geometry"):  # environments: copies of the base's nodes
        from .replicated_topology import ReplicatedTopology
        return ReplicatedTopology(geo, make_element_based_space_topology(geo.base_geometry, shape))
    if getattr(geo, "_topology", None) is not None and hasattr(geo, "cell_grid"):  # a Nanogrid
        from .nanogrid_topology import NanogridBSplineTopology, NanogridTopology
        return (NanogridBSplineTopology if basis == ElementBasis.BSPLINE else NanogridTopology)(geo, shape)
    if hasattr(geo, "res") and basis == ElementBasis.LAGRANGE:
        return GridLatticeTopology(geo, shape.ORDER)
    if hasattr(geo, "res") and basis == ElementBasis.BSPLINE:
        from .bspline_topology import GridBSplineTopology
        return GridBSplineTopology(geo, shape)
    if basis in (ElementBasis.LAGRANGE, ElementBasis.SERENDIPITY) and vertex_table(geo) is not None:
        return MeshEntityTopology(geo, shape)
    raise NotImplementedError(f"make_element_based_space_topology: continuous {basis.name} nodes of degree "
                              f"{shape.ORDER} on {type(geo).__name__} are not supported by warp_nb.fem yet (Lagrange "
                              "nodes on grids and meshes, or discontinuous=True, are)")
