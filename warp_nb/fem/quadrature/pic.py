"""`fem.PicQuadrature`: particles as quadrature points (particle-in-cell, MPM, GIMP). Particles are
given by world position (each found in the geometry's cells with `cell_lookup`), or as (element
index, coordinates) per particle, or, for particles spanning several elements (GIMP), as 2-d
(particle, overlap) arrays of element indices, coordinates and fractions of the particle's measure.

Each (particle, element) entry is an evaluation point; entries are binned by element, in particle
order within an element, with invalid entries (element -1) last, as Warp's are:
`cell_particle_offsets[e] .. [e+1]` are element e's entries, `cell_particle_indices` their particle.
An entry's weight (`cell_particle_fraction`, relative to the element's measure) is: the particle's
measure over the element's (times its fraction with GIMP) when `measures` is given; else its GIMP
fraction, or 1 / (particles in the element). A point's index is its particle's.

The binning (integer work) is done with numpy; the coordinates and fractions are computed by
kernels recorded on the active Tape, so that gradients reach positions and measures."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp_nb as wp

from ... import types as T
from ...arrays.array import array
from ...program.func import func
from ...types import float32, int32
from ...types.structs import struct
from ..domain import GeometryDomain
from ..types import OUTSIDE, Coords, ElementKind, make_free_sample
from .quadrature import Quadrature


@struct
class PicQuadratureArg:
    """Entries binned by element: the range of each element, and each entry's particle, fraction
    of the element's measure and coordinates in the element."""

    cell_particle_offsets: array(dtype=int32)
    cell_particle_indices: array(dtype=int32)
    cell_particle_fraction: array(dtype=float32)
    cell_particle_coords: array(dtype=Coords)


