"""A small SPH fluid (weakly compressible, Muller et al. 2003 kernels) on a wp.HashGrid.

    fluid = SPHFluid(positions, smoothing_length=0.1, lower=(0, 0, 0), upper=(1, 1, 1))
    for _ in range(100):
        fluid.step(dt=1e-3)
    fluid.positions.numpy()

Density uses the poly6 kernel, pressure forces the spiky gradient, viscosity the viscosity
Laplacian; particles bounce off the walls of the box [lower, upper]. Neighbours come from
`for j in wp.hash_grid_query(grid, x, h)`; the grid is rebuilt every step."""

import math

import numpy as np

import warp_nb as wp


@wp.kernel
def sph_density(grid: wp.uint64, x: wp.array(dtype=wp.vec3), h: float, mass: float, rho: wp.array(dtype=float)):
    t = wp.tid()
    i = wp.hash_grid_point_id(grid, t)
    p = x[i]
    h2 = h * h
    s = float(0.0)
    for j in wp.hash_grid_query(grid, p, h):
        r2 = wp.length_sq(x[j] - p)
        if r2 < h2:
            w = h2 - r2
            s += w * w * w
    rho[i] = mass * 315.0 / (64.0 * 3.14159265358979 * wp.pow(h, 9.0)) * s


@wp.kernel
def sph_forces(grid: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float),
               h: float, mass: float, stiffness: float, rest_density: float, viscosity: float, gravity: wp.vec3,
               acc: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    i = wp.hash_grid_point_id(grid, t)
    p = x[i]
    rho_i = rho[i]
    p_i = stiffness * (rho_i - rest_density)
    spiky = -45.0 / (3.14159265358979 * wp.pow(h, 6.0))
    visc = 45.0 / (3.14159265358979 * wp.pow(h, 6.0))
    f = wp.vec3(0.0, 0.0, 0.0)
    for j in wp.hash_grid_query(grid, p, h):
        if j != i:
            d = p - x[j]
            r = wp.length(d)
            if r < h and r > 1.0e-9:
                rho_j = rho[j]
                p_j = stiffness * (rho_j - rest_density)
                f = f - mass * (p_i + p_j) / (2.0 * rho_j) * spiky * (h - r) * (h - r) * (d / r)
                f = f + viscosity * mass * (v[j] - v[i]) / rho_j * visc * (h - r)
    acc[i] = f / rho_i + gravity


@wp.kernel
def sph_integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3), dt: float,
                  lower: wp.vec3, upper: wp.vec3, restitution: float):
    i = wp.tid()
    vel = v[i] + acc[i] * dt
    pos = x[i] + vel * dt
    for k in range(3):
        if pos[k] < lower[k]:
            pos[k] = lower[k]
            vel[k] = -vel[k] * restitution
        if pos[k] > upper[k]:
            pos[k] = upper[k]
            vel[k] = -vel[k] * restitution
    x[i] = pos
    v[i] = vel


class SPHFluid:
    """Particles (an (n, 3) array) in the box [lower, upper]; step(dt) advances them."""

    def __init__(self, positions, smoothing_length: float, lower=(0.0, 0.0, 0.0), upper=(1.0, 1.0, 1.0),
                 rest_density: float = 1000.0, mass: float | None = None, stiffness: float = 20.0,
                 viscosity: float = 0.1, gravity=(0.0, -9.81, 0.0), restitution: float = 0.3, grid_dim: int = 64):
        pts = np.asarray(positions, np.float32).reshape(-1, 3)
        self.n = len(pts)
        self.h = float(smoothing_length)
        if mass is None:  # particles on a lattice of spacing h/2 at rest density
            mass = rest_density * (0.5 * self.h) ** 3
        self.mass, self.rest_density, self.stiffness = float(mass), float(rest_density), float(stiffness)
        self.viscosity, self.restitution = float(viscosity), float(restitution)
        self.gravity, self.lower, self.upper = wp.vec3(*gravity), wp.vec3(*lower), wp.vec3(*upper)
        self.positions = wp.array(pts, dtype=wp.vec3)
        self.velocities = wp.zeros(self.n, dtype=wp.vec3)
        self.density = wp.zeros(self.n, dtype=float)
        self.accelerations = wp.zeros(self.n, dtype=wp.vec3)
        self.grid = wp.HashGrid(grid_dim, grid_dim, grid_dim)

    def compute_density(self) -> np.ndarray:
        """Rebuild the grid and compute every particle's density (returned as numpy)."""
        self.grid.build(self.positions, self.h)
        wp.launch(sph_density, self.n, inputs=[self.grid.id, self.positions, self.h, self.mass, self.density])
        return self.density.numpy()

    def step(self, dt: float) -> None:
        self.compute_density()
        wp.launch(sph_forces, self.n, inputs=[self.grid.id, self.positions, self.velocities, self.density, self.h,
                                              self.mass, self.stiffness, self.rest_density, self.viscosity,
                                              self.gravity, self.accelerations])
        wp.launch(sph_integrate, self.n, inputs=[self.positions, self.velocities, self.accelerations, float(dt),
                                                 self.lower, self.upper, self.restitution])


def poly6_density(points, h, mass):
    """numpy reference for sph_density (all pairs; for tests and small inputs)."""
    p = np.asarray(points, np.float64)
    r2 = ((p[:, None] - p[None]) ** 2).sum(-1)
    w = np.where(r2 < h * h, (h * h - r2) ** 3, 0.0)
    return mass * 315.0 / (64.0 * math.pi * h ** 9) * w.sum(1)


def block(lower, upper, spacing) -> np.ndarray:
    """Particles on a lattice filling the box [lower, upper]."""
    axes = [np.arange(lo, hi + 1e-9, spacing) for lo, hi in zip(lower, upper)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3).astype(np.float32)
