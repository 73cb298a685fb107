"""wp.geometry.IsoSurfaceMarchingCubes (and its abstract base IsoSurfaceBase): the isosurface of a
scalar field on a regular grid of nx x ny x nz nodes as a triangle mesh, with Warp's interface:
`surface(field, threshold)` filling `verts` and `indices`, the one-call `extract(field, threshold,
lower, upper)`, the published lookup tables, and Warp's deprecated names (wp.MarchingCubes,
domain_bounds_*_corner, extract_surface_marching_cubes) with their warnings.

Which edges the surface crosses and how the crossings form triangles is decided on the host
(marching_cubes.topology); where each crossing lies is computed by a warp_nb kernel from the field
values at the edge's ends, so a launch recorded on a wp.Tape carries gradients from the vertices
back to the field (and to whatever computed it)."""

from __future__ import annotations

import abc

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array, array3d
from ..program.kernel import kernel
from ..errors import warn
from .marching_cubes import lookup_tables, topology

_UNSET = object()


@kernel
def _place_vertices(field: array3d(dtype=float), sites: array(dtype=T.vec4i), threshold: float,
                    lower: T.vec3, spacing: T.vec3, verts: array(dtype=T.vec3)):
    v = wp.tid()
    s = sites[v]
    i, j, k, axis = s[0], s[1], s[2], s[3]
    f0 = field[i, j, k]
    f1 = f0
    if axis == 0:
        f1 = field[i + 1, j, k]
    elif axis == 1:
        f1 = field[i, j + 1, k]
    else:
        f1 = field[i, j, k + 1]
    t = wp.clamp((threshold - f0) / (f1 - f0), 0.0, 1.0)
    p = wp.vec3(float(i), float(j), float(k))
    if axis == 0:
        p = p + wp.vec3(t, 0.0, 0.0)
    elif axis == 1:
        p = p + wp.vec3(0.0, t, 0.0)
    else:
        p = p + wp.vec3(0.0, 0.0, t)
    verts[v] = lower + wp.cw_mul(p, spacing)


def _bounds(lower, upper, shape):
    """(origin, node spacing) mapping grid coordinates onto [lower, upper]; grid coordinates without bounds."""
    if lower is None or upper is None:
        return wp.vec3(0.0, 0.0, 0.0), wp.vec3(1.0, 1.0, 1.0)
    lo, hi = np.asarray(lower, np.float64), np.asarray(upper, np.float64)
    cells = np.maximum(np.asarray(shape, np.float64) - 1.0, 1.0)
    return wp.vec3(*lo.astype(np.float32)), wp.vec3(*((hi - lo) / cells).astype(np.float32))


def _check_field_shape(shape) -> None:
    if len(shape) != 3 or min(shape) < 2:
        raise ValueError(f"marching cubes needs a 3-D field with at least 2 nodes on each axis, got shape "
                         f"{tuple(shape)}")


class IsoSurfaceBase(abc.ABC):
    """An isosurface extractor over a grid of nx x ny x nz nodes spanning [lower, upper]: after
    surface(field, threshold), `verts` (wp.vec3) and `indices` (int32, three per triangle)."""

    def __init__(self, nx: int, ny: int, nz: int, lower=None, upper=None, device=None):
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)
        self.lower, self.upper = lower, upper
        self.device = wp.get_device(device)
        self.verts = None  # set by surface(), as in Warp
        self.indices = None

    @abc.abstractmethod
    def surface(self, field, threshold: float) -> None:
        """Extract the surface field == threshold into verts and indices."""

    def resize(self, nx: int, ny: int, nz: int, max_verts: int = 0, max_tris: int = 0) -> None:
        """Use another grid size from now on (max_verts, max_tris: accepted; nothing is preallocated)."""
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)


