"""wp.geometry.IsoSurfaceNets: the isosurface of a scalar field on a regular grid by surface nets, one
vertex per surface sheet of each cell (OpenVDB's uniform volume-to-mesh semantics), joined into one
quad around each crossed grid edge. In: a 3-D wp.array of float32 and an isovalue; out: verts (wp.vec3)
and indices (int32), quads split into triangles (0, 1, 2), (0, 2, 3), or the quads themselves.

Each cell is classified by warp_nb kernels, one thread per cell: its sign configuration (bit c set when
corner c is inside, below the isovalue), the ambiguous-face correction between two neighbouring cells,
and which of its edges carry a quad. The host then gathers the surface's cells with numpy: how many
vertices each gets (surface_nets_tables.py) and the quads, in cell order. Where each vertex lies, the mean of its sheet's edge crossings, is computed by a warp_nb kernel
from the field, so a launch recorded on a wp.Tape carries gradients back to the field. Vertices of a
sheet that only crosses the domain's boundary edges belong to no quad and are left out."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array, array3d
from ..program.kernel import kernel
from .iso_surface import IsoSurfaceBase, _bounds
from .surface_nets_tables import AMBIGUOUS_FACE, CORNER_OFFSETS, EDGE_GROUP_TABLE, EDGE_TO_CORNERS

_TABLE = np.array(EDGE_GROUP_TABLE, np.int64).reshape(256, 13)
_AMBIGUOUS = np.array(AMBIGUOUS_FACE, np.int64)
_TOPOLOGIES = ("triangle", "quad")

# the quad around each axis' edge at a cell's corner 0: (cell offset, table column of that edge) for the
# four cells around it, and whether an inside corner 0 keeps (True) or reverses the winding
_QUADS = (
    (((0, 0, 0), 1), ((0, -1, 0), 5), ((0, -1, -1), 7), ((0, 0, -1), 3)),  # x edge: corners 0-1
    (((0, 0, 0), 9), ((0, 0, -1), 12), ((-1, 0, -1), 11), ((-1, 0, 0), 10)),  # y edge: corners 0-4
    (((0, 0, 0), 4), ((0, -1, 0), 8), ((-1, -1, 0), 6), ((-1, 0, 0), 2)),  # z edge: corners 0-3
)
_KEEP_WHEN_INSIDE = (True, True, False)


@kernel
def _place_vertices(field: array3d(dtype=float), sites: array(dtype=T.vec4i), groups: array(dtype=T.int32),
                    table: array(dtype=T.int32), edge_from: array(dtype=T.vec3i), edge_to: array(dtype=T.vec3i),
                    threshold: float, lower: T.vec3, spacing: T.vec3, verts: array(dtype=T.vec3)):
    v = wp.tid()
    s = sites[v]  # the cell's lower node and its (corrected) sign configuration
    g = groups[v]
    acc = wp.vec3(0.0, 0.0, 0.0)
    n = 0.0
    for e in range(12):
        if table[s[3] * 13 + 1 + e] == g:
            a = edge_from[e]
            b = edge_to[e]
            f0 = field[s[0] + a[0], s[1] + a[1], s[2] + a[2]]
            f1 = field[s[0] + b[0], s[1] + b[1], s[2] + b[2]]
            t = (threshold - f0) / (f1 - f0)
            pa = wp.vec3(float(a[0]), float(a[1]), float(a[2]))
            pb = wp.vec3(float(b[0]), float(b[1]), float(b[2]))
            acc = acc + pa + t * (pb - pa)
            n = n + 1.0
    p = wp.vec3(float(s[0]), float(s[1]), float(s[2])) + acc / n
    verts[v] = lower + wp.cw_mul(p, spacing)


def _check_topology(topology: str) -> str:
    if topology not in _TOPOLOGIES:
        raise ValueError(f"`topology` must be 'triangle' or 'quad', got {topology!r}")
    return topology


def _check_field(field, device=None):
    if not isinstance(field, wp.array):
        field = wp.array(np.asarray(field, np.float32), dtype=wp.float32, device=device)
    if field.ndim != 3:
        raise ValueError(f"surface nets needs a 3-D field, got a {field.ndim}-D array of shape {tuple(field.shape)}")
    if field.dtype != wp.float32:
        raise TypeError(f"surface nets needs a float32 field, got {getattr(field.dtype, '__name__', field.dtype)}")
    if min(field.shape) < 2:
        raise ValueError(f"surface nets needs a field with at least 2 nodes on each axis, got shape "
                         f"{tuple(field.shape)}")
    return field


@kernel(enable_backward=False)
def _cell_signs(field: array3d(dtype=float), threshold: float, signs: array3d(dtype=T.int32)):
    i, j, k = wp.tid()  # bit c: corner c (numbered as CORNER_OFFSETS) lies inside, below the isovalue
    s = 0
    if field[i, j, k] < threshold:
        s = s | 1
    if field[i + 1, j, k] < threshold:
        s = s | 2
    if field[i + 1, j, k + 1] < threshold:
        s = s | 4
    if field[i, j, k + 1] < threshold:
        s = s | 8
    if field[i, j + 1, k] < threshold:
        s = s | 16
    if field[i + 1, j + 1, k] < threshold:
        s = s | 32
    if field[i + 1, j + 1, k + 1] < threshold:
        s = s | 64
    if field[i, j + 1, k + 1] < threshold:
        s = s | 128
    signs[i, j, k] = s


@kernel(enable_backward=False)
def _classify(signs: array3d(dtype=T.int32), ambiguous: array(dtype=T.int32), code: array3d(dtype=T.int32)):
    """code: 0 for a cell the surface misses; else its corrected signs (bits 0-7), whether a quad goes round
    its corner-0 x, y, z edge (bits 8-10: crossed and not on the domain's boundary), corner 0 inside
    (bit 11) and 1 << 12."""
    i, j, k = wp.tid()
    s = signs[i, j, k]
    out = 0
    if s != 0 and s != 255:
        c = s
        face = ambiguous[s]
        # the ambiguous-face correction: both cells see their shared face as their one ambiguous face
        # (nested ifs: the neighbour is read only once it is known to exist)
        if face == 1 and k > 0:
            if ambiguous[signs[i, j, k - 1]] == 3:
                c = 255 - s
        elif face == 2 and i + 1 < signs.shape[0]:
            if ambiguous[signs[i + 1, j, k]] == 4:
                c = 255 - s
        elif face == 3 and k + 1 < signs.shape[2]:
            if ambiguous[signs[i, j, k + 1]] == 1:
                c = 255 - s
        elif face == 4 and i > 0:
            if ambiguous[signs[i - 1, j, k]] == 2:
                c = 255 - s
        elif face == 5 and j > 0:
            if ambiguous[signs[i, j - 1, k]] == 6:
                c = 255 - s
        elif face == 6 and j + 1 < signs.shape[1]:  # noqa: SIM102
            if ambiguous[signs[i, j + 1, k]] == 5:
                c = 255 - s
        inside = s & 1
        out = c | 4096 | (inside << 11)
        if inside != ((s >> 1) & 1) and j > 0 and k > 0:
            out = out | 256
        if inside != ((s >> 4) & 1) and i > 0 and k > 0:
            out = out | 512
        if inside != ((s >> 3) & 1) and i > 0 and j > 0:
            out = out | 1024
    code[i, j, k] = out


def topology(field, threshold: float):
    """(vertex sites (v, 4): cell node and corrected signs; vertex groups (v,); quads (q, 4)), vertices of
    boundary-only sheets already left out. Cells are classified in kernels; the surface's cells on the host."""
    device = field.device
    cells_shape = tuple(n - 1 for n in field.shape)
    signs = wp.empty(cells_shape, dtype=wp.int32, device=device)
    wp.launch(_cell_signs, cells_shape, inputs=[field, float(threshold), signs], device=device, record_tape=False)
    code = wp.empty(cells_shape, dtype=wp.int32, device=device)
    wp.launch(_classify, cells_shape, inputs=[signs, wp.array(_AMBIGUOUS.astype(np.int32), device=device), code],
              device=device, record_tape=False)
    code = code.numpy().reshape(-1).astype(np.int64)
    mixed = np.flatnonzero(code)  # linear cell indices in (i, j, k) order
    c = code[mixed]
    corrected = c & 255
    count = _TABLE[corrected, 0]
    first = np.cumsum(count) - count
    strides = np.array([cells_shape[1] * cells_shape[2], cells_shape[2], 1], np.int64)

    quads, order = [], []
    for axis, corners in enumerate(_QUADS):
        at = np.flatnonzero((c >> (8 + axis)) & 1)
        points = []
        for offset, column in corners:
            nb = np.searchsorted(mixed, mixed[at] + np.dot(offset, strides))  # the neighbour's row among mixed
            shift = np.where(count[nb] > 1, _TABLE[corrected[nb], column] - 1, 0)
            points.append(first[nb] + shift)
        q = np.stack(points, 1).reshape(-1, 4)
        flip = ((c[at] >> 11) & 1).astype(bool) != _KEEP_WHEN_INSIDE[axis]
        q[flip] = q[flip][:, ::-1]
        quads.append(q)
        order.append(mixed[at] * 3 + axis)
    quads = np.concatenate(quads)[np.argsort(np.concatenate(order), kind="stable")]

    vert_cell = np.repeat(np.arange(len(mixed)), count)
    vert_group = np.arange(len(vert_cell)) - np.repeat(first, count) + 1
    used, remap = np.unique(quads, return_inverse=True)
    cells = np.stack(np.unravel_index(mixed[vert_cell[used]], cells_shape), 1)
    sites = np.concatenate([cells, corrected[vert_cell[used], None]], 1)
    return sites.astype(np.int32), vert_group[used].astype(np.int32), remap.reshape(-1, 4).astype(np.int32)


def _extract(field, threshold: float, lower, upper, topology_name: str):
    device = field.device
    sites, groups, quads = topology(field, threshold)
    verts = wp.zeros(len(sites), dtype=wp.vec3, device=device, requires_grad=field.requires_grad)
    if len(sites):
        origin, spacing = _bounds(lower, upper, field.shape)
        wp.launch(_place_vertices, len(sites),
                  inputs=[field, wp.array(sites, dtype=wp.vec4i, device=device),
                          wp.array(groups, dtype=wp.int32, device=device),
                          wp.array(np.array(EDGE_GROUP_TABLE, np.int32), dtype=wp.int32, device=device),
                          wp.array([CORNER_OFFSETS[a] for a, _ in EDGE_TO_CORNERS], dtype=wp.vec3i, device=device),
                          wp.array([CORNER_OFFSETS[b] for _, b in EDGE_TO_CORNERS], dtype=wp.vec3i, device=device),
                          float(threshold), origin, spacing, verts], device=device)
    faces = quads if topology_name == "quad" else quads[:, [0, 1, 2, 0, 2, 3]]
    return verts, wp.array(faces.reshape(-1), dtype=wp.int32, device=device)


class IsoSurfaceNets(IsoSurfaceBase):
    """Surface nets over a grid of nx x ny x nz nodes; vertices in grid coordinates, or mapped onto
    [lower, upper] when both are given. Triangles face outwards (towards increasing field values); with
    topology="quad", indices holds four per quad. The mesh is closed where the surface stays inside the
    grid and open where it leaves it."""

    def __init__(self, nx: int, ny: int, nz: int, *, lower=None, upper=None, topology: str = "triangle", device=None):
        self.topology = _check_topology(topology)
        super().__init__(nx, ny, nz, lower, upper, device)

    def surface(self, field, threshold: float) -> None:
        """Extract the surface field == threshold into `verts` and `indices`."""
        field = _check_field(field, self.device)
        if tuple(field.shape) != (self.nx, self.ny, self.nz):
            raise ValueError(f"IsoSurfaceNets({self.nx}, {self.ny}, {self.nz}) got a field of shape "
                             f"{tuple(field.shape)}")
        self.verts, self.indices = _extract(field, threshold, self.lower, self.upper, self.topology)

    @staticmethod
    def extract(field, threshold: float = 0.0, *, lower=None, upper=None, topology: str = "triangle"):
        """(verts, indices) of the surface field == threshold, in one call."""
        _check_topology(topology)
        field = _check_field(field)
        return _extract(field, threshold, lower, upper, topology)

    def __repr__(self):
        return f"wp.geometry.IsoSurfaceNets({self.nx}, {self.ny}, {self.nz}, topology={self.topology!r})"
