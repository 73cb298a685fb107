"""Shape functions, evaluated on the device in float64 and checked in numpy: a Lagrange basis is 1 at
its own node and 0 at the others, the scalar bases sum to 1 anywhere, gradients match central
differences of the values, the nodal quadrature weights integrate the basis's polynomials exactly
(against closed-form means), the lowest-order vector bases have unit tangential (Nedelec) or normal
(Raviart-Thomas) traces on their own side only, and the factory picks families and names bad input."""

import math

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.fem import Element, ElementBasis, Polynomial
from warp_nb.fem.cache import dynamic_kernel
from warp_nb.fem.space import shape as S

F64 = wp.float64
LGL, GL = Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.GAUSS_LEGENDRE

# (shape, element kind) with element kind one of "square", "cube", "tri", "tet"
SCALAR_SHAPES = [
    (lambda: S.SquareBipolynomialShapeFunctions(1, LGL, scalar_type=F64), "square"),
    (lambda: S.SquareBipolynomialShapeFunctions(2, LGL, scalar_type=F64), "square"),
    (lambda: S.SquareBipolynomialShapeFunctions(3, GL, scalar_type=F64), "square"),
    (lambda: S.SquareBipolynomialShapeFunctions(2, Polynomial.EQUISPACED_OPEN, scalar_type=F64), "square"),
    (lambda: S.SquareSerendipityShapeFunctions(2, LGL, scalar_type=F64), "square"),
    (lambda: S.SquareSerendipityShapeFunctions(3, LGL, scalar_type=F64), "square"),
    (lambda: S.SquareNonConformingPolynomialShapeFunctions(2, scalar_type=F64), "square"),
    (lambda: S.CubeTripolynomialShapeFunctions(2, LGL, scalar_type=F64), "cube"),
    (lambda: S.CubeSerendipityShapeFunctions(3, LGL, scalar_type=F64), "cube"),
    (lambda: S.CubeNonConformingPolynomialShapeFunctions(2, scalar_type=F64), "cube"),
    (lambda: S.TrianglePolynomialShapeFunctions(1, scalar_type=F64), "tri"),
    (lambda: S.TrianglePolynomialShapeFunctions(2, scalar_type=F64), "tri"),
    (lambda: S.TrianglePolynomialShapeFunctions(3, scalar_type=F64), "tri"),
    (lambda: S.TriangleNonConformingPolynomialShapeFunctions(2, scalar_type=F64), "tri"),
    (lambda: S.TetrahedronPolynomialShapeFunctions(2, scalar_type=F64), "tet"),
    (lambda: S.TetrahedronPolynomialShapeFunctions(3, scalar_type=F64), "tet"),
    (lambda: S.TetrahedronNonConformingPolynomialShapeFunctions(1, scalar_type=F64), "tet"),
]
BSPLINES = [
    (lambda: S.SquareBSplineShapeFunctions(2, scalar_type=F64), "square"),
    (lambda: S.CubeBSplineShapeFunctions(3, scalar_type=F64), "cube"),
]
VECTOR_SHAPES = [
    (lambda: S.SquareNedelecFirstKindShapeFunctions(1, scalar_type=F64), "square"),
    (lambda: S.SquareRaviartThomasShapeFunctions(1, scalar_type=F64), "square"),
    (lambda: S.CubeNedelecFirstKindShapeFunctions(1, scalar_type=F64), "cube"),
    (lambda: S.CubeRaviartThomasShapeFunctions(1, scalar_type=F64), "cube"),
    (lambda: S.TriangleNedelecFirstKindShapeFunctions(1, scalar_type=F64), "tri"),
    (lambda: S.TriangleRaviartThomasShapeFunctions(1, scalar_type=F64), "tri"),
    (lambda: S.TetrahedronNedelecFirstKindShapeFunctions(1, scalar_type=F64), "tet"),
    (lambda: S.TetrahedronRaviartThomasShapeFunctions(1, scalar_type=F64), "tet"),
]
DIM = {"square": 2, "cube": 3, "tri": 2, "tet": 3}


def _to_coords(kind, xyz):
    """Reference (x, y, z) points -> element coordinates (barycentric on the triangle)."""
    xyz = np.asarray(xyz, dtype=np.float64)
    if kind == "tri":
        return np.stack([1.0 - xyz[:, 0] - xyz[:, 1], xyz[:, 0], xyz[:, 1]], axis=1)
    if kind == "square":
        return np.concatenate([xyz[:, :2], np.zeros((len(xyz), 1))], axis=1)
    return xyz


