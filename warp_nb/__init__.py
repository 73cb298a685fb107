"""warp_nb: a notebook-first, Warp-compatible kernel language.

    import warp_nb as wp

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    wp.launch(saxpy, dim=n, inputs=[2.0, x, y])
"""

import math as _math

from . import builtins as _builtins  # noqa: F401  (fills the registry)

# wp.utils and Warp's timing API (geometry-utils branch)
from . import (  # noqa: F401
    config,
    types,
    utils,
)
from . import cuda as _cuda  # noqa: F401  (registers the CUDA backend; loads no driver)
from .aot import compile_aot_module  # noqa: F401
from .arrays.array import array, array1d, array2d, array3d, array4d, clone  # noqa: F401
from .arrays.create import copy, empty, empty_like, from_numpy, full, full_like, ones, ones_like, zeros, zeros_like  # noqa
from .arrays.dlpack import from_dlpack, from_jax, from_torch, to_dlpack, to_jax, to_torch  # noqa: F401
from .builtins.geometry import BvhQuery, HashGridQuery, MeshQueryAABB, MeshQueryPoint, MeshQueryRay  # noqa
from .builtins.registry import BUILTINS as _BUILTINS
from .cuda.streams import (  # noqa: F401
    Event,
    ScopedStream,
    Stream,
    get_event_elapsed_time,
    get_stream,
    record_event,
    set_stream,
    synchronize_event,
    synchronize_stream,
    wait_event,
    wait_stream,
)
from .errors import (  # noqa: F401
    CompilerNotFoundError,
    KernelCompileError,
    KernelError,
    KernelNameError,
    KernelSyntaxError,
    KernelTypeError,
)
from .geometry import Bvh, HashGrid, MarchingCubes, Mesh, Volume  # noqa: F401
from .launcher import launch  # noqa: F401
from .program.func import Function, adjoint, func, func_grad, func_replay  # noqa: F401
from .program.kernel import Kernel, kernel  # noqa: F401
from .program.module import Module, force_load, get_module, load_module  # noqa: F401
from .runtime.devices import (  # noqa: F401
    Device,
    DeviceError,
    ScopedDevice,
    get_cuda_device_count,
    get_cuda_devices,
    get_device,
    get_devices,
    get_preferred_device,
    is_cuda_available,
    is_device_available,
    set_device,
    synchronize,
    synchronize_device,
)
from .tape import Tape  # noqa: F401
from .types import *
from .types import (  # noqa  # noqa: F401
    bool,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    matrix,
    quaternion,
    transformation,
    uint8,
    uint16,
    uint32,
    uint64,
    vector,
)
from .types.structs import struct  # noqa: F401
from .utils import (  # noqa: F401  # noqa: F401,E402
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
    transform_expand,
)
from .version import __version__  # noqa: F401

for _name, _builtin in _BUILTINS.items():
    if _builtin.export and _name not in globals():
        globals()[_name] = _builtin

pi = _math.pi
half_pi = _math.pi / 2
tau = 2 * _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
phi = (1 + 5 ** 0.5) / 2
ln2, ln10, log2e, log10e = _math.log(2), _math.log(10), 1 / _math.log(2), 1 / _math.log(10)


def init():
    """Initialise now rather than at the first launch (as wp.init() does in Warp): load the CPU
    runtime, identify the compiler and the native headers, and run the compiler front end once
    on a tiny kernel. Calling it is optional; it is idempotent."""
    from .program.module import warm_up
    warm_up()


def load_ipython_extension(ipython):
    """`%load_ext warp_nb`: the notebook magics."""
    from .magics import load_ipython_extension as load
    load(ipython)
