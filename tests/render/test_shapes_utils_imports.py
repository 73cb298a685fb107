"""The renderer's shape tessellations (closed, outward, the analytic volume and surface), the
warp.render.utils helpers (tab10 against matplotlib's palette, Bourke's ramp at its defining
points, solidify_mesh's volume), and the import rules: `import warp_nb.render` loads neither
pyvista nor usd-core, and a missing one says what to pip install."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.render
from warp_nb.render import shapes


def signed_volume(points, tris):
    """Divergence theorem: positive for a closed, outward-facing surface."""
    p = np.asarray(points, np.float64)[np.asarray(tris)]
    return np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0


def is_closed(tris):
    """Every directed edge appears once and its reverse once (a closed, consistently oriented surface)."""
    t = np.asarray(tris)
    edges = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    directed = set(map(tuple, edges))
    return len(directed) == len(edges) and all((b, a) in directed for a, b in directed)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_closed_shapes_volume_and_axis(axis):
    r, h = 0.5, 0.8
    n = 256  # a fine tessellation approaches the analytic volume from below
    cases = {
        "capsule": (shapes.capsule(r, h, axis, segments=n, rings=64), np.pi * r * r * 2 * h + 4 / 3 * np.pi * r ** 3,
                    h + r),
        "cylinder": (shapes.cylinder(r, h, axis, segments=n), np.pi * r * r * 2 * h, h),
        "cone": (shapes.cone(r, h, axis, segments=n), np.pi * r * r * 2 * h / 3, h),
        "arrow": (shapes.arrow(0.1, 1.0, 0.2, 0.3, axis, segments=n),
                  np.pi * 0.01 * 1.0 + np.pi * 0.04 * 0.3 / 3, None),
    }
    for name, ((pts, tris), volume, half_length) in cases.items():
        assert is_closed(tris), name
        np.testing.assert_allclose(signed_volume(pts, tris), volume, rtol=2e-3, err_msg=name)
        if half_length is not None:  # the long axis is `axis`, centred
            np.testing.assert_allclose(pts[:, axis].min(), -half_length, atol=1e-6, err_msg=name)
            np.testing.assert_allclose(pts[:, axis].max(), half_length, atol=1e-6, err_msg=name)
            others = [k for k in range(3) if k != axis]
            np.testing.assert_allclose(np.abs(pts[:, others]).max(), r, atol=1e-6, err_msg=name)


def test_sphere_and_box():
    pts, tris = shapes.sphere(2.0, segments=256, rings=128)
    assert is_closed(tris)
    np.testing.assert_allclose(np.linalg.norm(pts, axis=1), 2.0, rtol=1e-6)
    np.testing.assert_allclose(signed_volume(pts, tris), 4 / 3 * np.pi * 8, rtol=2e-3)
    pts, tris = shapes.box((0.1, 0.2, 0.3))
    np.testing.assert_allclose(signed_volume(pts, tris), 0.2 * 0.4 * 0.6, rtol=1e-6)
    np.testing.assert_allclose(np.abs(pts).max(0), [0.1, 0.2, 0.3], rtol=1e-6)


def test_plane_faces_up():
    pts, tris, cells = shapes.plane(2.0, 3.0, 4, 6)
    p = pts.astype(np.float64)[tris]
    normals = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    assert (normals[:, 1] > 0).all() and np.allclose(normals[:, [0, 2]], 0)
    np.testing.assert_allclose(0.5 * normals[:, 1].sum(), 4.0 * 6.0)  # area of [-2, 2] x [-3, 3]
    assert cells.max(0).tolist() == [3, 5]


def test_tab10_is_matplotlibs_palette():
    matplotlib = pytest.importorskip("matplotlib")
    cmap = matplotlib.colormaps["tab10"]
    for i in range(12):
        np.testing.assert_allclose(wp.render.tab10_color_map(i), cmap(i % 10)[:3], atol=1e-6)


def test_bourke_color_map_defining_points():
    """Bourke's ramp: blue at the low end, cyan, green, yellow at the quarter points, red at the high end."""
    low, high = -1.0, 3.0
    expected = {-1.0: (0, 0, 1), 0.0: (0, 1, 1), 1.0: (0, 1, 0), 2.0: (1, 1, 0), 3.0: (1, 0, 0),
                -5.0: (0, 0, 1), 9.0: (1, 0, 0), 0.5: (0, 1, 0.5)}
    for v, rgb in expected.items():
        np.testing.assert_allclose(wp.render.utils.bourke_color_map(low, high, v), rgb, atol=1e-12, err_msg=str(v))


def test_solidify_mesh_volume():
    rng = np.random.default_rng(3)
    verts = rng.random((30, 3))
    faces = rng.choice(30, size=(20, 3))
    faces = faces[[len(set(f)) == 3 for f in faces]]
    t = 0.01
    out_faces, out_verts = wp.render.solidify_mesh(faces, verts, t)
    assert out_faces.shape == (8 * len(faces), 3) and out_verts.shape == (6 * len(faces), 3)
    areas = 0.5 * np.linalg.norm(np.cross(verts[faces[:, 1]] - verts[faces[:, 0]],
                                          verts[faces[:, 2]] - verts[faces[:, 0]]), axis=1)
    for k in range(len(faces)):  # each prism: area x 2 t, outward
        prism = out_faces[8 * k:8 * k + 8]
        assert is_closed(prism)
        np.testing.assert_allclose(signed_volume(out_verts, prism), areas[k] * 2 * t, rtol=1e-4)


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          check=False)


def test_import_loads_neither_pyvista_nor_pxr():
    out = _run("""
        import sys
        import warp_nb as wp
        import warp_nb.render
        assert wp.render.UsdRenderer and wp.render.OpenGLRenderer and wp.render.utils.bourke_color_map
        print(sorted(m for m in ("pyvista", "vtk", "pxr", "ipywidgets") if m in sys.modules))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("block, make, package", [
    ("pxr", "wp.render.UsdRenderer('x.usda')", "usd-core"),
    ("pyvista", "wp.render.OpenGLRenderer()", "pyvista"),
])
def test_missing_package_says_what_to_install(block, make, package):
    out = _run(f"""
        import sys
        sys.modules[{block!r}] = None  # as if it were not installed
        import warp_nb as wp
        import warp_nb.render
        try:
            {make}
        except ImportError as e:
            print(e)
    """)
    assert out.returncode == 0, out.stderr
    assert f"pip install {package}" in out.stdout and "warp_nb[" in out.stdout, out.stdout


def test_render_package_is_installed_with_the_wheel():
    tomllib = pytest.importorskip("tomllib")
    from pathlib import Path
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "warp_nb.render" in _packages_setup_finds()
    assert set(pyproject["project"]["optional-dependencies"]["render"]) == {"usd-core", "pyvista"}


def _packages_setup_finds() -> list:
    """The packages setup.py gives setuptools (it finds them; none is listed by hand)."""
    import runpy
    from pathlib import Path
    from unittest import mock
    captured = {}
    with mock.patch("setuptools.setup", lambda **kw: captured.update(kw)):
        runpy.run_path(str(Path(__file__).resolve().parents[2] / "setup.py"))
    return captured["packages"]
