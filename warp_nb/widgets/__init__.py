"""warp_nb.widgets: live notebook widgets (ipywidgets), each testable from Python.

    DevicePicker()                    the default device, as a dropdown
    TimingPanel()                     kernel launches and their times, live
    GradientInspector(tape, check=f)  values and gradients, NaN/Inf, a finite-difference check
    GeometryView(points=x, step=f)    points, meshes and iso-surfaces, stepped and played

Importing this package needs ipywidgets (`pip install warp_nb[lab]`); GeometryView also uses
pyvista (matplotlib when pyvista cannot render)."""

try:
    import ipywidgets  # noqa: F401
except ModuleNotFoundError as e:
    raise ModuleNotFoundError(
        "warp_nb.widgets needs ipywidgets (and a Jupyter front end to show them): install them with "
        "`pip install warp_nb[lab]` or `pip install ipywidgets`", name=e.name) from None

from ._shared import ensure_headless_vtk  # noqa: E402

ensure_headless_vtk()  # before anything imports pyvista: off-screen EGL, no X warnings in outputs

from .device_picker import DevicePicker  # noqa: E402
from .geometry_view import GeometryView  # noqa: E402
from .gradient_inspector import CheckResult, GradientInspector  # noqa: E402
from .timing_panel import TimingPanel  # noqa: E402

__all__ = ["DevicePicker", "TimingPanel", "GradientInspector", "CheckResult", "GeometryView"]
