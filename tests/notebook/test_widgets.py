"""The widgets' state, read from Python: what the device picker sets, what the timing panel counts,
what the gradient inspector finds (NaN/Inf, the finite-difference check against an oracle), and
what the geometry view draws (a PNG that changes when the points move)."""

import io
import re

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.launch import launcher

pytest.importorskip("ipywidgets")
pytestmark = pytest.mark.needs_cxx

from warp_nb.widgets import DevicePicker, GeometryView, GradientInspector, TimingPanel  # noqa: E402


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def sum_into(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, y[wp.tid()])


@wp.kernel
def drift(p: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    p[i] = p[i] + wp.vec3(dt, 0.0, 0.0)


def test_device_picker_sets_the_default_device():
    picker = DevicePicker()
    assert picker.dropdown.options == tuple(d.alias for d in wp.get_devices())
    assert picker.value == wp.get_device().alias
    picker.value = "cpu"
    assert wp.get_device().alias == "cpu" and picker.properties["alias"] == "cpu"
    assert "threads" in picker.info.value
    with pytest.raises(wp.DeviceError):
        picker.value = "cuda:42"


def test_timing_panel_counts_launches_and_unhooks_when_stopped():
    x, y = wp.array(np.arange(16, dtype=np.float32)), wp.zeros(16)
    wp.launch(square, 16, inputs=[x, y])  # compiled before the panel opens
    panel = TimingPanel(refresh_seconds=0.0)
    for _ in range(5):
        wp.launch(square, 16, inputs=[x, y])
    row = next(r for r in panel.rows if r["kernel"] == "square")
    assert row["launches"] == 5 and 0 < row["min_s"] <= row["mean_s"] and row["last_s"] > 0
    assert row["compile_s"] is not None
    assert "square" in panel.table.value and "<table" in panel.table.value
    panel.stop()
    assert not launcher.listeners
    wp.launch(square, 16, inputs=[x, y])
    assert next(r for r in panel.rows if r["kernel"] == "square")["launches"] == 5


@wp.kernel
def slow_one_off(x: wp.array(dtype=float), rounds: int):
    i = wp.tid()
    v = x[i]
    for _ in range(rounds):
        v = wp.sin(v) + 1.0
    x[i] = v


def test_timing_panel_pins_the_kernels_a_lab_compares():
    """Lab 09 compares two kernels; a slower kernel launched once while the panel is open (its
    `gather_lanes`) must not set the bars' scale. Pinned kernels come first, in the pinned order,
    even before they launch, and the slowest pinned one has the full bar."""
    x, y = wp.array(np.arange(64, dtype=np.float32)), wp.zeros(64)
    wp.launch(square, 64, inputs=[x, y])
    wp.launch(slow_one_off, 64, inputs=[wp.zeros(64), 1])
    panel = TimingPanel(refresh_seconds=0.0, pin=[sum_into, square])
    html = panel.static_html()
    assert html.index("sum_into") < html.index("square")  # both shown, in the pinned order, before any launch
    wp.launch(slow_one_off, 64, inputs=[wp.zeros(64), 20000])  # the one-off, slower than both
    for _ in range(3):
        wp.launch(square, 64, inputs=[x, y])
        wp.launch(sum_into, 64, inputs=[y, wp.zeros(1)])
    rows = panel.rows
    assert [r["kernel"] for r in rows] == ["sum_into", "square", "slow_one_off"]
    assert rows[2]["mean_s"] > max(rows[0]["mean_s"], rows[1]["mean_s"])
    widths = [float(w) for w in re.findall(r"width:([0-9.]+)px;background:#4c78a8", panel.static_html())]
    slower_pinned = max(rows[0]["mean_s"], rows[1]["mean_s"])
    assert widths[[r["mean_s"] for r in rows[:2]].index(slower_pinned)] == 120  # the scale is the pinned kernels'
    assert widths[2] == 120  # the one-off, past the scale, is drawn full rather than rescaling the others
    panel.close()


def _tape_problem(values):
    x = wp.array(np.asarray(values, dtype=np.float32), requires_grad=True)
    y = wp.zeros(len(values), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)

    def forward():
        loss.zero_()
        wp.launch(square, len(values), inputs=[x, y])
        wp.launch(sum_into, len(values), inputs=[y, loss])
        return loss

    tape = wp.Tape()
    with tape:
        forward()
    tape.backward(loss)
    return tape, x, y, loss, forward


def test_gradient_inspector_shows_values_and_gradients_and_passes_the_check():
    values = np.linspace(-1, 1, 7)
    tape, x, y, loss, forward = _tape_problem(values)
    insp = GradientInspector({"x": x, "y": y}, check=forward)
    row = insp.rows[0]
    assert row["name"] == "x" and row["shape"] == (7,) and row["bad"] == 0
    np.testing.assert_allclose(row["grad"]["norm"], np.linalg.norm(2 * values), rtol=1e-5)  # d sum(x^2)/dx = 2x
    result = insp.run_check()
    assert result.passed and result.rel_error < 1e-2
    assert "PASSED" in insp.check_output.value
    np.testing.assert_allclose(x.numpy(), values, rtol=1e-6)  # the check restored the inputs
    # from the tape alone, and the per-kernel check through autograd.gradcheck
    assert any(r["grad"] is not None for r in GradientInspector(tape).rows)
    assert GradientInspector(tape, check=dict(kernel=square, dim=7, inputs=[x], outputs=[y])).run_check().passed


def test_the_check_shows_the_values_it_was_computed_from():
    """Run All: the inspector is displayed, the arrays change in later cells, then the check runs;
    the table next to PASSED must show the arrays as the check saw them, not as first displayed."""
    tape, x, y, loss, forward = _tape_problem([1.0, 2.0, 3.0])
    insp = GradientInspector({"x": x, "y": y}, check=forward)
    shown_before = insp.summary.value
    x.assign(np.array([4.0, 5.0, 6.0], dtype=np.float32))  # a later cell changes the data
    tape.zero()
    with wp.Tape() as tape2:
        forward()
    tape2.backward(loss)
    assert insp.run_check().passed
    assert insp.summary.value != shown_before
    np.testing.assert_allclose(insp.rows[0]["grad"]["norm"], np.linalg.norm(2 * np.array([4.0, 5.0, 6.0])), rtol=1e-5)


def test_gradient_inspector_flags_nan_and_inf_and_a_wrong_gradient():
    tape, x, y, loss, forward = _tape_problem([1.0, 2.0, 3.0])
    x.grad.numpy()[1] = np.nan
    y.numpy()[0] = np.inf
    insp = GradientInspector({"x": x, "y": y}, check=forward)
    assert [r["bad"] for r in insp.rows] == [1, 1]
    assert "wpnb-bad" in insp.summary.value and "wpnb-bad" in insp.details.value
    x.grad.numpy()[:] = [10.0, 0.0, 0.0]  # not the gradient of sum(x^2)
    assert not insp.run_check().passed


def test_gradient_inspector_check_leaves_out_intermediates_and_recomputes_cleared_gradients():
    tape, x, y, loss, forward = _tape_problem([0.5, -1.0, 2.0])
    y.grad.fill_(3.0)  # an intermediate with a gradient (as with retain_grad): forward() overwrites y
    insp = GradientInspector({"x": x, "y": y}, check=forward)
    result = insp.run_check()
    assert result.passed and "(x)" in result.text  # only x is perturbed and counted
    tape.zero()  # what a training loop does after each step: the gradients shown are now zero
    y.grad.zero_()
    result = insp.run_check()
    assert result.passed and "fresh backward pass" in result.text
    np.testing.assert_allclose(result.analytic, result.numeric, rtol=2e-2)
    assert not np.any(x.grad.numpy()) and not np.any(y.grad.numpy())  # the display's gradients untouched


def test_geometry_view_draws_points_and_redraws_them_in_place():
    rng = np.random.default_rng(1)
    p = wp.array(rng.random((64, 3)).astype(np.float32), dtype=wp.vec3)
    view = GeometryView(points=p, step=lambda: wp.launch(drift, 64, inputs=[p, 0.5]), window_size=(200, 150))
    first = view.image
    assert first.startswith(b"\x89PNG") and view.renderer in ("pyvista", "matplotlib")
    assert view.picture.value == first
    view.step(2)
    assert view.frame == 2 and view.image != first
    np.testing.assert_allclose(p.numpy()[:, 0], rng.__class__(np.random.PCG64(1)).random((64, 3))[:, 0] + 1.0,
                               rtol=1e-5)
    bundle = view._repr_mimebundle_()
    assert "image/png" in bundle and "application/vnd.jupyter.widget-view+json" in bundle
    from PIL import Image
    assert Image.open(io.BytesIO(view.image)).size == (200, 150)
    view.close()


def test_geometry_view_meshes_and_iso_surfaces():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.5]], dtype=np.float32)
    tris = np.array([0, 1, 2, 1, 3, 2], dtype=np.int32)
    assert GeometryView(mesh=(pts, tris)).image.startswith(b"\x89PNG")

    class MeshLike:  # what wp.Mesh offers: .points and .indices
        points = wp.array(pts, dtype=wp.vec3)
        indices = wp.array(tris, dtype=wp.int32)
    assert GeometryView(mesh=MeshLike()).image.startswith(b"\x89PNG")
    if hasattr(wp, "Mesh"):  # the real thing
        mesh = wp.Mesh(points=MeshLike.points, indices=MeshLike.indices)
        assert GeometryView(mesh=mesh).image.startswith(b"\x89PNG")
    xs = np.linspace(-1, 1, 16)
    field = sum(c ** 2 for c in np.meshgrid(xs, xs, xs, indexing="ij"))
    assert GeometryView(volume=field, iso=0.5).image.startswith(b"\x89PNG")


