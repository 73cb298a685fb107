"""Sub-cells of an element's nodes, for plotting and VTK export: triangles, quads, tetrahedra and
hexahedra whose vertices are node indices of one element, and the VTK cells (connectivity, VTK cell
type) a space writes. Host-side numpy only; the node layouts are those of the shape function modules.

VTK orders Lagrange cells' nodes corners first, then edges, faces and interior; higher-order quads
and hexahedra are reordered here, simplices already come in that order (as Warp writes them)."""

import numpy as np

VTK_VERTEX, VTK_TRIANGLE, VTK_QUAD, VTK_TETRA, VTK_HEXAHEDRON = 1, 5, 9, 10, 12
VTK_LAGRANGE_TRIANGLE, VTK_LAGRANGE_QUADRILATERAL = 69, 70
VTK_LAGRANGE_TETRAHEDRON, VTK_LAGRANGE_HEXAHEDRON = 71, 72

_HEX_TETS = np.array([[0, 1, 2, 4], [3, 2, 1, 7], [5, 1, 7, 4], [6, 7, 4, 2], [4, 1, 2, 7]])
"""Five tetrahedra of a hexahedron, in its tensor numbering 4 i + 2 j + k."""


def grid_triangles(n: int) -> np.ndarray:
    """Two triangles per cell of an n x n tensor grid of nodes (node i n + j), rows of cells along x."""
    tris = []
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = i * n + j, (i + 1) * n + j, (i + 1) * n + j + 1, i * n + j + 1
            tris += [[a, b, c], [a, c, d]]
    return np.array(tris, dtype=np.int32)


def grid_quads(n: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """Counter-clockwise quads of the cells [lo, hi) of an n x n tensor grid."""
    hi = n - 1 if hi is None else hi
    return np.array(
        [[i * n + j, (i + 1) * n + j, (i + 1) * n + j + 1, i * n + j + 1]
         for i in range(lo, hi) for j in range(lo, hi)],
        dtype=np.int32,
    )


def grid_hexes(n: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """VTK-ordered hexahedra of the cells [lo, hi) of an n^3 tensor grid (node i n^2 + j n + k)."""
    hi = n - 1 if hi is None else hi

    def node(i, j, k):
        return (i * n + j) * n + k

    return np.array(
        [[node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k),
          node(i, j, k + 1), node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)]
         for i in range(lo, hi) for j in range(lo, hi) for k in range(lo, hi)],
        dtype=np.int32,
    )


def grid_tets(n: int) -> np.ndarray:
    """Five tetrahedra per cell of an n^3 tensor grid."""
    tets = []
    for i, j, k in np.ndindex(n - 1, n - 1, n - 1):
        local = [((i + a) * n + j + b) * n + k + c for a, b, c in np.ndindex(2, 2, 2)]
        tets += [[local[v] for v in t] for t in _HEX_TETS]
    return np.array(tets, dtype=np.int32)


def vtk_lagrange_quad(n: int) -> np.ndarray:
    """VTK's node order of a Lagrange quadrilateral for an n x n tensor grid (node i n + j)."""
    o = n - 1
    corners = [0, o * n, o * n + o, o]
    inner = range(1, o)
    edges = [i * n for i in inner] + [o * n + j for j in inner] + [i * n + o for i in inner] + list(inner)
    interior = [i * n + j for j in inner for i in inner]
    return np.array(corners + edges + interior, dtype=np.int32)


def vtk_lagrange_hex(n: int) -> np.ndarray:
    """VTK's node order of a Lagrange hexahedron for an n^3 tensor grid (node i n^2 + j n + k)."""
    o, inner = n - 1, range(1, n - 1)

    def node(i, j, k):
        return (i * n + j) * n + k

    corners = [node(0, 0, 0), node(o, 0, 0), node(o, o, 0), node(0, o, 0),
               node(0, 0, o), node(o, 0, o), node(o, o, o), node(0, o, o)]
    edges = []
    for k in (0, o):
        edges += [node(t, 0, k) for t in inner] + [node(o, t, k) for t in inner]
        edges += [node(t, o, k) for t in inner] + [node(0, t, k) for t in inner]
    for i, j in ((0, 0), (o, 0), (o, o), (0, o)):
        edges += [node(i, j, t) for t in inner]
    faces = []
    for i in (0, o):
        faces += [node(i, a, b) for b in inner for a in inner]
    for j in (0, o):
        faces += [node(a, j, b) for b in inner for a in inner]
    for k in (0, o):
        faces += [node(a, b, k) for b in inner for a in inner]
    interior = [node(a, b, c) for c in inner for b in inner for a in inner]
    return np.array(corners + edges + faces + interior, dtype=np.int32)


def lattice_triangles(degree: int, node_of) -> np.ndarray:
    """Sub-triangles of the degree-k triangle lattice; node_of(i, j) is the node at (i/k, j/k)."""
    tris = []
    for i in range(degree):
        for j in range(degree - i):
            tris.append([node_of(i, j), node_of(i + 1, j), node_of(i, j + 1)])
            if i + j < degree - 1:
                tris.append([node_of(i + 1, j), node_of(i + 1, j + 1), node_of(i, j + 1)])
    return np.array(tris, dtype=np.int32)


def p2_tetrahedra(vertex_and_edge_nodes) -> np.ndarray:
    """Eight sub-tetrahedra of a P2 tetrahedron: four corners and the inner octahedron cut along the
    diagonal between the midpoints of edges (0,1) and (2,3). Nodes: 4 vertices, then edges (0,1),
    (1,2), (2,0), (0,3), (1,3), (2,3)."""
    v = vertex_and_edge_nodes
    e01, e12, e20, e03, e13, e23 = v[4:10]
    corners = [[v[0], e01, e20, e03], [v[1], e12, e01, e13], [v[2], e20, e12, e23], [v[3], e03, e13, e23]]
    octahedron = [[e01, e23, e12, e13], [e01, e23, e13, e03], [e01, e23, e03, e20], [e01, e23, e20, e12]]
    return np.array(corners + octahedron, dtype=np.int32)


def single_cell(count: int, vtk_type: int):
    """All of an element's nodes as one VTK cell."""
    return np.arange(count, dtype=np.int32)[None, :], np.array([vtk_type], dtype=np.int8)


def cells_of(connectivity, vtk_type: int):
    connectivity = np.asarray(connectivity, dtype=np.int32)
    return connectivity, np.full(len(connectivity), vtk_type, dtype=np.int8)
