"""Evaluate every device function of a `fem.Geometry` on every cell and side at a few element
coordinates, and return the values as numpy arrays. Written against Warp's public API only, so the
same code runs on warp_nb (the tests) and on warp-lang (`python geometry_values.py` with warp-lang
installed prints the values the tests' hard-coded numbers were read from)."""

import numpy as np

# element coordinates evaluated at: generic points, corners and a point on an edge. Each sums to 1, so
# that it is also a point of a triangle in barycentric coordinates (triangle cells, tetrahedron faces).
COORDS = [(0.5, 0.3, 0.2), (0.1, 0.2, 0.7), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.25, 0.75, 0.0)]


def cell_centre_coords(geo):
    """The centre of the reference cell, in its coordinates (barycentric for triangles)."""
    ref = geo.reference_cell().prototype.measure()
    if geo.cell_dimension == 2 and ref < 1.0:
        return (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)
    if geo.cell_dimension == 3 and ref < 1.0:
        return (0.25, 0.25, 0.25)
    return (0.5, 0.5, 0.5)


def evaluate(wp, fem, geo) -> dict:
    """{"cell_pos": (cells, coords, dim), "cell_F": (cells, coords, dim, cell_dim), "cell_measure",
    "cell_inv_F" or "cell_normal", and for sides "pos", "F", "measure", "ratio", "normal",
    "inner", "outer", "inner_coords", "outer_coords", "back_inner", "back_outer", "inner_pos",
    "outer_pos", "inner_inv_F", "outer_inv_F"; "boundary": the boundary side indices; "cell_centre":
    each cell's centre}."""
    dim, cdim = geo.dimension, geo.cell_dimension
    sdim = cdim - 1
    vec = wp.types.vector(dim, wp.float32)
    cell_mat = wp.types.matrix(shape=(dim, cdim), dtype=wp.float32)
    inv_mat = wp.types.matrix(shape=(cdim, dim), dtype=wp.float32)
    # a segment side's gradient is a vector (a (dim, 1) matrix would not build on warp-lang)
    side_mat = vec if sdim == 1 else wp.types.matrix(shape=(dim, sdim), dtype=wp.float32)
    manifold = dim != cdim
    side_normals = geo.side_normal is not None  # none for the edges of a surface in 3-D
    nc = len(COORDS)
    ncell, nside, nbound = geo.cell_count(), geo.side_count(), geo.boundary_side_count()
    coords = wp.array(np.array(COORDS + [cell_centre_coords(geo)], dtype=np.float32), dtype=wp.vec3)

    @wp.kernel
    def cells(ca: geo.CellArg, C: wp.array(dtype=wp.vec3), pos: wp.array2d(dtype=vec),
              F: wp.array2d(dtype=cell_mat), measure: wp.array2d(dtype=float),
              inv_F: wp.array2d(dtype=inv_mat), normal: wp.array2d(dtype=vec)):
        c, j = wp.tid()
        s = fem.Sample()
        s.element_index = c
        s.element_coords = C[j]
        pos[c, j] = geo.cell_position(ca, s)
        F[c, j] = geo.cell_deformation_gradient(ca, s)
        measure[c, j] = geo.cell_measure(ca, s)
        inv_F[c, j] = geo.cell_inverse_deformation_gradient(ca, s)
        if wp.static(manifold):
            normal[c, j] = geo.cell_normal(ca, s)

    @wp.kernel
    def sides(sa: geo.SideArg, C: wp.array(dtype=wp.vec3), pos: wp.array2d(dtype=vec),
              F: wp.array2d(dtype=side_mat), measure: wp.array2d(dtype=float), ratio: wp.array2d(dtype=float),
              normal: wp.array2d(dtype=vec), cells: wp.array2d(dtype=wp.vec2i), cell_coords: wp.array3d(dtype=wp.vec3),
              cell_pos: wp.array3d(dtype=vec), inv_F: wp.array3d(dtype=inv_mat)):
        i, j = wp.tid()
        s = fem.Sample()
        s.element_index = i
        s.element_coords = C[j]
        pos[i, j] = geo.side_position(sa, s)
        F[i, j] = geo.side_deformation_gradient(sa, s)
        measure[i, j] = geo.side_measure(sa, s)
        ratio[i, j] = geo.side_measure_ratio(sa, s)
        if wp.static(side_normals):
            normal[i, j] = geo.side_normal(sa, s)
        inner = geo.side_inner_cell_index(sa, i)
        outer = geo.side_outer_cell_index(sa, i)
        cells[i, j] = wp.vec2i(inner, outer)
        ic = geo.side_inner_cell_coords(sa, i, C[j])
        oc = geo.side_outer_cell_coords(sa, i, C[j])
        cell_coords[i, j, 0] = ic
        cell_coords[i, j, 1] = oc
        cell_coords[i, j, 2] = geo.side_from_cell_coords(sa, i, inner, ic)
        cell_coords[i, j, 3] = geo.side_from_cell_coords(sa, i, outer, oc)
        ca = geo.side_to_cell_arg(sa)
        cs = fem.Sample()
        cs.element_index = inner
        cs.element_coords = ic
        cell_pos[i, j, 0] = geo.cell_position(ca, cs)
        cs.element_index = outer
        cs.element_coords = oc
        cell_pos[i, j, 1] = geo.cell_position(ca, cs)
        inv_F[i, j, 0] = geo.side_inner_inverse_deformation_gradient(sa, s)
        inv_F[i, j, 1] = geo.side_outer_inverse_deformation_gradient(sa, s)

    @wp.kernel
    def boundary(sia: geo.SideIndexArg, out: wp.array(dtype=int)):
        i = wp.tid()
        out[i] = geo.boundary_side_index(sia, i)

    device = "cpu"
    c_out = [wp.zeros((ncell, nc + 1), dtype=t) for t in (vec, cell_mat, float, inv_mat, vec)]
    wp.launch(cells, dim=(ncell, nc + 1), inputs=[geo.cell_arg_value(device), coords, *c_out], device=device)
    s_out = [wp.zeros((nside, nc), dtype=t) for t in (vec, side_mat, float, float, vec, wp.vec2i)]
    s_out += [wp.zeros((nside, nc, 4), dtype=wp.vec3), wp.zeros((nside, nc, 2), dtype=vec),
              wp.zeros((nside, nc, 2), dtype=inv_mat)]
    wp.launch(sides, dim=(nside, nc), inputs=[geo.side_arg_value(device), coords, *s_out], device=device)
    bound = wp.zeros(max(nbound, 1), dtype=int)
    if nbound:
        wp.launch(boundary, dim=nbound, inputs=[geo.side_index_arg_value(device), bound], device=device)

    v = {k: a.numpy()[:, :nc] for k, a in zip(("cell_pos", "cell_F", "cell_measure", "cell_inv_F", "cell_normal"), c_out)}
    v["cell_centre"] = c_out[0].numpy()[:, nc]
    side = {k: a.numpy() for k, a in zip(("pos", "F", "measure", "ratio", "normal", "cells", "cell_coords",
                                          "cell_pos", "inv_F"), s_out)}
    v.update(pos=side["pos"], F=side["F"][..., None] if sdim == 1 else side["F"], measure=side["measure"],
             ratio=side["ratio"], normal=side["normal"], inner=side["cells"][..., 0], outer=side["cells"][..., 1],
             inner_coords=side["cell_coords"][:, :, 0], outer_coords=side["cell_coords"][:, :, 1],
             back_inner=side["cell_coords"][:, :, 2], back_outer=side["cell_coords"][:, :, 3],
             inner_pos=side["cell_pos"][:, :, 0], outer_pos=side["cell_pos"][:, :, 1],
             inner_inv_F=side["inv_F"][:, :, 0], outer_inv_F=side["inv_F"][:, :, 1],
             boundary=bound.numpy()[:nbound])
    return v


if __name__ == "__main__":  # print warp-lang's values for a small geometry
    import sys

    import warp as wp_ref
    import warp.fem as fem_ref

    np.set_printoptions(precision=4, suppress=True, linewidth=160)
    geo = eval(sys.argv[1], {"wp": wp_ref, "fem": fem_ref, "np": np})
    for key, val in evaluate(wp_ref, fem_ref, geo).items():
        print(key, val.shape, "\n", val)
