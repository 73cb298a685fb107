"""`warp.fem.utils`: element connectivity of dense grids (numpy, host side) for building meshes,
in Warp's vertex and element orderings; and, re-exported, the index helpers of indexing.py
(`compress_node_indices`, `masked_indices`, `host_read_at_index`, `validate_indices_in_range`),
the per-type zero and basis element functions, and the linalg solvers Warp's module also lists.

Vertex numbering of a grid of Nx x Ny (x Nz) cells: vertex (i, j) is i (Ny + 1) + j, vertex
(i, j, k) is (i (Ny + 1) + j) (Nz + 1) + k: the last axis moves fastest."""

from __future__ import annotations

import numpy as np

from .indexing import (  # noqa: F401
    NULL_NODE_INDEX,
    check_first_invalid_index,
    compress_node_indices,
    host_read_at_index,
    masked_indices,
    scalar_types,
    type_basis_element,
    type_zero_element,
    validate_indices_in_range,
)
from .linalg import inverse_qr, symmetric_eigenvalues_qr  # noqa: F401


def _check_resolution(**resolution) -> None:
    for name, value in resolution.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer (a number of cells), got {value!r}")


def _cells(*counts):
    """Cell indices along each axis, one entry per cell, the last axis moving fastest."""
    return [a.ravel() for a in np.meshgrid(*(np.arange(n) for n in counts), indexing="ij")]


def grid_to_tris(Nx: int, Ny: int):
    """Triangles of a dense Nx x Ny grid, two per cell, counter-clockwise when y is the fastest moving
    vertex index. Returns an array of shape (2 Nx Ny, 3); cells are listed with x moving fastest."""
    _check_resolution(Nx=Nx, Ny=Ny)
    j, i = _cells(Ny, Nx)

    def vertex(di, dj):
        return (i + di) * (Ny + 1) + (j + dj)

    v00, v10, v11, v01 = vertex(0, 0), vertex(1, 0), vertex(1, 1), vertex(0, 1)
    tris = np.stack([np.stack([v00, v10, v11], axis=-1), np.stack([v00, v11, v01], axis=-1)], axis=1)
    return tris.reshape(-1, 3)


def grid_to_quads(Nx: int, Ny: int):
    """Quadrilaterals of a dense Nx x Ny grid, counter-clockwise when y is the fastest moving vertex
    index. Returns an array of shape (Nx Ny, 4); cells are listed with y moving fastest."""
    _check_resolution(Nx=Nx, Ny=Ny)
    i, j = _cells(Nx, Ny)

    def vertex(di, dj):
        return (i + di) * (Ny + 1) + (j + dj)

    return np.stack([vertex(0, 0), vertex(1, 0), vertex(1, 1), vertex(0, 1)], axis=-1)


def grid_to_hexes(Nx: int, Ny: int, Nz: int):
    """Hexahedra of a dense Nx x Ny x Nz grid: the bottom face (z = 0) counter-clockwise, then the top
    face, when z is the fastest moving vertex index. Returns an array of shape (Nx Ny Nz, 8)."""
    _check_resolution(Nx=Nx, Ny=Ny, Nz=Nz)
    i, j, k = _cells(Nx, Ny, Nz)

    def vertex(di, dj, dk):
        return ((i + di) * (Ny + 1) + (j + dj)) * (Nz + 1) + (k + dk)

    bottom = [(0, 0), (1, 0), (1, 1), (0, 1)]
    return np.stack([vertex(di, dj, dk) for dk in (0, 1) for di, dj in bottom], axis=-1)


#: The five tetrahedra of a cube, as corners (x, y, z) of the unit cell: four corner tets and the
#: central one. Cells with an odd index along an axis use the mirror image along that axis, so that
#: the diagonals of the faces shared by neighbouring cells agree (a conforming mesh).
_CUBE_TETS = (
    ((0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)),
    ((0, 1, 1), (0, 1, 0), (0, 0, 1), (1, 1, 1)),
    ((1, 0, 1), (0, 0, 1), (1, 1, 1), (1, 0, 0)),
    ((1, 1, 0), (1, 1, 1), (1, 0, 0), (0, 1, 0)),
    ((1, 0, 0), (0, 0, 1), (0, 1, 0), (1, 1, 1)),
)


def grid_to_tets(Nx: int, Ny: int, Nz: int):
    """Tetrahedra of a dense Nx x Ny x Nz grid, five per cell (cells mirrored in a checkerboard so
    that faces conform). Returns an array of shape (5 Nx Ny Nz, 4)."""
    _check_resolution(Nx=Nx, Ny=Ny, Nz=Nz)
    i, j, k = _cells(Nx, Ny, Nz)
    fi, fj, fk = i & 1, j & 1, k & 1  # the mirrored axes of each cell

    def corner(x, y, z):
        return ((i + (x ^ fi)) * (Ny + 1) + (j + (y ^ fj))) * (Nz + 1) + (k + (z ^ fk))

    tets = np.stack([np.stack([corner(*c) for c in tet], axis=-1) for tet in _CUBE_TETS], axis=1)
    return tets.reshape(-1, 4)
