"""`fem.AdaptiveNanogrid` and the functions that build one: the grid of Warp's test_adaptive_nanogrid
(8 fine voxels and 3 coarse ones) checked against warp-lang 1.19's numbers on it (counts, side
numbering, inner and outer cells, measures, degree-1 nodes), the refinement of a linear field (whose
grid does not depend on where the field is sampled), the points where the refinement field is read
(warp-lang's, recorded by a field that writes down where it is evaluated), carving at any level, and
face grading."""

import numpy as np

import warp_nb as wp
from warp_nb import fem

from .geometry_values import evaluate

_FINE = [[2, 2, 0], [2, 3, 0], [3, 2, 0], [3, 3, 0], [2, 2, 1], [2, 3, 1], [3, 2, 1], [3, 3, 1]]
_COARSE = [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0]]


def hierarchy():
    grids = [wp.Volume.allocate_by_voxels(wp.array(_FINE, dtype=int), 0.5),
             wp.Volume.allocate_by_voxels(wp.array(_COARSE, dtype=int), 1.0)]
    return fem.adaptive_nanogrid_from_hierarchy(grids)


def test_hierarchy_matches_warp():
    geo = hierarchy()
    # warp-lang (and the formulas of Warp's test): the coarse voxel over the fine ones is left out
    assert (geo.cell_count(), geo.vertex_count(), geo.side_count(), geo.boundary_side_count()) == (11, 37, 50, 28)
    assert (geo.stacked_face_count(), geo.stacked_edge_count()) == (52, 82)
    assert geo.cell_level.numpy().tolist() == [1, 1, 1] + [0] * 8
    v = evaluate(wp, fem, geo)
    np.testing.assert_allclose(v["cell_measure"][:, 0].sum(), 4.0, rtol=1e-6)
    np.testing.assert_allclose(v["measure"][:, 0].sum(), 23.0, rtol=1e-6)
    assert v["inner"][:, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10, 0, 0, 1, 2, 2, 2, 3,
                                         4, 5, 6, 2, 2, 7, 8, 9, 10, 0, 1, 0, 1, 1, 1, 1, 3, 4, 5, 6, 2, 7, 8, 9, 10]
    assert v["outer"][:, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 9, 10, 10, 0, 1, 1, 2, 3, 4, 5,
                                         6, 5, 6, 7, 8, 9, 10, 9, 10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 7, 8, 9, 10]
    assert v["boundary"].tolist() == [0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 26, 27, 32, 33, 34,
                                      35, 45, 46, 47, 48, 49]
    # a side sits on both its cells, whatever their levels
    np.testing.assert_allclose(v["inner_pos"], v["pos"], atol=1e-5)
    np.testing.assert_allclose(v["outer_pos"], v["pos"], atol=1e-5)
    side_coords = np.broadcast_to(np.array([(0.5, 0.3), (0.1, 0.2), (0.0, 1.0), (1.0, 0.0), (0.25, 0.75)]),
                                  v["back_inner"].shape[:2] + (2,))
    np.testing.assert_allclose(v["back_inner"][..., :2], side_coords, atol=1e-5)
    np.testing.assert_allclose(v["back_outer"][..., :2], side_coords, atol=1e-5)


def test_hierarchy_spaces_match_warp():
    geo = hierarchy()
    q1 = fem.make_polynomial_space(geo, degree=1)
    assert q1.node_count() == 37  # every cell corner, hanging ones included (warp-lang)
    assert q1.topology.element_node_indices().numpy()[:4].tolist() == [
        [0, 1, 2, 3, 6, 7, 8, 10], [2, 3, 4, 5, 8, 10, 14, 16], [6, 7, 8, 10, 26, 27, 28, 30],
        [8, 9, 11, 12, 17, 18, 20, 21]]
    assert fem.make_polynomial_space(geo, degree=2).node_count() == 182  # 37 + 82 stacked edges + 52 faces + 11
    assert fem.make_polynomial_space(geo, degree=0, discontinuous=True).node_count() == 11


@wp.func
def _linear_field(x: wp.vec3):
    return x[0]


def test_refinement_of_a_linear_field_matches_warp():
    coarse = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0], [1, 0, 0]], dtype=int), 1.0)
    field = fem.ImplicitField(fem.Cells(fem.Nanogrid(coarse)), func=_linear_field)
    geo = fem.adaptive_nanogrid_from_field(coarse, level_count=3, refinement_field=field)
    # warp-lang: x < 0 is carved out, the finest level where x < 1/3, level 1 beyond
    assert (geo.cell_count(), geo.side_count(), geo.vertex_count()) == (40, 160, 93)
    voxels = geo.cell_grid.get_voxels().numpy()
    levels = geo.cell_level.numpy()
    assert sorted(set(voxels[levels == 0][:, 0].tolist())) == [2, 3]
    assert sorted(set(voxels[levels == 1][:, 0].tolist())) == [4, 6]
    np.testing.assert_allclose(np.array(geo.cell_grid.translation), [-0.375] * 3)


