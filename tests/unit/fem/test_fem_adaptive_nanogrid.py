"""`fem.AdaptiveNanogrid` and the functions that build one: the grid of Warp's test_adaptive_nanogrid
(8 fine voxels and 3 coarse ones) checked against warp-lang 1.19's numbers on it (counts, side
numbering, inner and outer cells, measures, degree-1 nodes), the refinement of a linear field (whose
grid does not depend on where the field is sampled) and face grading."""

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
