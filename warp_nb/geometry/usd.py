"""USD (Pixar's usd-core, the `[usd]` extra): load a mesh from a .usd/.usda/.usdc file into a
wp.Mesh, and write a simulation's time-sampled points or meshes to a file that other USD
tools (usdview, Omniverse, Blender, Houdini) open.

    mesh = load_mesh("bunny.usda")                     # the first UsdGeom.Mesh, in world space
    with UsdWriter("sim.usda", fps=60) as out:
        for frame in range(100):
            ...
            out.add_points("/sim/particles", positions, frame, radius=0.01)
            out.add_mesh("/sim/cloth", cloth_points, cloth_indices, frame)
"""

from __future__ import annotations

import importlib

import numpy as np

from ._util import optional_module


def _pxr():
    """The pxr package, with the modules used here loaded (pxr.Usd and friends are submodules)."""
    for name in ("pxr.Gf", "pxr.Sdf", "pxr.Usd", "pxr.UsdGeom", "pxr.Vt"):
        optional_module(name, "USD support", "usd-core", "usd")
    return importlib.import_module("pxr")


def _numpy(points) -> np.ndarray:
    from ..arrays.array import array
    data = points.numpy() if isinstance(points, array) else np.asarray(points)
    return np.ascontiguousarray(data, np.float32).reshape(-1, 3)