@wp.func
def _ball_field(x: wp.vec3):
    return 4.0 * (wp.length(x) - 0.5)


def test_face_grading_leaves_at_most_one_level_across_a_face():
    coarse = wp.Volume.allocate_by_voxels(wp.array(_COARSE, dtype=int), 1.0)
    field = fem.ImplicitField(fem.Cells(fem.Nanogrid(coarse)), func=_ball_field)
    plain = fem.adaptive_nanogrid_from_field(coarse, level_count=3, refinement_field=field)
    graded = fem.adaptive_nanogrid_from_field(coarse, level_count=3, refinement_field=field, grading="face")

    def jumps(geo):
        v = evaluate(wp, fem, geo)
        levels = geo.cell_level.numpy().astype(int)
        return np.abs(levels[v["inner"][:, 0]] - levels[v["outer"][:, 0]]).max()

    assert jumps(plain) == 2 and jumps(graded) == 1
    assert graded.cell_count() > plain.cell_count()
    cells = fem.integrate(_one, domain=fem.Cells(graded))
    np.testing.assert_allclose(cells, fem.integrate(_one, domain=fem.Cells(plain)), rtol=1e-6)


@fem.integrand
def _one(s: fem.Sample):
    return 1.0


@wp.func
def _recorded(x: wp.vec3, rec: wp.array(dtype=wp.vec3), count: wp.array(dtype=int)):
    k = wp.atomic_add(count, 0, 1)
    if k < rec.shape[0]:
        rec[k] = x
    return 0.0  # the finest level everywhere: every level is sampled


def test_the_field_is_read_where_warp_reads_it():
    coarse = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0], [1, 2, 3]], dtype=int), 1.0)
    rec, count = wp.zeros(4096, dtype=wp.vec3), wp.zeros(1, dtype=int)
    field = fem.ImplicitField(fem.Cells(fem.Nanogrid(coarse)), func=_recorded, values={"rec": rec, "count": count})
    geo = fem.adaptive_nanogrid_from_field(coarse, level_count=3, refinement_field=field, samples_per_voxel=8)
    assert geo.cell_count() == 128
    points = rec.numpy()[: count.numpy()[0]]
    # points warp-lang 1.19 read (its 1st, 9th, 17th, 137th, 804th and 1168th of 1168): in a coarse
    # cell, a cell of level 1 and cells of level 0
    warp_points = [[0.3712587356567383, 0.2534288167953491, -0.42139410972595215],
                   [1.3486217260360718, 2.4944024085998535, 2.941622257232666],
                   [0.9747024774551392, 1.831521987915039, 2.9225618839263916],
                   [0.44146668910980225, 0.007016897201538086, 0.021377205848693848],
                   [1.004136085510254, 1.9738826751708984, 3.0633294582366943],
                   [0.9044492244720459, 1.7691407203674316, 2.8926873207092285]]
    for p in warp_points:
        assert np.abs(points - np.array(p)).max(axis=1).min() < 1e-6, p
    # each cell's samples once per level: 2 coarse cells, 16 of level 1 and 128 of level 0, 8 samples each
    assert len(points) == (2 + 16 + 128) * 8


@wp.func
def _bump(x: wp.vec3):
    return 4.0 * (0.15 - wp.length(x - wp.vec3(0.1, 0.2, -0.1)))


def test_a_cell_whose_samples_are_all_negative_is_carved_out_at_its_level():
    # the bump is positive only in a small ball that the samples of the coarse cells and of some cells
    # of level 1 miss: those are carved out without looking finer (warp-lang 1.19's cells; sampling
    # on down to level 0 keeps 5)
    coarse = wp.Volume.allocate_by_voxels(wp.array([[0, 0, 0], [1, 0, 0]], dtype=int), 1.0)
    field = fem.ImplicitField(fem.Cells(fem.Nanogrid(coarse)), func=_bump)
    geo = fem.adaptive_nanogrid_from_field(coarse, level_count=3, refinement_field=field)
    cells = np.concatenate([geo.cell_grid.get_voxels().numpy(), geo.cell_level.numpy()[:, None]], 1)
    assert sorted(map(tuple, cells.tolist())) == [(2, 2, 1, 0), (2, 3, 1, 0)]
