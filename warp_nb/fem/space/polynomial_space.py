"""`make_polynomial_space`: the function space of a geometry's cells with polynomial shape
functions of a degree and element basis, on the topology that numbers their nodes:
- a Grid2D / Grid3D with tensor-product Lagrange shapes: the refined lattice (topology.py);
- a Grid2D / Grid3D with B-splines: their control-point lattice (bspline_topology.py);
- a mesh: nodes keyed by the mesh entity they lie on (mesh_topology.py);
- a Nanogrid: nodes on its vertex, edge and face grids, or its padded B-spline grid (nanogrid_topology.py);
- any geometry with `discontinuous=True`: nodes owned by their cell;
- Nedelec and Raviart-Thomas bases: one node per edge or side, with Piola maps (vector_space.py).
The topology is chosen by `make_element_based_space_topology` (element_topology.py); other
combinations (higher degree on meshes) are refused with what is missing, not approximated."""

from __future__ import annotations

from ..polynomial import Polynomial
from .basis_space import BasisSpace, ShapeBasisSpace
from .element_topology import make_element_based_space_topology
from .function_space import FunctionSpace


def _shape_function(element, degree: int, element_basis, family, scalar_type):
    from .shape import make_element_shape_function
    return make_element_shape_function(element, degree=degree, element_basis=element_basis, family=family,
                                       scalar_type=scalar_type)


def make_polynomial_basis_space(geo, degree: int = 1, element_basis=None, discontinuous: bool = False,
                                family: Polynomial | None = None) -> ShapeBasisSpace:
    """The nodes and shape functions of polynomials of `degree` over the cells of `geo` (see
    make_polynomial_space for which combinations are supported)."""
    if not isinstance(degree, int) or degree < 0:
        raise ValueError(f"make_polynomial_basis_space: `degree` must be a non-negative integer, got {degree!r}")
    from . import shape
    basis = shape.ElementBasis.LAGRANGE if element_basis is None else element_basis
    shape_function = _shape_function(geo.reference_cell(), degree, basis, family, geo.scalar_type)
    try:
        topology = make_element_based_space_topology(geo, shape_function, discontinuous)
    except (NotImplementedError, ValueError) as e:
        raise NotImplementedError(f"make_polynomial_space: continuous {getattr(basis, 'name', basis)} spaces of "
                                  f"degree {degree} on {type(geo).__name__} are not supported by warp_nb.fem yet ({e})"
                                  ) from e
    return ShapeBasisSpace(topology, shape_function)


def make_collocated_function_space(basis_space: BasisSpace, dtype=None, dof_mapper=None) -> FunctionSpace:
    """The function space of `dtype` values at the nodes of `basis_space` (by default scalars of its
    geometry's scalar type; stored as the dofs of `dof_mapper` when given: space/dof_mapper.py)."""
    if not isinstance(basis_space, BasisSpace):
        raise TypeError(f"make_collocated_function_space: `basis_space` must be a basis space "
                        f"(make_polynomial_basis_space, fem.PointBasisSpace), got {type(basis_space).__name__}")
    from .shape import ShapeFunction
    if getattr(basis_space.shape, "value", ShapeFunction.Value.Scalar) != ShapeFunction.Value.Scalar:
        raise ValueError("Collocated function spaces may only be constructed from scalar-valued basis (Nedelec and "
                         "Raviart-Thomas bases: make_covariant_function_space, make_contravariant_function_space)")
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
        from .vector_space import make_contravariant_function_space, make_covariant_function_space
        basis = make_polynomial_basis_space(geo, degree, element_basis, False, family)
        covariant = element_basis == shape.ElementBasis.NEDELEC_FIRST_KIND
        return (make_covariant_function_space if covariant else make_contravariant_function_space)(basis, dtype)
    _check_mapper(dof_mapper, "make_polynomial_space")
    basis = make_polynomial_basis_space(geo, degree, element_basis, discontinuous, family)
    return make_collocated_function_space(basis, dtype, dof_mapper)
