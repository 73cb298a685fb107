"""`warp.fem` geometries: the `Geometry` protocol and the grids and meshes that implement it
(element.py holds the reference elements and their quadrature rules)."""

from .deformed_geometry import DeformedGeometry  # noqa: F401
from .geometry import NULL_ELEMENT_INDEX, OUTSIDE, Geometry  # noqa: F401
from .grid_2d import Grid2D  # noqa: F401
from .grid_3d import Grid3D  # noqa: F401
from .hexmesh import Hexmesh  # noqa: F401
from .nanogrid import Nanogrid  # noqa: F401
from .adaptive_nanogrid import AdaptiveNanogrid  # noqa: F401
from .partition import (  # noqa: F401
    CellBasedGeometryPartition,
    ExplicitGeometryPartition,
    GeometryPartition,
    LinearGeometryPartition,
)
from .quadmesh import Quadmesh, Quadmesh2D, Quadmesh3D  # noqa: F401
from .tetmesh import Tetmesh  # noqa: F401
from .trimesh import Trimesh, Trimesh2D, Trimesh3D  # noqa: F401
