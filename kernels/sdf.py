"""Signed distances to a wp.Mesh: at arbitrary points, or on a regular grid (ready for
wp.geometry.IsoSurfaceMarchingCubes or wp.Volume.load_from_numpy).

    d = sample_sdf(mesh, points)                       # numpy (n,) float32, negative inside
    grid = sdf_grid(mesh, lower, upper, (64, 64, 64))  # numpy (64, 64, 64) float32

The sign comes from wp.mesh_query_point_sign_normal (watertight meshes) or, with
sign="winding", from the winding number (meshes built with support_winding_number=True).
Points farther than max_dist from the surface get +-max_dist."""

import numpy as np

import warp_nb as wp


@wp.kernel
def sdf_kernel(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), max_dist: float, winding: int,
               out: wp.array(dtype=float)):
    i = wp.tid()
    p = points[i]
    q = wp.mesh_query_point_sign_normal(mesh, p, max_dist)
    if winding == 1:
        q = wp.mesh_query_point_sign_winding_number(mesh, p, max_dist, 2.0, 0.5)
    d = max_dist
    if q.result:
        d = wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v)) * q.sign
    out[i] = d


def sample_sdf(mesh, points, max_dist: float = 1.0e6, sign: str = "normal") -> np.ndarray:
    """Signed distance from each point (an (n, 3) array or wp.array of wp.vec3) to the mesh."""
    if sign not in ("normal", "winding"):
        raise ValueError("sign must be 'normal' or 'winding'")
    pts = points if isinstance(points, wp.array) else wp.array(np.asarray(points, np.float32).reshape(-1, 3),
                                                              dtype=wp.vec3)
    out = wp.zeros(pts.shape[0], dtype=float)
    wp.launch(sdf_kernel, pts.shape[0], inputs=[mesh.id, pts, float(max_dist), int(sign == "winding"), out])
    return out.numpy().copy()


def grid_points(lower, upper, shape) -> np.ndarray:
    """The (nx * ny * nz, 3) sample positions of a grid spanning [lower, upper] (corners included)."""
    axes = [np.linspace(lo, hi, n, dtype=np.float64) for lo, hi, n in zip(lower, upper, shape)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3).astype(np.float32)


def sdf_grid(mesh, lower, upper, shape, max_dist: float = 1.0e6, sign: str = "normal") -> np.ndarray:
    """Signed distances on a grid of `shape` samples spanning [lower, upper]."""
    return sample_sdf(mesh, grid_points(lower, upper, shape), max_dist, sign).reshape(tuple(shape))