def test_geometry_view_draws_several_meshes_and_a_volume_in_world_space():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
    tris = np.array([0, 1, 2], dtype=np.int32)
    xs = np.linspace(-1, 1, 16)
    field = sum(c ** 2 for c in np.meshgrid(xs, xs, xs, indexing="ij")).astype(np.float32)
    volume = wp.Volume.load_from_numpy(field, min_world=(5.0, 0.0, 0.0), voxel_size=0.1)
    view = GeometryView(mesh=[(pts, tris), wp.Mesh(pts + 2.0, tris)], volume=volume, iso=0.5)
    assert [i.kind for i in view.items] == ["mesh", "mesh", "iso"]
    assert view.items[0].color != view.items[1].color
    assert view.image.startswith(b"\x89PNG")
    if view.renderer == "pyvista":  # the iso-surface sits where the volume is in the world
        surface = view.items[2].mesh
        lo, hi = np.asarray(surface.bounds).reshape(3, 2).T
        assert 5.0 <= lo[0] and hi[0] <= 5.0 + 1.5 and surface.n_points > 0
        center = (lo + hi) / 2
        np.testing.assert_allclose(center, [5.75, 0.75, 0.75], atol=0.05)  # radius sqrt(0.5) about index 7.5
    view.close()


def test_geometry_view_html_backend_is_interactive_and_follows_the_simulation():
    pytest.importorskip("trame_pyvista")
    pytest.importorskip("anywidget")
    p = wp.array(np.random.default_rng(2).random((32, 3)).astype(np.float32), dtype=wp.vec3)
    view = GeometryView(points=p, step=lambda: wp.launch(drift, 32, inputs=[p, 0.5]), backend="html")
    if view.renderer != "pyvista":
        pytest.skip("pyvista cannot render here, so there is no scene to export")
    assert view.children[0] is view.viewer and view.picture not in view.children
    first = view.viewer.value
    assert "<iframe" in first and len(first) > 10_000  # a self-contained vtk.js page
    view.step()
    assert view.children[0] is view.viewer and view.viewer.value != first  # same widget, new scene
    assert view.image.startswith(b"\x89PNG")  # the static copy for saved notebooks is kept up to date
    view.close()


def test_geometry_view_html_backend_says_what_to_install(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "trame_pyvista", None)  # as if not installed
    with pytest.raises(ImportError, match=r"warp_nb\[interactive\]"):
        GeometryView(points=np.zeros((3, 3), np.float32), backend="html")


@pytest.mark.parametrize("kwargs, message", [
    ({}, "needs something to draw"),
    ({"points": np.zeros((3, 3)), "backend": "webgl"}, "backend must be"),
    ({"volume": np.zeros((4, 4))}, "3-D array"),
    ({"mesh": np.zeros((3, 3))}, "(points, triangles)"),
])
def test_geometry_view_refuses_bad_input_clearly(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message.replace("(", r"\(").replace(")", r"\)")):
        GeometryView(**kwargs)
