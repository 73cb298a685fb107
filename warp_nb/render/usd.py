"""warp.render.UsdRenderer for warp_nb: a simulation written to a USD stage (Pixar's usd-core) as
time-sampled prims that usdview, Omniverse, Blender or Houdini play back.

    renderer = wp.render.UsdRenderer("sim.usd", fps=60)
    renderer.render_ground()                     # outside a frame: written once, not animated
    for frame in range(n):
        renderer.begin_frame(frame / 60.0)       # time in seconds -> time code time * fps
        renderer.render_points("particles", x, radius=0.05, colors=(0.8, 0.3, 0.2))
        renderer.render_mesh("cloth", verts, tris)
        renderer.end_frame()
    renderer.save()

Layout: everything sits under the Xform /root (the stage's default prim), scaled by `scaling`;
each name becomes the prim /root/<name> (characters USD does not allow become "_"). Points
are UsdGeom.Points (widths = 2 * radius), meshes UsdGeom.Mesh (topology written once, or every
frame with update_topology=True), lines UsdGeom.BasisCurves (linear), and the shapes USD's own
Sphere, Cube (scaled to the half extents), Capsule, Cylinder and Cone, each posed by translate,
orient (quaternion) and scale ops. Calls made inside begin_frame/end_frame write time samples
at time * fps; calls made before the first begin_frame write default (static) values. Shapes
made with is_template=True live under the abstract class prim /_templates, and
add_shape_instance() references them under a body registered with register_body()."""

from __future__ import annotations

import os

import numpy as np

from . import _common as C