def _random_points(kind, count, rng):
    d = DIM[kind]
    pts = rng.uniform(0.05, 0.95, size=(count * 4, 3))
    pts[:, d:] = 0.0
    if kind in ("tri", "tet"):
        pts = pts[pts[:, :d].sum(axis=1) < 0.95]
    return pts[:count]


def _evaluate(shape, kind, coords):
    """values[p, n, c] and gradients[p, n, c, d] at element coordinates, on the device."""
    value_fn = shape.make_element_inner_weight()
    grad_fn = shape.make_element_inner_weight_gradient()
    N, D = shape.NODES_PER_ELEMENT, DIM[kind]
    C = 1 if shape.value == shape.Value.Scalar else D

    @dynamic_kernel(suffix=shape.name, kernel_options={"enable_backward": False})
    def evaluate(points: wp.array(dtype=wp.vec3d), values: wp.array2d(dtype=F64), grads: wp.array2d(dtype=F64)):
        p, n = wp.tid()
        v = value_fn(points[p], n)
        g = grad_fn(points[p], n)
        if wp.static(C == 1):
            values[p, n] = v
            for j in range(D):
                grads[p, n * D + j] = g[j]
        else:
            for i in range(C):
                values[p, n * C + i] = v[i]
                for j in range(D):
                    grads[p, (n * C + i) * D + j] = g[i, j]

    pts = wp.array(np.asarray(coords, dtype=np.float64), dtype=wp.vec3d)
    values = wp.zeros((len(coords), N * C), dtype=F64)
    grads = wp.zeros((len(coords), N * C * D), dtype=F64)
    wp.launch(evaluate, dim=(len(coords), N), inputs=[pts, values, grads])
    return values.numpy().reshape(len(coords), N, C), grads.numpy().reshape(len(coords), N, C, D)


def _node_tables(shape, trace=False):
    coords_fn = shape.make_node_coords_in_element()
    qw_fn = shape.make_node_quadrature_weight()
    tw_fn = shape.make_trace_node_quadrature_weight()
    N = shape.NODES_PER_ELEMENT

    @dynamic_kernel(suffix=shape.name, kernel_options={"enable_backward": False})
    def tables(coords: wp.array(dtype=wp.vec3d), weights: wp.array(dtype=F64), trace_weights: wp.array(dtype=F64)):
        n = wp.tid()
        coords[n] = coords_fn(n)
        weights[n] = qw_fn(n)
        trace_weights[n] = tw_fn(n)

    coords, weights, trace_weights = wp.zeros(N, dtype=wp.vec3d), wp.zeros(N, dtype=F64), wp.zeros(N, dtype=F64)
    wp.launch(tables, dim=N, inputs=[coords, weights, trace_weights])
    if trace:
        return coords.numpy(), trace_weights.numpy()
    return coords.numpy(), weights.numpy()


