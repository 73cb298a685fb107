"""What both renderers share: reading the many forms Warp programs pass (wp.array, numpy arrays,
lists, wp.vec3/wp.quat values) into numpy, colours, rigid transforms as 4x4 matrices, the up axis,
and the optional imports (usd-core, pyvista) with the message that says what to install.

Conventions (Warp's): quaternions are (x, y, z, w); `up_axis` of a renderer is "X", "Y" or "Z";
the `up_axis` of a capsule, cylinder, cone or arrow is an int 0, 1, 2 (its long axis in its own
frame); box `extents` and plane `width`/`length` are half sizes."""

from __future__ import annotations

import numpy as np


# --- optional packages: imported only when a renderer is made --------------------------------
def _optional(name: str, feature: str, package: str, extra: str):
    from ..geometry._util import optional_module  # the project's one helper for optional imports
    return optional_module(name, feature, package, extra)


def import_pxr():
    """The pxr package with Usd, UsdGeom, Gf, Sdf, Vt, Tf loaded (usd-core, the [usd] extra)."""
    for sub in ("pxr.Gf", "pxr.Sdf", "pxr.Tf", "pxr.Usd", "pxr.UsdGeom", "pxr.Vt"):
        _optional(sub, "warp.render.UsdRenderer", "usd-core", "usd")
    import pxr
    return pxr


def import_pyvista():
    """pyvista set up for off-screen rendering through Mesa's EGL (no display needed)."""
    import os
    os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    pv = _optional("pyvista", "warp.render.OpenGLRenderer (drawn with pyvista off screen)", "pyvista", "viz")
    pv.OFF_SCREEN = True
    return pv


# --- array-like inputs ---------------------------------------------------------------------------
def to_numpy(value) -> np.ndarray:
    """A numpy array of a wp.array (copied to the host), numpy array, list or wp vector/quat."""
    if value is None:
        raise TypeError("expected an array, got None")
    if hasattr(value, "numpy") and callable(value.numpy):
        return np.asarray(value.numpy())
    return np.asarray(value)


def as_points(value, what: str = "points") -> np.ndarray:
    """(n, 3) float32 positions from a wp.array of vec3 (or float (n, 3)), numpy array or list."""
    data = np.asarray(to_numpy(value), dtype=np.float32)
    if data.size == 0:
        return np.zeros((0, 3), np.float32)
    if data.ndim == 1 and data.size % 3 == 0:
        pass  # a flat x, y, z, x, y, z ... list
    elif data.shape[-1] != 3:
        raise ValueError(f"{what} must hold 3-D positions (shape (n, 3)), got shape {data.shape}")
    return np.ascontiguousarray(data.reshape(-1, 3))


def as_indices(value, what: str = "indices") -> np.ndarray:
    """A flat int32 array of vertex indices (from (m, 3), (m, 2) or flat input)."""
    data = np.asarray(to_numpy(value))
    if data.size and not np.issubdtype(data.dtype, np.integer):
        if np.all(np.mod(data, 1) == 0):
            data = data.astype(np.int64)
        else:
            raise TypeError(f"{what} must hold integers, got {data.dtype}")
    return np.ascontiguousarray(data.reshape(-1), dtype=np.int32)


#: mesh indices are int32, as Warp's: a mesh can address at most this many points
MAX_MESH_POINTS = 1 << 31


def as_mesh_indices(value, point_count: int) -> np.ndarray:
    """The flat int32 triangle indices of a mesh of `point_count` points: each index must lie in
    [0, min(point_count, 2**31)) (ValueError naming the first index outside, checked before the
    conversion to int32, so that 2**32 is not read as 0), and their count be a multiple of 3."""
    data = np.asarray(to_numpy(value))
    flat = data.reshape(-1)
    if flat.size % 3:
        raise ValueError(f"render_mesh: {flat.size} indices is not a whole number of triangles")
    limit = min(int(point_count), MAX_MESH_POINTS)
    if flat.size and flat.dtype != object and not np.issubdtype(flat.dtype, np.integer):
        if not np.all(np.mod(flat, 1) == 0):
            raise TypeError(f"render_mesh: indices must hold integers, got {flat.dtype}")
        flat = flat.astype(np.int64)
    if flat.dtype == object:  # Python ints too wide for int64
        outside = [i for i, v in enumerate(flat.tolist()) if not (isinstance(v, int) and 0 <= v < limit)]
        bad = outside[0] if outside else None
    else:
        outside = np.flatnonzero((flat < 0) | (flat >= limit))
        bad = int(outside[0]) if outside.size else None
    if bad is not None:
        raise ValueError(f"render_mesh: index {flat[bad]} at position {bad} is outside the valid range [0, {limit}) "
                         f"(the mesh has {point_count} points; indices are int32)")
    return np.ascontiguousarray(flat, dtype=np.int32)


def as_vec3(value, what: str = "a vector") -> np.ndarray:
    v = np.asarray(to_numpy(value), dtype=np.float64).reshape(-1)
    if v.size != 3:
        raise ValueError(f"{what} must have 3 components, got {v.size}")
    return v