class UsdRenderer:
    """Write a simulation to a USD stage (see the module docstring).

    Args:
        stage: a file path (a new stage is created there) or a pxr.Usd.Stage.
        up_axis: "X", "Y" or "Z", written as the stage's up axis.
        fps: frames per second; time codes are time * fps.
        scaling: uniform scale of the /root Xform that holds everything.
    """

    def __init__(self, stage, up_axis: str = "Y", fps: float = 60, scaling: float = 1.0):
        pxr = C.import_pxr()
        self._pxr = pxr
        Usd, UsdGeom, Sdf = pxr.Usd, pxr.UsdGeom, pxr.Sdf
        if isinstance(stage, (str, os.PathLike)):
            path = os.fspath(stage)
            try:
                self.stage = Usd.Stage.CreateNew(path)
            except Exception:  # the layer is still open in this process (a second run): start it over
                layer = Sdf.Layer.FindOrOpen(path)
                if layer is None:
                    raise
                layer.Clear()
                self.stage = Usd.Stage.Open(layer)
        elif hasattr(stage, "GetRootLayer"):
            self.stage = stage
        else:
            raise TypeError(f"UsdRenderer(stage=...) takes a file path or a pxr.Usd.Stage, got {type(stage).__name__}")
        self.up_axis = str(up_axis).upper()
        self._up = C.axis_index(self.up_axis)
        self.fps = fps
        self.scaling = scaling
        self.time = 0.0
        self._code = Usd.TimeCode.Default()
        self._start = None
        self._end = None
        self._bodies: list[str] = []  # registered body names, in order
        self._topology: set[str] = set()

        UsdGeom.SetStageUpAxis(self.stage, getattr(UsdGeom.Tokens, self.up_axis.lower()))
        self.stage.SetTimeCodesPerSecond(float(fps))
        self.stage.SetFramesPerSecond(float(fps))
        self.root = UsdGeom.Xform.Define(self.stage, "/root")
        self.stage.SetDefaultPrim(self.root.GetPrim())
        ops = self.root.GetOrderedXformOps()
        scale_op = ops[0] if ops else self.root.AddScaleOp()
        scale_op.Set(pxr.Gf.Vec3d(float(scaling), float(scaling), float(scaling)))

    # --- frames ---------------------------------------------------------------------------
    def begin_frame(self, time: float) -> None:
        """Start a frame at `time` seconds: what follows is written at time code time * fps."""
        self.time = float(time)
        code = self.time * float(self.fps)
        if abs(code - round(code)) < 1e-6:
            code = float(round(code))
        self._code = self._pxr.Usd.TimeCode(code)
        self._start = code if self._start is None else min(self._start, code)
        self._end = code if self._end is None else max(self._end, code)

    def end_frame(self) -> None:
        if self._start is not None:
            self.stage.SetStartTimeCode(self._start)
            self.stage.SetEndTimeCode(self._end)

    def save(self) -> bool:
        """Write the stage's root layer to its file."""
        self.end_frame()
        return bool(self.stage.GetRootLayer().Save())

    # --- prims, poses, colours ---------------------------------------------------------------
    def _parent_path(self, parent_body, is_template: bool) -> str:
        if is_template:
            if not self.stage.GetPrimAtPath("/_templates"):
                self.stage.CreateClassPrim("/_templates")
            return "/_templates"
        if parent_body is None:
            return "/root"
        return f"/root/{C.valid_name(self._body_name(parent_body))}"

    def _body_name(self, body) -> str:
        if isinstance(body, str):
            return body
        b = int(body)
        if b < 0:
            return ""
        if b >= len(self._bodies):
            raise ValueError(f"body {b} is not registered (register_body() was called {len(self._bodies)} times)")
        return self._bodies[b]

    def _define(self, schema, name: str, parent_body=None, is_template: bool = False):
        parent = self._parent_path(parent_body, is_template)
        if parent != "/root" and not self.stage.GetPrimAtPath(parent):
            self._pxr.UsdGeom.Xform.Define(self.stage, parent)
        return schema.Define(self.stage, f"{parent}/{C.valid_name(name)}")

    def _pose(self, geom, pos=(0.0, 0.0, 0.0), rot=None, scale=(1.0, 1.0, 1.0)) -> None:
        """translate, orient and scale ops (added once), set at the current time code."""
        Gf = self._pxr.Gf
        xf = self._pxr.UsdGeom.Xformable(geom)
        ops = xf.GetOrderedXformOps()
        if len(ops) != 3:
            xf.ClearXformOpOrder()
            ops = [xf.AddTranslateOp(), xf.AddOrientOp(), xf.AddScaleOp()]
        p = C.as_vec3(pos, "pos")
        x, y, z, w = C.as_quat(rot)
        s = C.as_scale(scale)
        ops[0].Set(Gf.Vec3d(*map(float, p)), self._code)
        ops[1].Set(Gf.Quatf(float(w), float(x), float(y), float(z)), self._code)
        ops[2].Set(Gf.Vec3f(*map(float, s)), self._code)

    def _color(self, geom, color, n: int | None = None, interpolation: str = "vertex") -> None:
        """displayColor: one colour (constant) or one per element (`interpolation`)."""
        c = C.as_colors(color, None)
        if c is None:
            return
        Vt, UsdGeom = self._pxr.Vt, self._pxr.UsdGeom
        gprim = UsdGeom.Gprim(geom)
        primvar = gprim.CreateDisplayColorPrimvar()
        if c.ndim == 1:
            primvar.SetInterpolation(UsdGeom.Tokens.constant)
            primvar.Set(Vt.Vec3fArray.FromNumpy(c[None, :].astype(np.float32)), self._code)
            return
        if n is not None and len(c) != n:
            raise ValueError(f"{len(c)} colours given for {n} elements")
        primvar.SetInterpolation(getattr(UsdGeom.Tokens, interpolation))
        primvar.Set(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(c, np.float32)), self._code)

    def _visible(self, geom, visible: bool) -> None:
        tokens = self._pxr.UsdGeom.Tokens
        self._pxr.UsdGeom.Imageable(geom).GetVisibilityAttr().Set(
            tokens.inherited if visible else tokens.invisible, self._code)

    def _extent(self, geom, lo, hi) -> None:
        Vt = self._pxr.Vt
        ext = np.array([lo, hi], np.float32).reshape(2, 3)
        geom.GetExtentAttr().Set(Vt.Vec3fArray.FromNumpy(ext), self._code)

    def _axis_extent(self, radius: float, half_length: float, up_axis):
        a = C.axis_index(up_axis)
        hi = np.full(3, float(radius))
        hi[a] = half_length
        return -hi, hi

    # --- shapes --------------------------------------------------------------------------
    def render_sphere(self, name: str, pos, rot, radius: float, parent_body=None, is_template: bool = False,
                      color=None, visible: bool = True) -> str:
        UsdGeom = self._pxr.UsdGeom
        geom = self._define(UsdGeom.Sphere, name, parent_body, is_template)
        geom.GetRadiusAttr().Set(float(radius), self._code)
        self._extent(geom, [-radius] * 3, [radius] * 3)
        self._pose(geom, pos, rot)
        self._color(geom, color)
        self._visible(geom, visible)
        return str(geom.GetPath())

    def render_box(self, name: str, pos, rot, extents, parent_body=None, is_template: bool = False,
                   color=None, visible: bool = True) -> str:
        """A box from -extents to +extents (half sizes) in its frame: a Cube of size 2 scaled by extents."""
        UsdGeom = self._pxr.UsdGeom
        geom = self._define(UsdGeom.Cube, name, parent_body, is_template)
        geom.GetSizeAttr().Set(2.0, self._code)
        self._extent(geom, [-1.0] * 3, [1.0] * 3)
        self._pose(geom, pos, rot, C.as_vec3(extents, "extents"))
        self._color(geom, color)
        self._visible(geom, visible)
        return str(geom.GetPath())

    def _axial(self, schema, name, pos, rot, radius, half_height, parent_body, is_template, up_axis, color,
               visible, cap: float) -> str:
        geom = self._define(schema, name, parent_body, is_template)
        geom.GetRadiusAttr().Set(float(radius), self._code)
        geom.GetHeightAttr().Set(float(2.0 * half_height), self._code)
        geom.GetAxisAttr().Set("XYZ"[C.axis_index(up_axis)], self._code)
        self._extent(geom, *self._axis_extent(radius, half_height + cap, up_axis))
        self._pose(geom, pos, rot)
        self._color(geom, color)
        self._visible(geom, visible)
        return str(geom.GetPath())

    def render_capsule(self, name: str, pos, rot, radius: float, half_height: float, parent_body=None,
                       is_template: bool = False, up_axis: int = 1, color=None, visible: bool = True) -> str:
        """A cylinder of length 2*half_height along up_axis (0, 1, 2) capped by hemispheres of radius."""
        return self._axial(self._pxr.UsdGeom.Capsule, name, pos, rot, radius, half_height, parent_body,
                           is_template, up_axis, color, visible, cap=float(radius))

    def render_cylinder(self, name: str, pos, rot, radius: float, half_height: float, parent_body=None,
                        is_template: bool = False, up_axis: int = 1, color=None, visible: bool = True) -> str:
        return self._axial(self._pxr.UsdGeom.Cylinder, name, pos, rot, radius, half_height, parent_body,
                           is_template, up_axis, color, visible, cap=0.0)

    def render_cone(self, name: str, pos, rot, radius: float, half_height: float, parent_body=None,
                    is_template: bool = False, up_axis: int = 1, color=None, visible: bool = True) -> str:
        """Base of `radius` at -half_height, apex at +half_height along up_axis."""
        return self._axial(self._pxr.UsdGeom.Cone, name, pos, rot, radius, half_height, parent_body,
                           is_template, up_axis, color, visible, cap=0.0)

    def render_arrow(self, name: str, pos, rot, base_radius: float, base_height: float, cap_radius: float | None = None,
                     cap_height: float | None = None, parent_body=None, is_template: bool = False, up_axis: int = 1,
                     color=(1.0, 0.0, 0.0), visible: bool = True) -> str:
        """A shaft (Cylinder, length base_height) and a head (Cone) along up_axis, tail at `pos`.
        cap_radius defaults to twice base_radius, cap_height to a quarter of base_height."""
        UsdGeom, Gf = self._pxr.UsdGeom, self._pxr.Gf
        cap_radius = 2.0 * base_radius if cap_radius is None else cap_radius
        cap_height = 0.25 * base_height if cap_height is None else cap_height
        a = C.axis_index(up_axis)
        xform = self._define(UsdGeom.Xform, name, parent_body, is_template)
        self._pose(xform, pos, rot)
        self._visible(xform, visible)
        path = xform.GetPath()
        for part, schema, radius, height, centre in (
                ("base", UsdGeom.Cylinder, base_radius, base_height, 0.5 * base_height),
                ("cap", UsdGeom.Cone, cap_radius, cap_height, base_height + 0.5 * cap_height)):
            geom = schema.Define(self.stage, path.AppendChild(part))
            geom.GetRadiusAttr().Set(float(radius), self._code)
            geom.GetHeightAttr().Set(float(height), self._code)
            geom.GetAxisAttr().Set("XYZ"[a], self._code)
            self._extent(geom, *self._axis_extent(radius, 0.5 * height, a))
            offset = np.zeros(3)
            offset[a] = centre
            xf = UsdGeom.Xformable(geom)
            ops = xf.GetOrderedXformOps()
            op = ops[0] if ops else xf.AddTranslateOp()
            op.Set(Gf.Vec3d(*map(float, offset)), self._code)
            self._color(geom, color)
        return str(path)

    def render_plane(self, name: str, pos, rot, width: float, length: float, color=(1.0, 1.0, 1.0), color2=None,
                     parent_body=None, is_template: bool = False, u_scaling: float = 1.0, v_scaling: float = 1.0,
                     visible: bool = True) -> str:
        """A rectangle over [-width, width] x [-length, length] in its local XZ plane (normal +Y).
        color2 (a checker pattern in the OpenGL viewer) is not written to USD."""
        UsdGeom, Vt = self._pxr.UsdGeom, self._pxr.Vt
        geom = self._define(UsdGeom.Mesh, name, parent_body, is_template)
        w, l_ = float(width), float(length)
        pts = np.array([[-w, 0, -l_], [-w, 0, l_], [w, 0, l_], [w, 0, -l_]], np.float32)  # normal +Y
        geom.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(pts), self._code)
        geom.GetFaceVertexCountsAttr().Set(Vt.IntArray([4]), self._code)
        geom.GetFaceVertexIndicesAttr().Set(Vt.IntArray([0, 1, 2, 3]), self._code)
        geom.GetSubdivisionSchemeAttr().Set(UsdGeom.Tokens.none)
        self._extent(geom, pts.min(0), pts.max(0))
        self._pose(geom, pos, rot)
        self._color(geom, color)
        self._visible(geom, visible)
        return str(geom.GetPath())

    def render_ground(self, size: float = 100.0, plane=None) -> str:
        """A square ground of half size `size` through the origin, normal along the up axis; or on
        `plane` = (a, b, c, d), the plane a*x + b*y + c*z + d = 0."""
        if plane is None:
            rot = C.quat_y_to(np.eye(3)[self._up])
            pos = np.zeros(3)
        else:
            p = np.asarray(C.to_numpy(plane), np.float64).reshape(4)
            n = p[:3] / np.linalg.norm(p[:3])
            rot = C.quat_y_to(n)
            pos = -p[3] / np.linalg.norm(p[:3]) * n
        return self.render_plane("ground", pos, rot, size, size, color=(0.7, 0.7, 0.7))

    # --- meshes, points, lines ---------------------------------------------------------
    def render_mesh(self, name: str, points, indices, colors=None, pos=(0.0, 0.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0),
                    scale=(1.0, 1.0, 1.0), update_topology: bool = False, parent_body=None, is_template: bool = False,
                    smooth_shading: bool = True, visible: bool = True) -> str:
        """A triangle mesh: points (n, 3), indices (m, 3) or flat. The topology is written when the
        mesh is first seen, and again (time-sampled) on every call with update_topology=True;
        the points are written on every call. colors: one RGB, or one per vertex."""
        UsdGeom, Vt = self._pxr.UsdGeom, self._pxr.Vt
        pts = C.as_points(points)
        idx = C.as_indices(indices)
        if idx.size % 3:
            raise ValueError(f"render_mesh: {idx.size} indices is not a whole number of triangles")
        if idx.size and (idx.min() < 0 or idx.max() >= len(pts)):
            raise ValueError(f"render_mesh: indices reach vertex {int(idx.max())}, but there are {len(pts)} points")
        geom = self._define(UsdGeom.Mesh, name, parent_body, is_template)
        key = str(geom.GetPath())
        if key not in self._topology or update_topology:
            code = self._code if update_topology else self._pxr.Usd.TimeCode.Default()
            geom.GetFaceVertexCountsAttr().Set(Vt.IntArray.FromNumpy(np.full(idx.size // 3, 3, np.int32)), code)
            geom.GetFaceVertexIndicesAttr().Set(Vt.IntArray.FromNumpy(idx), code)
            geom.GetSubdivisionSchemeAttr().Set(UsdGeom.Tokens.none)
            self._topology.add(key)
        geom.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(pts), self._code)
        if len(pts):
            self._extent(geom, pts.min(0), pts.max(0))
        self._pose(geom, pos, rot, scale)
        self._color(geom, colors, len(pts), "vertex")
        self._visible(geom, visible)
        return key

    def render_points(self, name: str, points, radius, colors=None, as_spheres: bool = True,
                      visible: bool = True) -> str:
        """Points (n, 3) with one radius or one per point (widths are 2 * radius); colors: one RGB
        or one per point."""
        UsdGeom, Vt = self._pxr.UsdGeom, self._pxr.Vt
        pts = C.as_points(points)
        geom = self._define(UsdGeom.Points, name)
        geom.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(pts), self._code)
        r = np.asarray(C.to_numpy(radius), np.float32).reshape(-1)
        if r.size == 1:
            geom.SetWidthsInterpolation(UsdGeom.Tokens.constant)
            geom.GetWidthsAttr().Set(Vt.FloatArray.FromNumpy(2.0 * r), self._code)
        else:
            if r.size != len(pts):
                raise ValueError(f"render_points: {r.size} radii for {len(pts)} points")
            geom.SetWidthsInterpolation(UsdGeom.Tokens.vertex)
            geom.GetWidthsAttr().Set(Vt.FloatArray.FromNumpy(np.ascontiguousarray(2.0 * r)), self._code)
        if len(pts):
            pad = float(r.max())
            self._extent(geom, pts.min(0) - pad, pts.max(0) + pad)
        self._color(geom, colors, len(pts), "vertex")
        self._visible(geom, visible)
        return str(geom.GetPath())

    def _curves(self, name, pts, counts, color, radius, visible, n_curves) -> str:
        UsdGeom, Vt = self._pxr.UsdGeom, self._pxr.Vt
        geom = self._define(UsdGeom.BasisCurves, name)
        geom.GetTypeAttr().Set(UsdGeom.Tokens.linear)
        geom.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(pts), self._code)
        geom.GetCurveVertexCountsAttr().Set(Vt.IntArray.FromNumpy(np.asarray(counts, np.int32)), self._code)
        geom.SetWidthsInterpolation(UsdGeom.Tokens.constant)
        geom.GetWidthsAttr().Set(Vt.FloatArray([2.0 * float(radius)]), self._code)
        if len(pts):
            self._extent(geom, pts.min(0) - radius, pts.max(0) + radius)
        c = C.as_colors(color)
        if c is not None and c.ndim == 2 and len(c) == n_curves and n_curves != len(pts):
            self._color(geom, c, n_curves, "uniform")  # one colour per curve
        else:
            self._color(geom, c, len(pts), "vertex")
        self._visible(geom, visible)
        return str(geom.GetPath())

    def render_line_list(self, name: str, vertices, indices, color=None, radius: float = 0.01,
                         visible: bool = True) -> str:
        """Separate segments vertices[indices[2k]] - vertices[indices[2k+1]]; color: one RGB, one per
        segment or one per vertex."""
        v = C.as_points(vertices, "vertices")
        idx = C.as_indices(indices)
        if idx.size % 2:
            raise ValueError(f"render_line_list: {idx.size} indices is not a whole number of segments")
        n_seg = idx.size // 2
        c = C.as_colors(color)
        if c is not None and c.ndim == 2 and len(c) == len(v) and len(v) != n_seg:
            c = c[idx]  # per-vertex colours follow the segments' end points
        return self._curves(name, v[idx], np.full(n_seg, 2), c, radius, visible, n_seg)

    def render_line_strip(self, name: str, vertices, color=None, radius: float = 0.01, visible: bool = True) -> str:
        """One polyline through the vertices; color: one RGB or one per vertex."""
        v = C.as_points(vertices, "vertices")
        return self._curves(name, v, [len(v)], color, radius, visible, 1)

    def render_ref(self, name: str, path: str, pos, rot, scale, color=None) -> str:
        """A reference to the USD file `path` (its default prim, or else its first root prim), posed."""
        Sdf, UsdGeom = self._pxr.Sdf, self._pxr.UsdGeom
        xform = self._define(UsdGeom.Xform, name)
        prim = xform.GetPrim()
        if not prim.HasAuthoredReferences():
            layer = Sdf.Layer.FindOrOpen(os.fspath(path))
            if layer is None:
                raise FileNotFoundError(f"render_ref: cannot open the USD file {path}")
            target = layer.defaultPrim
            if target:
                prim.GetReferences().AddReference(os.fspath(path))
            else:
                roots = [p.path for p in layer.rootPrims]
                if not roots:
                    raise ValueError(f"render_ref: {path} has no prims to reference")
                prim.GetReferences().AddReference(os.fspath(path), roots[0])
        self._pose(xform, pos, rot, scale)
        if color is not None:  # a constant primvar on the Xform: inherited by the referenced meshes
            primvar = UsdGeom.PrimvarsAPI(prim).CreatePrimvar(
                "displayColor", Sdf.ValueTypeNames.Color3fArray, UsdGeom.Tokens.constant)
            primvar.Set(self._pxr.Vt.Vec3fArray.FromNumpy(C.as_colors(color)[None, :].astype(np.float32)), self._code)
        return str(xform.GetPath())

    # --- bodies and shape instances (warp.sim-style scenes) -------------------------------
    def register_body(self, body_name: str) -> int:
        """An Xform /root/<body_name> that shapes can be attached to (parent_body=, add_shape_instance);
        returns its index for update_body_transforms."""
        self._pxr.UsdGeom.Xform.Define(self.stage, f"/root/{C.valid_name(body_name)}")
        self._bodies.append(str(body_name))
        return len(self._bodies) - 1

    def update_body_transforms(self, body_q) -> None:
        """Pose the registered bodies from transforms (p, q) (a wp.array of wp.transform or (n, 7))."""
        q = np.asarray(C.to_numpy(body_q), np.float64).reshape(-1, 7)
        if len(q) < len(self._bodies):
            raise ValueError(f"update_body_transforms: {len(q)} transforms for {len(self._bodies)} bodies")
        for name, tf in zip(self._bodies, q):
            prim = self.stage.GetPrimAtPath(f"/root/{C.valid_name(name)}")
            self._pose(prim, tf[:3], tf[3:])

    def add_shape_instance(self, name: str, shape: str, body, pos, rot, scale=(1.0, 1.0, 1.0), color1=None,
                           color2=None, custom_index: int = -1, visible: bool = True) -> str:
        """An instance of a template shape (the path a render_* call with is_template=True returned),
        under `body` (a registered body's index or name; None or -1: the root): an Xform posed by
        pos, rot, scale whose child "shape" references the template."""
        UsdGeom = self._pxr.UsdGeom
        parent = None if body is None or (not isinstance(body, str) and int(body) < 0) else body
        xform = self._define(UsdGeom.Xform, name, parent)
        child = xform.GetPath().AppendChild("shape")
        if not self.stage.GetPrimAtPath(child):
            if not self.stage.GetPrimAtPath(str(shape)):
                raise ValueError(f"add_shape_instance: no template shape at {shape}")
            # a typeless child takes the template's type (Sphere, Mesh, ...) through the reference
            self.stage.DefinePrim(child).GetReferences().AddInternalReference(str(shape))
        self._pose(xform, pos, rot, scale)
        self._visible(xform, visible)
        return str(xform.GetPath())