@pytest.mark.parametrize("make, kind", [
    (lambda: S.SquareBipolynomialShapeFunctions(3, LGL, scalar_type=F64), "square"),
    (lambda: S.SquareSerendipityShapeFunctions(3, LGL, scalar_type=F64), "square"),
    (lambda: S.CubeTripolynomialShapeFunctions(2, LGL, scalar_type=F64), "cube"),
    (lambda: S.CubeSerendipityShapeFunctions(2, LGL, scalar_type=F64), "cube"),
    (lambda: S.TrianglePolynomialShapeFunctions(3, scalar_type=F64), "tri"),
    (lambda: S.TetrahedronPolynomialShapeFunctions(2, scalar_type=F64), "tet"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_trace_weights_are_a_positive_rule_on_each_side(make, kind):
    shape = make()
    coords, tw = _node_tables(shape, trace=True)
    on_side = np.abs(coords[:, 0]) < 1e-12  # x = 0, or the edge opposite vertex 0 on the triangle
    assert np.all(tw[on_side] > 0)
    assert tw[on_side].sum() == pytest.approx(1.0)
    centre = {"square": [0, 0.5, 0], "cube": [0, 0.5, 0.5], "tri": [0, 0.5, 0.5], "tet": [0, 1 / 3, 1 / 3]}[kind]
    np.testing.assert_allclose(tw[on_side] @ coords[on_side], centre, atol=1e-12)


def _fd_check(shape, kind, rng):
    d = DIM[kind]
    xyz = _random_points(kind, 12, rng)
    _, grads = _evaluate(shape, kind, _to_coords(kind, xyz))
    h = 1e-5
    for axis in range(d):
        step = np.zeros(3)
        step[axis] = h
        vp, _ = _evaluate(shape, kind, _to_coords(kind, xyz + step))
        vm, _ = _evaluate(shape, kind, _to_coords(kind, xyz - step))
        np.testing.assert_allclose(grads[..., axis], (vp - vm) / (2 * h), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, kind", SCALAR_SHAPES, ids=lambda v: v if isinstance(v, str) else "")
def test_lagrange_bases_interpolate_sum_to_one_and_differentiate(make, kind):
    shape = make()
    rng = np.random.default_rng(7)
    nodes, weights = _node_tables(shape)
    values, _ = _evaluate(shape, kind, nodes)
    np.testing.assert_allclose(values[:, :, 0], np.eye(shape.NODES_PER_ELEMENT), atol=1e-9)
    values, _ = _evaluate(shape, kind, _to_coords(kind, _random_points(kind, 20, rng)))
    np.testing.assert_allclose(values[:, :, 0].sum(axis=1), 1.0, atol=1e-10)
    _fd_check(shape, kind, rng)
    assert weights.sum() == pytest.approx(1.0)


def _exact_mean(kind, e):
    """Mean over the reference element of x^a y^b z^c."""
    d = DIM[kind]
    if kind in ("square", "cube"):
        return math.prod(1.0 / (k + 1) for k in e[:d])
    return math.factorial(d) * math.prod(math.factorial(k) for k in e[:d]) / math.factorial(sum(e[:d]) + d)


EXACT_NODAL_RULES = ("Square_Q2_LGL", "Square_Q3_GL", "Square_Q2_open", "Cube_Q2_LGL", "Tri_P1", "Tri_P3")
"""Families whose basis functions all have positive means: their nodal rule integrates P_k exactly."""


@pytest.mark.parametrize("make, kind", SCALAR_SHAPES, ids=lambda v: v if isinstance(v, str) else "")
def test_nodal_quadrature_is_positive_and_exact_on_linears(make, kind):
    shape = make()
    nodes, weights = _node_tables(shape)
    xyz = nodes if kind != "tri" else np.stack([nodes[:, 1], nodes[:, 2], np.zeros(len(nodes))], axis=1)
    d = DIM[kind]
    exact_degree = shape.ORDER if shape.name.replace("_f64", "") in EXACT_NODAL_RULES else 1
    for e in [(a, b, c) for a in range(exact_degree + 1) for b in range(exact_degree + 1 - a)
              for c in range(exact_degree + 1 - a - b) if d == 3 or c == 0]:
        got = np.dot(weights, np.prod(xyz ** np.array(e), axis=1))
        assert got == pytest.approx(_exact_mean(kind, e), abs=1e-10), e
    if "open" not in shape.name:  # open Newton-Cotes weights are negative by nature
        assert np.all(weights > 0)


@pytest.mark.parametrize("make, kind", BSPLINES, ids=lambda v: v if isinstance(v, str) else "")
def test_bsplines_partition_unity_and_reproduce_linears(make, kind):
    shape = make()
    rng = np.random.default_rng(3)
    xyz = _random_points(kind, 20, rng)
    nodes, weights = _node_tables(shape)
    values, _ = _evaluate(shape, kind, _to_coords(kind, xyz))
    np.testing.assert_allclose(values[:, :, 0].sum(axis=1), 1.0, atol=1e-12)
    # sum_n B_n(x) x_n = x: the nodes are the Greville points
    np.testing.assert_allclose(values[:, :, 0] @ nodes, _to_coords(kind, xyz), atol=1e-12)
    assert np.all(values >= -1e-15)
    _fd_check(shape, kind, rng)
    assert weights.sum() == pytest.approx(1.0)


def _side_frames(kind, shape, nodes):
    """Per node: its side's unit tangent (edge nodes) or unit normal (side nodes), and side measure."""
    d = DIM[kind]
    xyz = nodes if kind != "tri" else np.stack([nodes[:, 1], nodes[:, 2], np.zeros(len(nodes))], axis=1)
    frames = []
    for p in xyz[:, :d]:
        if kind in ("square", "cube"):
            on = [a for a in range(d) if abs(p[a]) < 1e-12 or abs(p[a] - 1) < 1e-12]
            if shape.value == shape.Value.CovariantVector:  # edge: the free axis
                axis = next(a for a in range(d) if a not in on)
            else:
                axis = on[0]
            frames.append(np.eye(d)[axis])
        elif shape.value == shape.Value.ContravariantVector:  # side normal: outward-agnostic
            if abs(p.sum() - 1.0) < 1e-9 and np.all(p > 1e-9):
                frames.append(np.ones(d))  # the slanted side, normal (1, .., 1) (unnormalised: |side| factor)
            else:
                frames.append(np.eye(d)[int(np.argmin(np.abs(p)))])
        else:
            frames.append(None)
    return frames


@pytest.mark.parametrize("make, kind", VECTOR_SHAPES, ids=lambda v: v if isinstance(v, str) else "")
def test_vector_bases_have_unit_traces_on_their_own_side(make, kind):
    shape = make()
    nodes, _ = _node_tables(shape)
    values, grads = _evaluate(shape, kind, nodes)
    N = shape.NODES_PER_ELEMENT
    if kind in ("tri", "tet") and shape.value == shape.Value.CovariantVector:
        edges = S.simplex_shape_function.TRIANGLE_EDGES if kind == "tri" else S.simplex_shape_function.TETRAHEDRON_EDGES
        verts = np.vstack([np.zeros(DIM[kind]), np.eye(DIM[kind])])
        frames = [verts[b] - verts[a] for a, b in edges]  # Whitney forms: unit circulation along (a, b)
    else:
        frames = _side_frames(kind, shape, nodes)
    trace = np.array([[abs(np.dot(values[j, i], frames[j])) for j in range(N)] for i in range(N)])
    diag = np.diag(trace)
    assert np.all(diag > 0.5)
    np.testing.assert_allclose(trace - np.diag(diag), 0.0, atol=1e-12)
    _fd_check(shape, kind, np.random.default_rng(5))
    sym = 0.5 * (grads + np.swapaxes(grads, -1, -2))
    if kind in ("tri", "tet") and shape.value == shape.Value.CovariantVector:
        np.testing.assert_allclose(sym, 0.0, atol=1e-12)  # Whitney forms are pure rotations


def test_factory_picks_families_and_names_bad_input():
    assert isinstance(S.make_element_shape_function(Element.SQUARE, 2), S.SquareBipolynomialShapeFunctions)
    assert isinstance(S.make_element_shape_function(Element.TRIANGLE, 2), S.TrianglePolynomialShapeFunctions)
    assert isinstance(S.make_element_shape_function(Element.CUBE, 0), S.ConstantShapeFunction)
    s = S.make_element_shape_function(Element.SQUARE, 2, ElementBasis.SERENDIPITY, family=LGL)
    assert isinstance(s, S.SquareSerendipityShapeFunctions) and s.NODES_PER_ELEMENT == 8
    assert S.make_element_shape_function(Element.TETRAHEDRON, 1, ElementBasis.RAVIART_THOMAS).NODES_PER_ELEMENT == 4
    assert S.make_element_shape_function(Element.SQUARE, 2, family=GL).name == "Square_Q2_GL"
    with pytest.raises(ValueError, match="element_basis BSPLINE"):
        S.make_element_shape_function(Element.TRIANGLE, 2, ElementBasis.BSPLINE)
    with pytest.raises(ValueError, match="degree"):
        S.make_element_shape_function(Element.SQUARE, -1)
    with pytest.raises(TypeError, match="scalar_type"):
        S.TrianglePolynomialShapeFunctions(2, scalar_type=wp.int32)


def test_node_types_count_each_kind_once():
    q3 = S.CubeTripolynomialShapeFunctions(3, LGL)
    ntt = q3.node_type_and_type_index

    @wp.kernel
    def node_types(out: wp.array(dtype=wp.vec3i)):
        n = wp.tid()
        t, inst, idx = ntt(n)
        out[n] = wp.vec3i(t, inst, idx)

    out = wp.zeros(q3.NODES_PER_ELEMENT, dtype=wp.vec3i)
    wp.launch(node_types, dim=q3.NODES_PER_ELEMENT, inputs=[out])
    types = [tuple(r) for r in out.numpy()]
    assert len(set(types)) == 64  # one node per (type, instance, index)
    counts = {t: sum(1 for r in types if r[0] == t) for t in range(4)}
    assert counts == {0: 8, 1: 12 * 2, 2: 6 * 4, 3: 8}