class IsoSurfaceMarchingCubes(IsoSurfaceBase):
    """Marching cubes over a grid of nx x ny x nz nodes; vertices in grid coordinates, or mapped
    onto [lower, upper] when both are given. Normals point towards increasing field values
    (outwards for a signed distance field); the surface is closed across cells."""

    _TABLES = lookup_tables()
    CUBE_CORNER_OFFSETS = _TABLES["CUBE_CORNER_OFFSETS"]  # corner k of a cell at (i, j, k) + offset
    EDGE_TO_CORNERS = _TABLES["EDGE_TO_CORNERS"]  # the two corners of each of the 12 edges
    CASE_TO_TRI_RANGE = _TABLES["CASE_TO_TRI_RANGE"]  # case c's triangles: TRI_LOCAL_INDICES[3 r0 : 3 r1]
    TRI_LOCAL_INDICES = _TABLES["TRI_LOCAL_INDICES"]  # three edge indices per triangle

    def __init__(self, nx: int, ny: int, nz: int, lower=None, upper=None, *args, device=None,
                 domain_bounds_lower_corner=_UNSET, domain_bounds_upper_corner=_UNSET, max_verts=None, max_tris=None):
        if isinstance(lower, (int, np.integer)) and not isinstance(lower, bool):
            lower = upper = None  # Warp's older signature: (nx, ny, nz, max_verts, max_tris, device)
        lower = _legacy_argument("lower", lower, "domain_bounds_lower_corner", domain_bounds_lower_corner)
        upper = _legacy_argument("upper", upper, "domain_bounds_upper_corner", domain_bounds_upper_corner)
        super().__init__(nx, ny, nz, lower, upper, device)

    def surface(self, field, threshold: float) -> None:
        """Extract the surface field == threshold (field: a 3-D wp.array of float32, or a numpy array,
        of the grid's shape) into `verts` and `indices`."""
        field = _as_field(field, self.device)
        _check_field_shape(field.shape)
        if tuple(field.shape) != (self.nx, self.ny, self.nz):
            raise ValueError(f"IsoSurfaceMarchingCubes({self.nx}, {self.ny}, {self.nz}) got a field of shape "
                             f"{tuple(field.shape)}")
        self.verts, self.indices = _extract(field, threshold, self.lower, self.upper)

    @staticmethod
    def extract(field, threshold: float = 0.0, lower=None, upper=None):
        """(verts, indices) of the surface field == threshold, in one call."""
        field = _as_field(field, None)
        _check_field_shape(field.shape)
        return _extract(field, threshold, lower, upper)

    @staticmethod
    def extract_surface_marching_cubes(field, threshold: float = 0.0, lower=None, upper=None):
        """Deprecated name of extract()."""
        warn("MarchingCubes.extract_surface_marching_cubes() is deprecated; use "
             "wp.geometry.IsoSurfaceMarchingCubes.extract() instead", DeprecationWarning, stacklevel=2)
        return IsoSurfaceMarchingCubes.extract(field, threshold, lower, upper)

    @property
    def domain_bounds_lower_corner(self):
        warn("IsoSurfaceMarchingCubes.domain_bounds_lower_corner is deprecated. Use `lower` instead.",
             DeprecationWarning, stacklevel=2)
        return self.lower

    @domain_bounds_lower_corner.setter
    def domain_bounds_lower_corner(self, value):
        warn("IsoSurfaceMarchingCubes.domain_bounds_lower_corner is deprecated. Use `lower` instead.",
             DeprecationWarning, stacklevel=2)
        self.lower = value

    @property
    def domain_bounds_upper_corner(self):
        warn("IsoSurfaceMarchingCubes.domain_bounds_upper_corner is deprecated. Use `upper` instead.",
             DeprecationWarning, stacklevel=2)
        return self.upper

    @domain_bounds_upper_corner.setter
    def domain_bounds_upper_corner(self, value):
        warn("IsoSurfaceMarchingCubes.domain_bounds_upper_corner is deprecated. Use `upper` instead.",
             DeprecationWarning, stacklevel=2)
        self.upper = value

    def __repr__(self):
        return f"wp.geometry.IsoSurfaceMarchingCubes({self.nx}, {self.ny}, {self.nz})"


def _legacy_argument(name, value, legacy_name, legacy_value):
    if legacy_value is _UNSET:
        return value
    if value is not None:
        raise TypeError(f"Cannot specify both `{name}` and `{legacy_name}`")
    # stacklevel 3: the caller of IsoSurfaceMarchingCubes(...) (counted from here: here, __init__, caller)
    warn(f"The argument `{legacy_name}` is deprecated. Use `{name}` instead.", DeprecationWarning, stacklevel=3)
    return legacy_value


def _as_field(field, device):
    if isinstance(field, wp.array):
        return field
    return wp.array(np.asarray(field, np.float32), dtype=wp.float32, device=device)


def _extract(field, threshold: float, lower, upper):
    sites, indices = topology(field.numpy(), threshold)
    device = field.device
    verts = wp.zeros(len(sites), dtype=wp.vec3, device=device, requires_grad=field.requires_grad)
    if len(sites):
        origin, spacing = _bounds(lower, upper, field.shape)
        wp.launch(_place_vertices, len(sites), inputs=[field, wp.array(sites, dtype=wp.vec4i, device=device),
                                                       float(threshold), origin, spacing, verts], device=device)
    return verts, wp.array(indices, dtype=wp.int32, device=device)


def deprecated_marching_cubes():
    """wp.MarchingCubes: the class itself, with Warp's deprecation warning."""
    warn("wp.MarchingCubes is deprecated; use wp.geometry.IsoSurfaceMarchingCubes instead", DeprecationWarning,
         stacklevel=3)
    return IsoSurfaceMarchingCubes