def as_quat(value, what: str = "rot") -> np.ndarray:
    """A unit quaternion (x, y, z, w) as float64; None means the identity, and so does the zero
    quaternion: Warp's renderers pass (0, 0, 0, 0) on unchanged, and both USD's orient op and the
    rotation matrix formula read it as no rotation."""
    if value is None:
        return np.array([0.0, 0.0, 0.0, 1.0])
    q = np.asarray(to_numpy(value), dtype=np.float64).reshape(-1)
    if q.size != 4:
        raise ValueError(f"{what} must be a quaternion (x, y, z, w), got {q.size} components")
    n = np.linalg.norm(q)
    if not np.isfinite(n):
        raise ValueError(f"{what} must be a finite quaternion, got {q.tolist()}")
    return np.array([0.0, 0.0, 0.0, 1.0]) if n == 0.0 else q / n


def as_scale(value) -> np.ndarray:
    if value is None:
        return np.ones(3)
    s = np.asarray(to_numpy(value), dtype=np.float64).reshape(-1)
    return np.full(3, float(s[0])) if s.size == 1 else s.reshape(3)


def as_colors(value, n: int | None = None, what: str = "colors"):
    """None, one RGB colour (3,) or per-element colours (n, 3), floats in [0, 1] (uint8 input is
    scaled; an alpha channel is dropped). A flat array of 3 or 4 numbers is one colour; another
    flat array is one grey level per element."""
    if value is None:
        return None
    c = np.asarray(to_numpy(value))
    if c.dtype == np.uint8:
        c = c.astype(np.float64) / 255.0
    c = np.asarray(c, dtype=np.float64)
    if c.size == 0:  # colours for no elements (an empty point set)
        return None
    if c.ndim == 0:
        return np.full(3, float(c))
    if c.ndim == 1 and c.size in (3, 4):
        return c[:3].copy()
    if c.ndim == 1:
        c = np.repeat(c[:, None], 3, axis=1)
    c = c.reshape(-1, c.shape[-1])
    if c.shape[1] not in (3, 4):
        raise ValueError(f"{what} must be RGB triples, got shape {c.shape}")
    c = c[:, :3]
    if n is not None and len(c) != n:
        raise ValueError(f"{what}: {len(c)} colours for {n} elements")
    return np.ascontiguousarray(c)


def axis_index(axis) -> int:
    """0, 1, 2 from an int or a letter X/Y/Z."""
    if isinstance(axis, str):
        key = axis.strip().upper()
        if key not in ("X", "Y", "Z"):
            raise ValueError(f"up_axis must be 'X', 'Y' or 'Z', got {axis!r}")
        return "XYZ".index(key)
    a = int(axis)
    if a not in (0, 1, 2):
        raise ValueError(f"up_axis must be 0, 1 or 2, got {axis!r}")
    return a


# --- transforms ----------------------------------------------------------------------------------
def quat_to_matrix(q) -> np.ndarray:
    """3x3 rotation matrix (acting on column vectors) of a unit quaternion (x, y, z, w)."""
    x, y, z, w = as_quat(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def pose_matrix(pos=(0.0, 0.0, 0.0), rot=None, scale=None) -> np.ndarray:
    """4x4 matrix (column vectors) of translate(pos) * rotate(rot) * scale(scale)."""
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(rot) * as_scale(scale)[None, :]
    m[:3, 3] = as_vec3(pos, "pos")
    return m


def axis_rotation(axis: int) -> np.ndarray:
    """3x3 rotation taking +Y (the long axis of our unit shapes) to +axis (0=X, 1=Y, 2=Z)."""
    if axis == 1:
        return np.eye(3)
    if axis == 0:  # -90 degrees about Z: Y -> X
        return np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    return np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # +90 about X: Y -> Z


def up_to_y(up_axis: int) -> np.ndarray:
    """3x3 rotation that takes the scene's up axis to +Y (the viewer's up), a proper rotation."""
    return axis_rotation(up_axis).T


def valid_name(name: str) -> str:
    """A USD-safe prim name for a renderer name (letters, digits, underscores; no leading digit)."""
    out = "".join(ch if (ch.isalnum() and ch.isascii()) or ch == "_" else "_" for ch in str(name))
    if not out or out[0].isdigit():
        out = "_" + out
    return out


def quat_y_to(n) -> np.ndarray:
    """A quaternion (x, y, z, w) rotating +Y onto the direction n."""
    n = np.asarray(n, np.float64).reshape(3)
    n = n / np.linalg.norm(n)
    c = float(n[1])
    if c < -1.0 + 1e-9:
        return np.array([1.0, 0.0, 0.0, 0.0])  # half turn about X
    axis = np.cross([0.0, 1.0, 0.0], n)
    q = np.array([axis[0], axis[1], axis[2], 1.0 + c])
    return q / np.linalg.norm(q)
