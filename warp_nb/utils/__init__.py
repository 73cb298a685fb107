"""`wp.utils`, as Warp offers it: reductions, scans, sorts, run-length encoding and casts over
arrays (written as warp_nb kernels, so they run on any device), mesh adjacency, graph coloring, turning a Python
callable into a `wp.func`, warnings, and timing (`ScopedTimer`, `timing_begin/end/print`).

The submodules load on first use (PEP 562): several define kernels when they load, which needs the
compiler, and `import warp_nb` should not pay for that (tests/unit/test_lazy_imports.py)."""

import importlib as _importlib

#: public name -> the submodule that defines it
_WHERE = {
    **dict.fromkeys(("GraphColoringAlgorithm", "graph_coloring_assign", "graph_coloring_balance",
                     "graph_coloring_get_groups"), "graph_coloring"),
    "AllocatorRmm": "..runtime.allocators",  # RAPIDS memory as an allocator; ImportError without rmm
    **dict.fromkeys(("ScopedLogLevel", "create_warp_function", "transform_expand", "warn"), "functions"),
    **dict.fromkeys(("MeshAdjacency", "MeshEdge"), "mesh_adjacency"),
    **dict.fromkeys(("array_inner", "array_sum"), "reduce"),
    **dict.fromkeys(("array_cast", "array_scan", "runlength_encode"), "scan"),
    **dict.fromkeys(("radix_sort_pairs", "segmented_sort_pairs"), "sort"),
    **dict.fromkeys(("TIMING_ALL", "TIMING_GRAPH", "TIMING_KERNEL", "TIMING_KERNEL_BUILTIN", "TIMING_MEMCPY",
                     "TIMING_MEMSET", "ScopedTimer", "TimingResult", "constant", "timing_begin", "timing_end",
                     "timing_print"), "timing"),
}
#: wp.load_module(wp.utils) finds nothing to compile until a utility is first called: not an error
__warp_nb_kernels_on_first_use__ = True
__all__ = sorted(_WHERE)  # noqa: PLE0605  (`from warp_nb.utils import *` loads them all, as before)
#: the submodules, reachable as attributes as when this package imported them all
_SUBMODULES = ("array_ops", "coloring_algorithms", "functions", "graph_coloring",
               "mesh_adjacency", "reduce", "scan", "sort", "timing")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module("." + name, __name__)
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(where if where.startswith("..") else "." + where, __name__), name)
    globals()[name] = value  # once: later lookups are ordinary
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE) | set(_SUBMODULES))
