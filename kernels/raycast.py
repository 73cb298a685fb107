"""Ray-cast images of a wp.Mesh with a pinhole camera: depth, face index and a shaded image.

    depth, face, shade = render(mesh, eye=(0, 0, 3), target=(0, 0, 0), width=320, height=240)

depth is the distance along each pixel's ray (inf where nothing is hit), face the hit face (-1
for none), shade a Lambert image in [0, 1] lit from the camera (two-sided)."""

import math

import numpy as np

import warp_nb as wp


@wp.kernel
def raycast_kernel(mesh: wp.uint64, eye: wp.vec3, forward: wp.vec3, right: wp.vec3, up: wp.vec3, tan_half: float,
                   width: int, height: int, max_t: float, depth: wp.array2d(dtype=float),
                   face: wp.array2d(dtype=int), shade: wp.array2d(dtype=float)):
    y, x = wp.tid()
    aspect = float(width) / float(height)
    sx = (2.0 * (float(x) + 0.5) / float(width) - 1.0) * tan_half * aspect
    sy = (1.0 - 2.0 * (float(y) + 0.5) / float(height)) * tan_half
    d = wp.normalize(forward + sx * right + sy * up)
    q = wp.mesh_query_ray(mesh, eye, d, max_t)
    if q.result:
        depth[y, x] = q.t
        face[y, x] = q.face
        shade[y, x] = wp.abs(wp.dot(q.normal, d))
    else:
        depth[y, x] = wp.inf
        face[y, x] = -1
        shade[y, x] = 0.0


def camera_basis(eye, target, up=(0.0, 1.0, 0.0)):
    """(forward, right, up) unit vectors of a camera at eye looking at target."""
    f = np.asarray(target, np.float64) - np.asarray(eye, np.float64)
    f /= np.linalg.norm(f)
    r = np.cross(f, np.asarray(up, np.float64))
    if np.linalg.norm(r) < 1e-9:
        r = np.cross(f, [1.0, 0.0, 0.0])
    r /= np.linalg.norm(r)
    return f, r, np.cross(r, f)


def render(mesh, eye, target, width: int = 320, height: int = 240, fov_degrees: float = 45.0, up=(0.0, 1.0, 0.0),
           max_t: float = 1.0e6):
    """(depth, face, shade) numpy images of shape (height, width)."""
    f, r, u = camera_basis(eye, target, up)
    depth = wp.zeros((height, width), dtype=float)
    face = wp.zeros((height, width), dtype=int)
    shade = wp.zeros((height, width), dtype=float)
    wp.launch(raycast_kernel, (height, width),
              inputs=[mesh.id, wp.vec3(*eye), wp.vec3(*f), wp.vec3(*r), wp.vec3(*u),
                      math.tan(math.radians(fov_degrees) / 2), width, height, float(max_t), depth, face, shade])
    return depth.numpy().copy(), face.numpy().copy(), shade.numpy().copy()


def pixel_rays(eye, target, width, height, fov_degrees=45.0, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """The unit ray direction of every pixel (height, width, 3), as the kernel computes it."""
    f, r, u = camera_basis(eye, target, up)
    t = math.tan(math.radians(fov_degrees) / 2)
    xs = (2 * (np.arange(width) + 0.5) / width - 1) * t * width / height
    ys = (1 - 2 * (np.arange(height) + 0.5) / height) * t
    d = f[None, None] + xs[None, :, None] * r[None, None] + ys[:, None, None] * u[None, None]
    return d / np.linalg.norm(d, axis=-1, keepdims=True)
