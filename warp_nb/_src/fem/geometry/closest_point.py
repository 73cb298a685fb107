"""`warp._src.fem.geometry.closest_point`: the simplex closest-point queries Warp's tests call."""

from ....fem.geometry.closest_point import project_on_tet_at_origin, project_on_tri_at_origin  # noqa: F401