def triangulate(counts: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Polygon faces (vertex counts, flat vertex indices) -> triangles by fans, flat int32."""
    counts = np.asarray(counts, np.int64)
    indices = np.asarray(indices, np.int64)
    if (counts < 3).any():
        raise ValueError(f"a USD mesh face has fewer than 3 vertices (face {int(np.argmax(counts < 3))})")
    if counts.sum() != len(indices):
        raise ValueError(f"USD faceVertexCounts add up to {int(counts.sum())}, but faceVertexIndices has "
                         f"{len(indices)} entries")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    n_tri = counts - 2
    face = np.repeat(np.arange(len(counts)), n_tri)
    k = np.arange(n_tri.sum()) - np.repeat(np.cumsum(n_tri) - n_tri, n_tri)
    s = starts[face]
    tris = np.stack([indices[s], indices[s + k + 1], indices[s + k + 2]], 1)
    return tris.reshape(-1).astype(np.int32)


def read_mesh(path: str, prim_path: str | None = None, world_space: bool = True, time=None):
    """(points (n, 3) float32, triangle indices int32, prim path) of a UsdGeom.Mesh: prim_path, or
    the first mesh of the stage."""
    pxr = _pxr()
    Usd, UsdGeom = pxr.Usd, pxr.UsdGeom
    stage = Usd.Stage.Open(str(path))
    if stage is None:
        raise ValueError(f"cannot open the USD file {path}")
    if prim_path is not None:
        prim = stage.GetPrimAtPath(prim_path)
        if not prim or not prim.IsA(UsdGeom.Mesh):
            raise ValueError(f"{path} has no UsdGeom.Mesh at {prim_path}")
    else:
        prim = next((p for p in stage.Traverse() if p.IsA(UsdGeom.Mesh)), None)
        if prim is None:
            raise ValueError(f"{path} holds no UsdGeom.Mesh")
    mesh = UsdGeom.Mesh(prim)
    t = Usd.TimeCode.Default() if time is None else Usd.TimeCode(time)
    pts = np.asarray(mesh.GetPointsAttr().Get(t), np.float64).reshape(-1, 3)
    counts = np.asarray(mesh.GetFaceVertexCountsAttr().Get(t), np.int64)
    idx = np.asarray(mesh.GetFaceVertexIndicesAttr().Get(t), np.int64)
    if len(pts) == 0 or len(counts) == 0:
        raise ValueError(f"the USD mesh {prim.GetPath()} is empty")
    tris = triangulate(counts, idx)
    if world_space:
        m = np.asarray(UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(t), np.float64)
        pts = pts @ m[:3, :3] + m[3, :3]  # USD matrices act on row vectors
    if str(mesh.GetOrientationAttr().Get()) == "leftHanded":
        tris = tris.reshape(-1, 3)[:, [0, 2, 1]].reshape(-1)
    return pts.astype(np.float32), tris, str(prim.GetPath())


def load_mesh(path: str, prim_path: str | None = None, world_space: bool = True, time=None, **mesh_kwargs):
    """A wp.Mesh from a USD file (see read_mesh); extra keyword arguments go to wp.Mesh."""
    from .mesh import Mesh
    pts, tris, _ = read_mesh(path, prim_path, world_space, time)
    return Mesh(pts, tris, **mesh_kwargs)


class UsdWriter:
    """Writes time-sampled UsdGeom.Points and UsdGeom.Mesh prims; save() (or leaving the `with`
    block) writes the file, with start/end time codes and the frame rate set."""

    def __init__(self, path: str, fps: float = 60.0, up_axis: str = "Y", meters_per_unit: float = 1.0):
        pxr = _pxr()
        self._pxr = pxr
        self.path = str(path)
        self.stage = pxr.Usd.Stage.CreateNew(self.path)
        self.stage.SetTimeCodesPerSecond(float(fps))
        self.stage.SetFramesPerSecond(float(fps))
        pxr.UsdGeom.SetStageUpAxis(self.stage, pxr.UsdGeom.Tokens.y if up_axis.upper() == "Y" else pxr.UsdGeom.Tokens.z)
        pxr.UsdGeom.SetStageMetersPerUnit(self.stage, float(meters_per_unit))
        self.start, self.end = None, None

    def _time(self, time):
        t = float(time)
        self.start = t if self.start is None else min(self.start, t)
        self.end = t if self.end is None else max(self.end, t)
        return self._pxr.Usd.TimeCode(t)

    def _ensure_parents(self, prim_path: str) -> None:
        parts = [p for p in prim_path.split("/") if p][:-1]
        for k in range(len(parts)):
            path = "/" + "/".join(parts[:k + 1])
            if not self.stage.GetPrimAtPath(path):
                self._pxr.UsdGeom.Xform.Define(self.stage, path)

    def add_points(self, prim_path: str, points, time, radius=0.01) -> None:
        """Particle positions (n, 3) at `time` (a frame number), with a radius or per-point radii."""
        Vt, UsdGeom = self._pxr.Vt, self._pxr.UsdGeom
        self._ensure_parents(prim_path)
        geom = UsdGeom.Points.Define(self.stage, prim_path)
        p = _numpy(points)
        t = self._time(time)
        geom.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(p), t)
        widths = np.broadcast_to(np.asarray(radius, np.float32) * 2, (len(p),)).copy()
        geom.GetWidthsAttr().Set(Vt.FloatArray.FromNumpy(widths), t)
        lo, hi = (p.min(0), p.max(0)) if len(p) else (np.zeros(3), np.zeros(3))
        geom.GetExtentAttr().Set(Vt.Vec3fArray.FromNumpy(np.stack([lo, hi]).astype(np.float32)), t)

    def add_mesh(self, prim_path: str, points, indices, time) -> None:
        """A triangle mesh at `time`; the topology is written once (on first use), the points every time."""
        Vt, UsdGeom = self._pxr.Vt, self._pxr.UsdGeom
        self._ensure_parents(prim_path)
        existing = self.stage.GetPrimAtPath(prim_path)
        geom = UsdGeom.Mesh.Define(self.stage, prim_path)
        if not existing:
            from ..arrays.array import array
            idx = indices.numpy() if isinstance(indices, array) else np.asarray(indices)
            idx = np.ascontiguousarray(idx, np.int32).reshape(-1)
            geom.GetFaceVertexCountsAttr().Set(Vt.IntArray.FromNumpy(np.full(len(idx) // 3, 3, np.int32)))
            geom.GetFaceVertexIndicesAttr().Set(Vt.IntArray.FromNumpy(idx))
            geom.GetSubdivisionSchemeAttr().Set(UsdGeom.Tokens.none)
        p = _numpy(points)
        t = self._time(time)
        geom.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(p), t)
        geom.GetExtentAttr().Set(Vt.Vec3fArray.FromNumpy(np.stack([p.min(0), p.max(0)]).astype(np.float32)), t)

    def save(self) -> None:
        if self.start is not None:
            self.stage.SetStartTimeCode(self.start)
            self.stage.SetEndTimeCode(self.end)
        self.stage.GetRootLayer().Save()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.save()
        return False


def save_points(path: str, frames, fps: float = 60.0, prim_path: str = "/points", radius=0.01) -> None:
    """Write a sequence of (n, 3) point arrays as time samples 0, 1, 2, ... of one UsdGeom.Points."""
    with UsdWriter(path, fps) as out:
        for k, pts in enumerate(frames):
            out.add_points(prim_path, pts, k, radius)
