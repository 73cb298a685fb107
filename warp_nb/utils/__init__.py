"""`wp.utils`, as Warp offers it: reductions, scans, sorts, run-length encoding and casts over
arrays (written as warp_nb kernels, so they run on any device), mesh adjacency, graph coloring, turning a Python
callable into a `wp.func`, warnings, and timing (`ScopedTimer`, `timing_begin/end/print`)."""

from .graph_coloring import (  # noqa: F401
    GraphColoringAlgorithm,
    graph_coloring_assign,
    graph_coloring_balance,
    graph_coloring_get_groups,
)
from ..runtime.allocators import AllocatorRmm  # noqa: F401  (RAPIDS memory as an allocator; ImportError without rmm)
from .functions import ScopedLogLevel, create_warp_function, transform_expand, warn  # noqa: F401
from .mesh_adjacency import MeshAdjacency, MeshEdge  # noqa: F401
from .reduce import array_inner, array_sum  # noqa: F401
from .scan import array_cast, array_scan, runlength_encode  # noqa: F401
from .sort import radix_sort_pairs, segmented_sort_pairs  # noqa: F401
from .timing import (  # noqa: F401
    TIMING_ALL,
    TIMING_GRAPH,
    TIMING_KERNEL,
    TIMING_KERNEL_BUILTIN,
    TIMING_MEMCPY,
    TIMING_MEMSET,
    ScopedTimer,
    TimingResult,
    constant,
    timing_begin,
    timing_end,
    timing_print,
)
