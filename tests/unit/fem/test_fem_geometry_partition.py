"""`warp_nb.fem` geometry partitions: the cells a partition owns, and its sides, boundary sides and
frontier sides, against numpy's reading of Warp's rule (a partition owns the sides whose inner cell
it owns; frontier sides have exactly one cell in it) and against the lists warp-lang 1.19 gives for
the same grid; the device functions map indices both ways."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem
from warp_nb.fem.geometry.partition import side_cells

from .test_fem_geometries import _grid_points, _grid_tris


def _lists(p):
    return (p._partition_side_indices.numpy().tolist(), p._boundary_side_indices.numpy().tolist(),
            p._frontier_side_indices.numpy().tolist())


def test_partitions_match_warp_on_a_grid():
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    # read from warp-lang 1.19 on the same grid
    assert _lists(fem.LinearGeometryPartition(geo, 1, 2)) == ([5, 10, 11, 12, 13, 15, 16], [10, 12, 13, 15, 16],
                                                             [3, 4, 9])
    assert _lists(fem.LinearGeometryPartition(geo, 0, 2)) == ([0, 1, 2, 3, 4, 6, 7, 8, 9, 14], [0, 1, 6, 8, 14],
                                                             [3, 4, 9])
    explicit = fem.ExplicitGeometryPartition(geo, wp.array([1, 0, 1, 1, 0, 0], dtype=int))
    assert _lists(explicit) == ([0, 2, 4, 5, 6, 7, 8, 9, 15], [0, 6, 8, 15], [3, 4, 5, 7])
    assert explicit.cell_count() == 3 and explicit.name == "Grid2D_ExplicitGeometryPartition"
    line = fem.Grid2D(res=wp.vec2i(7, 1))
    assert [(p.cell_begin, p.cell_end) for p in (fem.LinearGeometryPartition(line, r, 3) for r in range(3))] == \
        [(0, 3), (3, 6), (6, 7)]


@pytest.mark.parametrize("kind", ["linear", "explicit"])
def test_partition_rule_and_device_maps(kind):
    geo = fem.Trimesh2D(wp.array(_grid_tris(3, 2), dtype=int), wp.array(_grid_points((3, 2), 0.05), dtype=wp.vec2))
    rng = np.random.default_rng(5)
    if kind == "linear":
        part = fem.LinearGeometryPartition(geo, 1, 3)
        owned = np.zeros(geo.cell_count(), bool)
        owned[part.cell_begin:part.cell_end] = True
    else:
        owned = rng.random(geo.cell_count()) < 0.4
        part = fem.ExplicitGeometryPartition(geo, wp.array(owned.astype(np.int32), dtype=int))
    cells = side_cells(geo)
    inner, outer = owned[cells[:, 0]], owned[cells[:, 1]]
    assert _lists(part) == (np.flatnonzero(inner).tolist(), np.flatnonzero(inner & (cells[:, 0] == cells[:, 1])).tolist(),
                            np.flatnonzero(inner != outer).tolist())
    assert part.cell_count() == owned.sum()

    @wp.kernel
    def maps(cell_arg: part.CellArg, side_arg: part.SideArg, to_geo: wp.array(dtype=int), back: wp.array(dtype=int),
             sides: wp.array(dtype=int)):
        i = wp.tid()
        if i < to_geo.shape[0]:
            to_geo[i] = part.cell_index(cell_arg, i)
        back[i] = part.partition_cell_index(cell_arg, i)
        if i < sides.shape[0]:
            sides[i] = part.side_index(side_arg, i)

    to_geo, back = wp.zeros(part.cell_count(), dtype=int), wp.zeros(geo.cell_count(), dtype=int)
    sides = wp.zeros(part.side_count(), dtype=int)
    wp.launch(maps, dim=geo.cell_count(), inputs=[part.cell_arg_value("cpu"), part.side_arg_value("cpu"), to_geo, back,
                                                  sides])
    assert to_geo.numpy().tolist() == np.flatnonzero(owned).tolist()
    expected_back = np.full(geo.cell_count(), -1)
    expected_back[owned] = np.arange(owned.sum())
    assert back.numpy().tolist() == expected_back.tolist()
    assert sides.numpy()[:min(geo.cell_count(), part.side_count())].tolist() == \
        np.flatnonzero(inner)[:min(geo.cell_count(), part.side_count())].tolist()


def test_partition_bad_input():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    with pytest.raises(ValueError, match="partition_rank"):
        fem.LinearGeometryPartition(geo, 2, 2)
    with pytest.raises(ValueError, match="cell_mask"):
        fem.ExplicitGeometryPartition(geo, wp.array([1, 0], dtype=int))
