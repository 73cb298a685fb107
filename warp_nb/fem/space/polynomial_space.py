"""`make_polynomial_space`: the function space of a geometry's cells with polynomial shape
functions of a degree and element basis, on the topology that numbers their nodes:
- a Grid2D / Grid3D with tensor-product Lagrange shapes: the refined lattice (topology.py);
- a Grid2D / Grid3D with B-splines: their control-point lattice (bspline_topology.py);
- a mesh: nodes keyed by the mesh entity they lie on (mesh_topology.py);
- a Nanogrid: nodes on its vertex, edge and face grids, or its padded B-spline grid (nanogrid_topology.py);
- any geometry with `discontinuous=True`: nodes owned by their cell;
- Nedelec and Raviart-Thomas bases: one node per edge or side, with Piola maps (vector_space.py).
Other combinations (higher degree on meshes, serendipity on grids) are refused with what is
missing, not approximated."""

from __future__ import annotations

from ..polynomial import Polynomial
from .function_space import FunctionSpace
from .mesh_topology import MeshEntityTopology, vertex_table
from .topology import DiscontinuousTopology, GridLatticeTopology


def _shape_function(element, degree: int, element_basis, family, scalar_type):
    from .shape import make_element_shape_function
    return make_element_shape_function(element, degree=degree, element_basis=element_basis, family=family,
                                       scalar_type=scalar_type)


class BasisSpace:
    """Warp's basis space: a topology and the shape function of its nodes, without a value type.
    `make_collocated_function_space` gives it one (point_basis.py: nodes at quadrature points)."""

    def __init__(self, topology, shape):
        self.topology, self.shape = topology, shape
        self.geometry = topology.geometry

    @property
    def name(self) -> str:
        return f"{self.topology.name}_{self.shape.name}"

    @property
    def degree(self) -> int:
        return self.shape.ORDER

    def node_count(self) -> int:
        return self.topology.node_count()

    def node_positions(self, out=None):
        return FunctionSpace(self.topology, self.shape, self.geometry.scalar_type).node_positions(out)


def make_polynomial_basis_space(geo, degree: int = 1, element_basis=None, discontinuous: bool = False,
                                family: Polynomial | None = None) -> BasisSpace:
    """The nodes and shape functions of polynomials of `degree` over the cells of `geo` (see
    make_polynomial_space for which combinations are supported)."""
    if not isinstance(degree, int) or degree < 0:
        raise ValueError(f"make_polynomial_basis_space: `degree` must be a non-negative integer, got {degree!r}")
    from . import shape
    lagrange = shape.ElementBasis.LAGRANGE
    basis = lagrange if element_basis is None else element_basis
    shape_function = _shape_function(geo.reference_cell(), degree, basis, family, geo.scalar_type)
    if hasattr(geo, "base_geometry") and not (discontinuous or degree == 0):  # environments: copies of the base's
        from .replicated_topology import ReplicatedTopology
        base = make_polynomial_basis_space(geo.base_geometry, degree, element_basis, discontinuous, family)
        return BasisSpace(ReplicatedTopology(geo, base.topology), base.shape)
    if discontinuous or degree == 0:
        topology = DiscontinuousTopology(geo, shape_function.NODES_PER_ELEMENT)
    elif getattr(geo, "_topology", None) is not None and hasattr(geo, "cell_grid"):  # a Nanogrid
        from .nanogrid_topology import NanogridBSplineTopology, NanogridTopology
        bspline = basis == shape.ElementBasis.BSPLINE
        topology = (NanogridBSplineTopology if bspline else NanogridTopology)(geo, shape_function)
    elif hasattr(geo, "res") and basis == lagrange:
        topology = GridLatticeTopology(geo, degree)
    elif hasattr(geo, "res") and basis == shape.ElementBasis.BSPLINE:
        from .bspline_topology import GridBSplineTopology
        topology = GridBSplineTopology(geo, shape_function)
    elif basis in (lagrange, shape.ElementBasis.SERENDIPITY) and vertex_table(geo) is not None:
        topology = MeshEntityTopology(geo, shape_function)
    else:
        raise NotImplementedError(f"make_polynomial_space: continuous {getattr(basis, 'name', basis)} spaces of degree "
                                  f"{degree} on {type(geo).__name__} are not supported by warp_nb.fem yet (Lagrange "
                                  "spaces on grids and meshes, or discontinuous=True, are)")
    return BasisSpace(topology, shape_function)


def make_collocated_function_space(basis_space: BasisSpace, dtype=None, dof_mapper=None) -> FunctionSpace:
    """The function space of `dtype` values at the nodes of `basis_space` (by default scalars of its
    geometry's scalar type; stored as the dofs of `dof_mapper` when given: space/dof_mapper.py)."""
    if not isinstance(basis_space, BasisSpace):
        raise TypeError(f"make_collocated_function_space: `basis_space` must be a basis space "
                        f"(make_polynomial_basis_space, fem.PointBasisSpace), got {type(basis_space).__name__}")
    _check_mapper(dof_mapper, "make_collocated_function_space")
    return FunctionSpace(basis_space.topology, basis_space.shape, dtype or basis_space.geometry.scalar_type,
                         dof_mapper=dof_mapper)


def _check_mapper(dof_mapper, who: str) -> None:
    from .dof_mapper import DofMapper
    if dof_mapper is not None and not isinstance(dof_mapper, DofMapper):
        raise TypeError(f"{who}: `dof_mapper` must be a fem dof mapper (fem.SymmetricTensorMapper, ...), got "
                        f"{type(dof_mapper).__name__}")


def make_polynomial_space(geo, dtype=None, dof_mapper=None, degree: int = 1, element_basis=None,
                          discontinuous: bool = False, family: Polynomial | None = None) -> FunctionSpace:
    """A space of `dtype` values (scalar, vector or matrix) over the cells of `geo`, interpolated by
    polynomials of `degree` (Lagrange by default; `element_basis` picks another family)."""
    from . import shape
    if element_basis in (shape.ElementBasis.NEDELEC_FIRST_KIND, shape.ElementBasis.RAVIART_THOMAS):
        if discontinuous or dof_mapper is not None:
            raise NotImplementedError(f"make_polynomial_space: {element_basis.name} spaces with discontinuous=True or "
                                      "a dof_mapper are not supported by warp_nb.fem yet")
        from .vector_space import make_vector_space
        return make_vector_space(geo, _shape_function(geo.reference_cell(), degree, element_basis, family,
                                                      geo.scalar_type), dtype)
    _check_mapper(dof_mapper, "make_polynomial_space")
    basis = make_polynomial_basis_space(geo, degree, element_basis, discontinuous, family)
    return make_collocated_function_space(basis, dtype, dof_mapper)
