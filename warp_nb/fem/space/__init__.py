"""Function spaces: node topologies (topology.py; which one a shape gets on a geometry:
element_topology.py), basis spaces (basis_space.py), the space of a topology and a shape function
(function_space.py), `make_polynomial_space` (polynomial_space.py), `PointBasisSpace` (nodes at a
quadrature's points, point_basis.py), Nedelec and Raviart-Thomas spaces (vector_space.py on
oriented_topology.py), dof mappers (dof_mapper.py), and the shape functions of the reference elements
(shape/)."""

from .basis_space import BasisSpace, ShapeBasisSpace  # noqa: F401
from .dof_mapper import DofMapper, IdentityMapper, SkewSymmetricTensorMapper, SymmetricTensorMapper  # noqa: F401
from .function_space import FunctionSpace  # noqa: F401
from .element_topology import make_element_based_space_topology  # noqa: F401
from .polynomial_space import (  # noqa: F401
    make_collocated_function_space,
    make_polynomial_basis_space,
    make_polynomial_space,
)
from .point_basis import PointBasisSpace  # noqa: F401
from .topology import SpaceTopology  # noqa: F401
from .vector_space import make_contravariant_function_space, make_covariant_function_space  # noqa: F401
from .partition import SpacePartition, SpaceRestriction, make_space_partition, make_space_restriction  # noqa: F401
