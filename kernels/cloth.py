"""A mass-spring cloth that collides with a wp.Mesh.

    cloth = Cloth(nx=32, ny=32, spacing=0.05, origin=(-0.8, 1.0, -0.8))
    for _ in range(200):
        cloth.step(dt=1e-3, mesh=sphere_mesh)

Structural, shear and bending springs (Hooke springs with damping along the spring), gravity,
semi-implicit Euler, and collisions: a particle closer than `thickness` to the mesh, or inside
it (wp.mesh_query_point_sign_normal), is pushed out along the surface normal and loses its
inward velocity."""

import numpy as np

import warp_nb as wp


@wp.kernel
def spring_forces(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), springs: wp.array(dtype=wp.vec2i),
                  rest: wp.array(dtype=float), ke: float, kd: float, f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    ij = springs[s]
    i = ij[0]
    j = ij[1]
    d = x[j] - x[i]
    length = wp.length(d)
    if length > 1.0e-9:
        n = d / length
        rel = wp.dot(v[j] - v[i], n)
        force = (ke * (length - rest[s]) + kd * rel) * n
        wp.atomic_add(f, i, force)
        wp.atomic_sub(f, j, force)


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3),
              inv_mass: wp.array(dtype=float), gravity: wp.vec3, damping: float, dt: float):
    i = wp.tid()
    w = inv_mass[i]
    if w > 0.0:
        vel = (v[i] + (f[i] * w + gravity) * dt) * (1.0 - damping * dt)
        v[i] = vel
        x[i] = x[i] + vel * dt
    f[i] = wp.vec3(0.0, 0.0, 0.0)


@wp.kernel
def collide(mesh: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), thickness: float):
    i = wp.tid()
    p = x[i]
    q = wp.mesh_query_point_sign_normal(mesh, p, 10.0 * thickness + 1.0)
    if q.result:
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        d = p - c
        dist = wp.length(d)
        if q.sign < 0.0 or dist < thickness:
            n = wp.mesh_eval_face_normal(mesh, q.face)
            if dist > 1.0e-9:
                n = d / dist * q.sign
            x[i] = c + n * thickness
            vn = wp.dot(v[i], n)
            if vn < 0.0:
                v[i] = v[i] - vn * n


class Cloth:
    """An nx x ny sheet of particles in the x-z plane at `origin` (particles 0 .. nx-1 along x)."""

    def __init__(self, nx: int, ny: int, spacing: float, origin=(0.0, 0.0, 0.0), mass: float = 0.01,
                 stiffness: float = 500.0, damping: float = 0.5, spring_damping: float = 0.5,
                 gravity=(0.0, -9.81, 0.0), thickness: float = 0.01, pinned=()):
        self.nx, self.ny = int(nx), int(ny)
        gx, gy = np.meshgrid(np.arange(nx), np.arange(ny), indexing="xy")
        pts = np.stack([gx.ravel() * spacing, np.zeros(gx.size), gy.ravel() * spacing], 1) + np.asarray(origin)
        self.positions = wp.array(pts.astype(np.float32), dtype=wp.vec3)
        self.velocities = wp.zeros(len(pts), dtype=wp.vec3)
        self.forces = wp.zeros(len(pts), dtype=wp.vec3)
        inv = np.full(len(pts), 1.0 / mass, np.float32)
        inv[list(pinned)] = 0.0
        self.inv_mass = wp.array(inv)
        springs = self.spring_pairs(nx, ny)
        rest = np.linalg.norm(pts[springs[:, 1]] - pts[springs[:, 0]], axis=1)
        self.springs = wp.array(springs.astype(np.int32), dtype=wp.vec2i)
        self.rest = wp.array(rest.astype(np.float32))
        self.stiffness, self.spring_damping, self.damping = float(stiffness), float(spring_damping), float(damping)
        self.gravity, self.thickness = wp.vec3(*gravity), float(thickness)
        self.indices = self.triangles(nx, ny)

    @staticmethod
    def spring_pairs(nx, ny) -> np.ndarray:
        """Structural (1 apart), shear (diagonals) and bending (2 apart) springs."""
        idx = np.arange(nx * ny).reshape(ny, nx)
        pairs = [np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], 1), np.stack([idx[:-1].ravel(), idx[1:].ravel()], 1),
                 np.stack([idx[:-1, :-1].ravel(), idx[1:, 1:].ravel()], 1),
                 np.stack([idx[:-1, 1:].ravel(), idx[1:, :-1].ravel()], 1),
                 np.stack([idx[:, :-2].ravel(), idx[:, 2:].ravel()], 1), np.stack([idx[:-2].ravel(), idx[2:].ravel()], 1)]
        return np.concatenate(pairs)

    @staticmethod
    def triangles(nx, ny) -> np.ndarray:
        """Two triangles per grid square (for rendering or a wp.Mesh of the cloth)."""
        idx = np.arange(nx * ny).reshape(ny, nx)
        a, b, c, d = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
        return np.stack([a, c, b, b, c, d], 1).reshape(-1).astype(np.int32)

    def step(self, dt: float, mesh=None, substeps: int = 1) -> None:
        h = float(dt) / substeps
        n = self.positions.shape[0]
        for _ in range(substeps):
            wp.launch(spring_forces, self.springs.shape[0], inputs=[self.positions, self.velocities, self.springs,
                                                                   self.rest, self.stiffness, self.spring_damping,
                                                                   self.forces])
            wp.launch(integrate, n, inputs=[self.positions, self.velocities, self.forces, self.inv_mass, self.gravity,
                                            self.damping, h])
            if mesh is not None:
                wp.launch(collide, n, inputs=[mesh.id, self.positions, self.velocities, self.thickness])