class PicQuadrature(Quadrature):
    """Quadrature at particles (see the module's docstring for `positions` and `measures`).
    `use_domain_element_indices`: the element indices given are the domain's (a Subdomain's
    elements) rather than the geometry's."""

    Arg = PicQuadratureArg

    def __init__(self, domain: GeometryDomain, positions, measures: array | None = None,
                 env_indices: array | None = None, requires_grad: bool = False, max_dist: float = 0.0,
                 use_domain_element_indices: bool = False, temporary_store=None):
        super().__init__(domain)
        if domain.element_kind != ElementKind.CELL:
            raise ValueError(f"fem.PicQuadrature: particles live in cells; `domain` is {domain.name}")
        if domain.geometry.scalar_type is not float32:  # (Warp 1.19 fails there too, at kernel build)
            raise NotImplementedError(f"fem.PicQuadrature: `domain` is on a float64 geometry ({domain.geometry.name}); "
                                      "particle quadratures are float32 only in warp_nb.fem")
        self._use_domain_indices = bool(use_domain_element_indices)
        self._requires_grad = bool(requires_grad)
        cells, coords, fractions, world = _read_positions(domain, positions)
        if world is not None:
            envs = _read_env_indices(domain, world, env_indices)
            if envs is None and domain.geometry_partition is None:
                cells = _lookup_cells(domain, world, float(max_dist))
            else:  # only the cells of the partition, of each particle's environment
                cells = _filtered_lookup_cells(domain, world, float(max_dist), envs)
            if self._use_domain_indices and domain.geometry_partition is not None:
                to_partition = domain.geometry_partition.partition_cell_indices_numpy()
                found = cells.numpy()
                cells = array(np.where(found >= 0, to_partition[np.maximum(found, 0)], -1).astype(np.int32),
                              dtype=int32, device=cells.device)
        self.cell_indices = cells  # each particle's element (given, or found by the lookup)
        particles, per = cells.shape[0], (cells.shape[1] if cells.ndim == 2 else 1)
        device = cells.device
        if measures is not None and (not isinstance(measures, array) or measures.ndim != 1 or
                                     measures.dtype is not float32 or measures.shape[0] != particles):
            raise TypeError(f"fem.PicQuadrature: `measures` must be a 1-d warp array of float with one entry per "
                            f"particle ({particles}), got {measures!r}")
        self._unique_point_count = particles
        bins = domain.element_count() if self._use_domain_indices else domain.geometry_element_count()

        flat_cells = cells.numpy().reshape(-1).astype(np.int64)
        valid, order, counts, offsets, entry_cell, entry_particle = _bin(flat_cells, bins, per)
        self._active_cell_count = int(np.count_nonzero(counts))
        self._max_particles_per_cell = int(counts.max()) if counts.size else 0
        self._cell_particle_offsets = array(offsets, dtype=int32, device=device)
        self._cell_particle_indices = array(entry_particle, dtype=int32, device=device)
        entries = array(order.astype(np.int32), dtype=int32, device=device)
        entry_cells = array(entry_cell, dtype=int32, device=device)
        count = entry_cell.shape[0]
        self._cell_particle_coords = wp.zeros(count, dtype=Coords, device=device, requires_grad=self._requires_grad)
        self._cell_particle_fraction = wp.zeros(count, dtype=float32, device=device,
                                                requires_grad=self._requires_grad)
        kernels = _kernels(domain, self._use_domain_indices, world.dtype if world is not None else None)
        domain_arg = domain.domain_arg_value(device)
        if world is not None:
            wp.launch(kernels["coords_at"], dim=count, device=device, inputs=[
                domain_arg, entry_cells, self._cell_particle_indices, world, self._cell_particle_coords])
        else:
            wp.launch(kernels["coords_of"], dim=count, device=device, inputs=[
                entry_cells, entries, coords.flatten(), self._cell_particle_coords])
        if fractions is None:  # a particle's share of its element: 1 with measures, else 1 / particles there
            base = np.ones(count, np.float32) if measures is not None else \
                (1.0 / np.maximum(counts, 1))[np.where(valid, flat_cells, 0)] * valid
            fractions = array(base.astype(np.float32), dtype=float32, device=device)
        if measures is not None:
            wp.launch(kernels["fraction_of_measure"], dim=count, device=device, inputs=[
                domain_arg, entry_cells, entries, self._cell_particle_indices, self._cell_particle_coords,
                fractions.flatten(), measures, self._cell_particle_fraction])
        else:
            wp.launch(kernels["fraction_given"], dim=count, device=device, inputs=[
                entry_cells, entries, fractions.flatten(), self._cell_particle_fraction])
        if self._use_domain_indices:
            self.point_count, self.point_coords, self.point_weight, self.point_index = _by_domain_element
        else:
            self.point_count, self.point_coords, self.point_weight, self.point_index = _by_geometry_element
        self._args: dict = {}

    @property
    def domain(self) -> GeometryDomain:
        return self._domain

    @domain.setter
    def domain(self, domain: GeometryDomain):
        """Warp's: evaluate the same particles over another cell domain of the same geometry (a
        geometry partition's cells, once the particles told which cells to keep); particles stay
        binned by geometry cell, so only a quadrature built with geometry element indices moves."""
        if not isinstance(domain, GeometryDomain) or domain.element_kind != ElementKind.CELL or \
                domain.geometry is not self._domain.geometry:
            raise ValueError("fem.PicQuadrature.domain: the new domain must be a cell domain of the same geometry "
                             f"({self._domain.geometry.name}), got {domain!r}")
        if self._use_domain_indices:
            raise ValueError("fem.PicQuadrature.domain: a quadrature built with use_domain_element_indices=True "
                             "keeps its domain")
        self._domain = domain

    # --- what Warp's PicQuadrature answers on the host -----------------------------------------
    @property
    def name(self) -> str:
        return f"{type(self).__name__}_{self.domain.name}"

    @property
    def cell_particle_offsets(self) -> array:
        """Entries of element e are cell_particle_offsets[e] .. cell_particle_offsets[e + 1]."""
        return self._cell_particle_offsets

    @property
    def cell_particle_indices(self) -> array:
        """The particle of each entry (-1 for the invalid entries, last)."""
        return self._cell_particle_indices

    def total_point_count(self) -> int:
        """Number of particles (a point's index is its particle's)."""
        return self._unique_point_count

    def evaluation_point_count(self) -> int:
        """Number of (particle, element) entries, invalid ones included."""
        return self._cell_particle_indices.shape[0]

    def active_cell_count(self) -> int:
        """Number of elements holding at least one particle."""
        return self._active_cell_count

    def max_points_per_element(self) -> int:
        return self._max_particles_per_cell

    def fill_element_mask(self, mask: array):
        """mask[e] = 1 for the elements holding a particle, 0 for the others."""
        counts = np.diff(self._cell_particle_offsets.numpy())
        if not isinstance(mask, array) or mask.shape != counts.shape:
            raise ValueError(f"fem.PicQuadrature.fill_element_mask: `mask` must be a warp array of {counts.shape[0]} "
                             f"entries, got {mask!r}")
        mask.assign((counts > 0).astype(mask.numpy().dtype))

    def arg_value(self, device):
        device = wp.get_device(device)
        arg = self._args.get(str(device))
        if arg is None:
            arg = self._args[str(device)] = PicQuadratureArg()
            arg.cell_particle_offsets = self._cell_particle_offsets.to(device)
            arg.cell_particle_indices = self._cell_particle_indices.to(device)
            arg.cell_particle_fraction = self._cell_particle_fraction.to(device)
            arg.cell_particle_coords = self._cell_particle_coords.to(device)
        return arg


