"""Function spaces: node topologies (topology.py), the space of a topology and a shape function
(function_space.py), `make_polynomial_space` (polynomial_space.py), and the shape functions of the
reference elements (shape/)."""

from .function_space import FunctionSpace  # noqa: F401
from .polynomial_space import make_polynomial_space  # noqa: F401
from .topology import SpaceTopology  # noqa: F401
