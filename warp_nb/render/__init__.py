"""warp_nb.render: Warp's `warp.render` for warp_nb programs.

    import warp_nb as wp
    import warp_nb.render          # or, with `warp` resolved to warp_nb, `import warp.render`

    usd = wp.render.UsdRenderer("sim.usd", fps=60)      # writes USD (needs usd-core: warp_nb[usd])
    gl = wp.render.OpenGLRenderer(screen_width=640)     # draws off screen with pyvista (warp_nb[viz])

Both take Warp's constructor arguments and begin_frame / render_* / end_frame calls. Importing
this package loads neither usd-core nor pyvista: each is imported when a renderer is made, and
a missing one raises an ImportError that says what to pip install."""

from . import utils
from .opengl import OpenGLRenderer
from .usd import UsdRenderer
from .utils import bourke_color_map, solidify_mesh, tab10_color_map

__all__ = ["OpenGLRenderer", "UsdRenderer", "bourke_color_map", "solidify_mesh", "tab10_color_map", "utils"]