def _bin(flat_cells: np.ndarray, bins: int, per: int):
    """Entries (particle * per + overlap) binned by element: (valid, order, counts per element,
    offsets, each sorted entry's element and particle, -1 for the invalid entries, which go last)."""
    valid = (flat_cells >= 0) & (flat_cells < bins)
    order = np.argsort(np.where(valid, flat_cells, bins), kind="stable")  # stable: particle order within a bin
    counts = np.bincount(flat_cells[valid], minlength=bins)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    sorted_valid = valid[order]
    entry_cell = np.where(sorted_valid, flat_cells[order], -1).astype(np.int32)
    entry_particle = np.where(sorted_valid, order // per, -1).astype(np.int32)
    return valid, order, counts, offsets, entry_cell, entry_particle


def _read_positions(domain, positions):
    """(cells, coords, fractions, world positions) from PicQuadrature's `positions` argument."""
    def check(a, what, ndim, dtype):
        if not isinstance(a, array) or a.ndim != ndim or (dtype is not None and a.dtype is not dtype):
            got = type(a).__name__ if not isinstance(a, array) else f"an array of {a.dtype.__name__} with {a.ndim} dims"
            raise TypeError(f"fem.PicQuadrature: `positions` {what} must be a {ndim}-d warp array"
                            f"{f' of {dtype.__name__}' if dtype is not None else ''}, got {got}")

    if isinstance(positions, tuple):
        if len(positions) == 2:
            cells, coords = positions
            check(cells, "element indices", 1, int32)
            check(coords, "coordinates", 1, Coords)
            fractions = None
        elif len(positions) == 3:
            cells, coords, fractions = positions
            check(cells, "element indices", 2, int32)
            check(coords, "coordinates", 2, Coords)
            check(fractions, "fractions", 2, float32)
        else:
            raise TypeError("fem.PicQuadrature: `positions` as a tuple is (element indices, coordinates) or, for "
                            f"GIMP, (element indices, coordinates, fractions); got a tuple of {len(positions)}")
        if coords.shape != cells.shape or (fractions is not None and fractions.shape != cells.shape):
            raise ValueError("fem.PicQuadrature: the arrays of `positions` must have the same shape, got "
                             f"{[a.shape for a in positions]}")
        return cells, coords, fractions, None
    check(positions, "(world positions)", 1, None)
    geo = domain.geometry
    if getattr(geo, "cell_lookup", None) is None or getattr(geo, "cell_coordinates", None) is None:
        raise NotImplementedError(f"fem.PicQuadrature: {geo.name} has no cell lookup in warp_nb.fem yet; give "
                                  "positions as (element indices, coordinates)")
    dim = getattr(geo, "dimension", None)
    if not T.type_is_vector(positions.dtype) or T.type_scalar_type(positions.dtype) is not float32 or \
            (dim is not None and T.type_length(positions.dtype) != dim):
        raise TypeError(f"fem.PicQuadrature: world `positions` on {geo.name} must be an array of float32 vectors of "
                        f"length {dim}, got an array of {positions.dtype.__name__}")
    if domain.element_count() != domain.geometry_element_count() and domain.geometry_partition is None:
        raise NotImplementedError("fem.PicQuadrature: world positions on a subdomain's cells are not "
                                  "supported; give positions as (element indices, coordinates)")
    return None, None, None, positions


def _read_env_indices(domain, world: array, env_indices):
    """The environment of each particle (an int32 array), or None for a geometry of one environment."""
    multi = domain.geometry.environment_count() > 1
    if env_indices is None:
        if multi:
            raise ValueError(f"fem.PicQuadrature: {domain.geometry.name} has several environments; give the "
                             "environment indices of the particles (`env_indices`)")
        return None
    if not isinstance(env_indices, array) or env_indices.ndim != 1:
        raise ValueError(f"fem.PicQuadrature: `env_indices` must be a 1-d warp array, got {env_indices!r}")
    values = env_indices.numpy()
    if values.dtype.kind not in "iu":
        raise ValueError(f"fem.PicQuadrature: `env_indices` must have an integer dtype, got "
                         f"{env_indices.dtype.__name__}")
    if env_indices.shape[0] != world.shape[0]:
        raise ValueError(f"fem.PicQuadrature: `env_indices` must have one entry per particle position "
                         f"({world.shape[0]}), got {env_indices.shape[0]}")
    return array(values.astype(np.int32), dtype=int32, device=world.device)


def _filtered_lookup_cells(domain, world: array, max_dist: float, envs) -> array:
    """Each particle's cell among the domain's partition cells of its environment: every cell gets a
    code (its environment, -1 outside the partition) and a particle keeps the cells of its own code."""
    geo = domain.geometry
    codes = geo.cell_env.numpy().astype(np.int32) if geo.cell_env is not None else \
        np.zeros(geo.cell_count(), dtype=np.int32)
    if domain.geometry_partition is not None:
        codes[domain.geometry_partition.partition_cell_indices_numpy() < 0] = -1
    device = world.device
    if envs is None:
        envs = wp.zeros(world.shape[0], dtype=int32, device=device)
    cells = wp.empty(world.shape[0], dtype=int32, device=device)
    kernel = _kernels(domain, False, world.dtype)["filtered_lookup"]
    wp.launch(kernel, dim=world.shape[0], device=device, record_tape=False,
              inputs=[domain.domain_arg_value(device), world, max(max_dist, _CONTAINED),
                      array(codes, dtype=int32, device=device), envs, cells])
    return cells


# the filtered lookup keeps cells within max_dist of a point; a point inside a cell is at a distance
# of round-off from it, not 0, so max_dist 0 ("inside only") is read as this
_CONTAINED = 1.0e-5


def _lookup_cells(domain, world: array, max_dist: float) -> array:
    cells = wp.empty(world.shape[0], dtype=int32, device=world.device)
    kernel = _kernels(domain, False, world.dtype)["lookup"]
    # integer results: nothing to differentiate, so the lookup stays off the Tape
    wp.launch(kernel, dim=world.shape[0], device=world.device, record_tape=False,
              inputs=[domain.domain_arg_value(world.device), world, max_dist, cells])
    return cells


@func
def _same_index(index_arg: Any, index: int32):
    return index


def _kernels(domain, use_domain_indices: bool, position_type) -> dict:
    """The binning kernels for this kind of domain (made once per domain argument type, index map
    and position type)."""
    to_geometry = domain.element_index if use_domain_indices else _same_index
    key = (domain.DomainArg, to_geometry, position_type)
    cached = _KERNELS.get(key)
    if cached is not None:
        return cached
    geo, domain_arg_t = domain.geometry, domain.DomainArg
    measure = geo.cell_measure
    tag = f"{abs(hash(key)) % (1 << 32):08x}"
    kernels = {}

    def coords_of(entry_cells: wp.array(dtype=int32), entries: wp.array(dtype=int32),
                  src: wp.array(dtype=Coords), out: wp.array(dtype=Coords)):
        j = wp.tid()
        if entry_cells[j] >= 0:
            out[j] = src[entries[j]]
        else:
            out[j] = Coords(OUTSIDE, OUTSIDE, OUTSIDE)

    def fraction_given(entry_cells: wp.array(dtype=int32), entries: wp.array(dtype=int32),
                       src: wp.array(dtype=float32), out: wp.array(dtype=float32)):
        j = wp.tid()
        if entry_cells[j] >= 0:
            out[j] = src[entries[j]]

    def fraction_of_measure(domain_arg: domain_arg_t, entry_cells: wp.array(dtype=int32),
                            entries: wp.array(dtype=int32), particles: wp.array(dtype=int32),
                            coords: wp.array(dtype=Coords), base: wp.array(dtype=float32),
                            measures: wp.array(dtype=float32), out: wp.array(dtype=float32)):
        j = wp.tid()
        c = entry_cells[j]
        if c >= 0:
            s = make_free_sample(to_geometry(domain_arg.index, c), coords[j])
            out[j] = base[entries[j]] * measures[particles[j]] / measure(domain_arg.geo, s)

    for fn in (coords_of, fraction_given, fraction_of_measure):
        kernels[fn.__name__] = wp.kernel(fn, key=f"fem_pic_{fn.__name__}_{tag}")

    if position_type is not None:
        lookup, coordinates = geo.cell_lookup, geo.cell_coordinates

        def lookup_cells(domain_arg: domain_arg_t, world: wp.array(dtype=position_type), max_dist: float,
                         cells: wp.array(dtype=int32)):
            i = wp.tid()
            cells[i] = lookup(domain_arg.geo, world[i], max_dist).element_index

        def coords_at(domain_arg: domain_arg_t, entry_cells: wp.array(dtype=int32),
                      particles: wp.array(dtype=int32), world: wp.array(dtype=position_type),
                      out: wp.array(dtype=Coords)):
            j = wp.tid()
            c = entry_cells[j]
            if c >= 0:
                out[j] = coordinates(domain_arg.geo, c, world[particles[j]])
            else:
                out[j] = Coords(OUTSIDE, OUTSIDE, OUTSIDE)

        filtered = geo.make_filtered_cell_lookup()

        def filtered_lookup_cells(domain_arg: domain_arg_t, world: wp.array(dtype=position_type), max_dist: float,
                                  codes: wp.array(dtype=int32), envs: wp.array(dtype=int32),
                                  cells: wp.array(dtype=int32)):
            i = wp.tid()
            cells[i] = filtered(domain_arg.geo, world[i], max_dist, codes, envs[i]).element_index

        kernels["lookup"] = wp.kernel(lookup_cells, key=f"fem_pic_lookup_{tag}")
        kernels["filtered_lookup"] = wp.kernel(filtered_lookup_cells, key=f"fem_pic_filtered_lookup_{tag}")
        kernels["coords_at"] = wp.kernel(coords_at, key=f"fem_pic_coords_at_{tag}")
    _KERNELS[key] = kernels
    return kernels


_KERNELS: dict = {}


# --- device functions: element e's entries are offsets[e] .. offsets[e + 1], e being the geometry's
# element index, or the domain's with use_domain_element_indices
@func
def _count_geo(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32):
    return qp_arg.cell_particle_offsets[element_index + 1] - qp_arg.cell_particle_offsets[element_index]


@func
def _coords_geo(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32, index: int32):
    return qp_arg.cell_particle_coords[qp_arg.cell_particle_offsets[element_index] + index]


@func
def _weight_geo(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32, index: int32):
    return qp_arg.cell_particle_fraction[qp_arg.cell_particle_offsets[element_index] + index]


@func
def _index_geo(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32, index: int32):
    return qp_arg.cell_particle_indices[qp_arg.cell_particle_offsets[element_index] + index]


@func
def _count_dom(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32):
    return qp_arg.cell_particle_offsets[domain_index + 1] - qp_arg.cell_particle_offsets[domain_index]


@func
def _coords_dom(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32, index: int32):
    return qp_arg.cell_particle_coords[qp_arg.cell_particle_offsets[domain_index] + index]


@func
def _weight_dom(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32, index: int32):
    return qp_arg.cell_particle_fraction[qp_arg.cell_particle_offsets[domain_index] + index]


@func
def _index_dom(elt_arg: Any, qp_arg: PicQuadratureArg, domain_index: int32, element_index: int32, index: int32):
    return qp_arg.cell_particle_indices[qp_arg.cell_particle_offsets[domain_index] + index]


_by_geometry_element = (_count_geo, _coords_geo, _weight_geo, _index_geo)
_by_domain_element = (_count_dom, _coords_dom, _weight_dom, _index_dom)
