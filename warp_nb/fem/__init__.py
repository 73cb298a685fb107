"""`warp.fem` (finite elements), built one concept per module:

- `types.py`: Sample, coordinates, index types, the Domain / Field annotations;
- `integrand.py`: the `@integrand` decorator and its record;
- `geometry/`: the Geometry protocol, grids, meshes, deformed geometries, reference elements;
- `domain.py`: where to integrate (a geometry's cells, sides, boundary sides);
- `subdomain.py`: a domain over some elements of another;
- `quadrature/`: which points of each element (regular rules, explicit points, particles, nodes);
- `space/`: function spaces (node topology + shape functions);
- `field/`: test, trial and discrete fields and how integrands evaluate them;
- `operator.py`: the operators integrands call (`grad`, `div`, `position`, ...);
- `integrand_specialize.py`: an integrand rewritten for the concrete fields and domain it gets;
- `integrate.py`, `interpolate.py` (on `kernel_builder.py` and `codegen.py`): the drivers, which
  generate, build and launch one kernel per specialisation and kind of result;
- `dirichlet.py`: Dirichlet conditions by projection;
- `cache.py`: suffix-keyed kernels, functions and structs, and pooled temporary arrays;
- `linalg.py`: small dense linear algebra as device functions (eigen-solver, QR inverse, tensor parts);
- `utils.py`: grid connectivity (grid_to_tris ...) and device index maps (indexing.py).

Names of Warp's `warp.fem` that are not here yet raise an error that says so (docs/compat.md)."""

from . import cache, linalg, utils  # noqa: F401
from .adaptivity import adaptive_nanogrid_from_field, adaptive_nanogrid_from_hierarchy  # noqa: F401
from .cache import (  # noqa: F401
    Temporary,
    TemporaryStore,
    borrow_temporary,
    borrow_temporary_like,
    set_default_temporary_store,
)
from .dirichlet import (  # noqa: F401
    normalize_dirichlet_projector, project_linear_system, project_system_matrix, project_system_rhs,
)
from .domain import BoundarySides, Cells, FrontierSides, GeometryDomain, Sides  # noqa: F401
from .environment_operators import environment_index  # noqa: F401
from .field import DiscreteField, FieldLike, FieldRestriction, GeometryField, ImplicitField, NonconformingField, UniformField, make_restriction, TestField, TrialField, make_discrete_field, make_test, make_trial  # noqa: F401,E501
from .geometry import (  # noqa: F401
    CellBasedGeometryPartition, ExplicitGeometryPartition, Geometry, GeometryPartition, Grid2D, Grid3D, Hexmesh,
    LinearGeometryPartition, Nanogrid, AdaptiveNanogrid, Quadmesh, Quadmesh2D, Quadmesh3D, Tetmesh, Trimesh, Trimesh2D, Trimesh3D,
)
from .geometry.element import Element  # noqa: F401
from .integrand import Integrand, integrand  # noqa: F401
from .integrate import integrate  # noqa: F401
from .interpolate import interpolate  # noqa: F401
from .operator import (  # noqa: F401
    D, Operator, at_node, average, cells, curl, deformation_gradient, degree, div, div_outer, element_closest_point,
    element_coordinates, element_index, grad, grad_average, grad_jump, grad_outer, inner, jump, lookup, measure,
    measure_ratio, node_count, node_index, node_inner_weight, node_inner_weight_gradient, node_outer_weight,
    node_outer_weight_gradient, normal,
    outer, position, scalar_type, to_cell_side, to_inner_cell, to_outer_cell,
)
from .partition_operators import element_partition_index, node_partition_index, partition_lookup  # noqa: F401
from .polynomial import Polynomial  # noqa: F401
from .quadrature import ExplicitQuadrature, NodalQuadrature, PicQuadrature, Quadrature, RegularQuadrature  # noqa: F401
from .space import (  # noqa: F401
    DofMapper, SkewSymmetricTensorMapper, SymmetricTensorMapper,
    BasisSpace, FunctionSpace, PointBasisSpace, ShapeBasisSpace, SpaceTopology, make_collocated_function_space,
    make_contravariant_function_space, make_covariant_function_space, make_element_based_space_topology,
    make_polynomial_basis_space, make_polynomial_space, SpacePartition, SpaceRestriction, make_space_partition,
    make_space_restriction,
)
from .space.shape import ElementBasis, ShapeFunction, make_element_shape_function  # noqa: F401
from .subdomain import Subdomain  # noqa: F401
from .types import (  # noqa: F401
    NULL_ELEMENT_INDEX, NULL_NODE_INDEX, NULL_QP_INDEX, OUTSIDE, Coords, Coords_f64, Domain, ElementIndex, ElementKind,
    Field, NodeIndex, QuadraturePointIndex, Sample, Sample_f64, make_free_sample,
)


def __getattr__(name):
    raise AttributeError(f"warp.fem.{name} is not available in warp_nb yet (finite elements are being built; "
                         "see docs/compat.md for what is there)")
