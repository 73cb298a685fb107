"""A topology's element-to-node table on the host side: one kernel launch that calls the topology's
`element_node_index` for every node of every cell. Space partitions read it to find the nodes of a
set of cells; nothing here depends on a partition."""

from __future__ import annotations

import warp_nb as wp


def element_node_indices(topology, device=None):
    """(cell_count, NODES_PER_ELEMENT) warp int array of the global node of each element node."""
    geo, npe = topology.geometry, topology.NODES_PER_ELEMENT
    kernel = _kernel(geo.CellArg, topology.TopologyArg, topology.element_node_index)
    out = wp.empty((geo.cell_count(), npe), dtype=int, device=device)
    if geo.cell_count():
        wp.launch(kernel, dim=(geo.cell_count(), npe), device=out.device,
                  inputs=[geo.cell_arg_value(out.device), topology.topo_arg_value(out.device), out])
    return out


def _kernel(cell_arg_t, topo_arg_t, node_index):
    key = (cell_arg_t, topo_arg_t, node_index)
    kernel = _KERNELS.get(key)
    if kernel is None:
        def read_nodes(cell_arg: cell_arg_t, topo_arg: topo_arg_t, out: wp.array2d(dtype=int)):
            c, n = wp.tid()
            out[c, n] = node_index(cell_arg, topo_arg, c, n)

        kernel = _KERNELS[key] = wp.kernel(read_nodes, key=f"fem_element_nodes_{len(_KERNELS)}")
    return kernel


_KERNELS: dict = {}
