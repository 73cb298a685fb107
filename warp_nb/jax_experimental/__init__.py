"""`warp.jax_experimental` for the CPU: `jax_kernel` (a Warp kernel as a JAX operation, with
gradients through the kernel's adjoint when `enable_backward=True`) and `jax_callable` (a Python
function that launches kernels, as a JAX operation), with Warp's signatures and calling
convention. Both run inside `jax.jit` through `jax.pure_callback` (see callback.py); wrappers
are cached per configuration as Warp caches them. jax itself is imported on first call."""

from __future__ import annotations

import enum
import numbers

from ..compiler.annotations import parameter_names, parameter_types
from ..runtime.devices import get_device
from .callback import JaxOperation, split_parameters

_CACHE: dict = {}


class JaxModulePreloadMode(enum.Enum):
    """Which devices Warp loads a kernel's module on when the wrapper is made. On the CPU there is
    one device and kernels compile on first launch: accepted for compatibility, no effect."""
    NONE = 0
    CURRENT_DEVICE = 1
    ALL_DEVICES = 2


ModulePreloadMode = JaxModulePreloadMode


class JaxCallableGraphMode(enum.Enum):
    """How Warp captures a jax_callable (CUDA graphs). The CPU has no graphs: accepted, no effect."""
    NONE = 0
    JAX = 1
    WARP = 2
    WARP_STAGED = 3
    WARP_STAGED_EX = 4


GraphMode = JaxCallableGraphMode


def _check_block_dim(block_dim) -> None:
    if block_dim is None:
        return
    if isinstance(block_dim, bool) or not isinstance(block_dim, numbers.Integral):
        raise TypeError(f"block_dim must be an integer or None, got {type(block_dim).__name__}")
    if block_dim <= 0:
        raise ValueError(f"block_dim must be positive, got {block_dim}")


def _frozen(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def jax_kernel(kernel, num_outputs=1, vmap_method="broadcast_all", launch_dims=None, output_dims=None,
               in_out_argnames=None, module_preload_mode=JaxModulePreloadMode.CURRENT_DEVICE, enable_backward=False,
               has_side_effect=False, block_dim=None):
    """A JAX operation launching `kernel`: call it with the kernel's inputs (JAX arrays, static
    scalars), get a list of its outputs. The last `num_outputs` parameters are outputs (in-out
    arrays named in `in_out_argnames` count among them and are passed in too); launch dimensions
    default to the first array input's shape, output shapes to the launch dimensions. With
    `enable_backward=True`, jax.grad runs the kernel's adjoint."""
    _check_block_dim(block_dim)
    if not getattr(kernel, "_wp_kernel_", False):
        raise TypeError(f"jax_kernel expects a kernel (a function decorated with @wp.kernel), got "
                        f"{type(kernel).__name__}")
    if enable_backward and in_out_argnames:
        raise ValueError("in_out_argnames are not supported with enable_backward=True (an array both read and "
                         "overwritten has no well-defined gradient here)")
    if enable_backward and output_dims is not None:
        raise NotImplementedError("output_dims is not supported with enable_backward=True: outputs take the launch dimensions")
    key = ("kernel", id(kernel), num_outputs, vmap_method, _frozen(launch_dims), _frozen(output_dims),
           tuple(in_out_argnames or ()), bool(enable_backward), block_dim)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is kernel:
        return cached[1]
    what = f"jax_kernel({kernel.key})"
    params = split_parameters(list(kernel.param_names), list(kernel.param_types), num_outputs, in_out_argnames, what)
    if kernel.is_generic:
        raise TypeError(f"{what}: the kernel is generic; wrap a concrete overload "
                        "(kernel.add_overload([...types...]) or wp.overload(kernel, [...types...]))")
    from ..launch.launcher import launch, launcher_for

    # the forward and backward launches in blocks of `block_dim` lanes (None: the launch's default,
    # one lane on the CPU, as in Warp: wp.block_dim() reads 1 there)
    def run(args, dims):
        launch(kernel, dim=dims, inputs=args, device="cpu", block_dim=block_dim)

    def backward(args, adj_args, dims):
        launch(kernel, dim=dims, inputs=args, adj_inputs=adj_args, device="cpu", adjoint=True, block_dim=block_dim)

    op = JaxOperation(params, run, what, launch_dims, output_dims, vmap_method,
                      backward=backward if enable_backward else None)
    op.block_dim = int(block_dim) if block_dim is not None else None
    # a wp.tid() in a branch that is constant False is compiled away, as in Warp
    op.uses_thread_index = lambda: launcher_for(kernel, get_device("cpu")).tid_count > 0
    _CACHE[key] = (kernel, op)
    return op


def jax_callable(func, num_outputs=1, graph_compatible=None, graph_mode=JaxCallableGraphMode.JAX, vmap_method="broadcast_all",
                 output_dims=None, in_out_argnames=None, stage_in_argnames=None, stage_out_argnames=None,
                 graph_cache_max=None, module_preload_mode=JaxModulePreloadMode.CURRENT_DEVICE, has_side_effect=False):
    """A JAX operation calling `func`, a Python function whose annotated parameters are its inputs
    then its outputs (wp.array types; scalars are static) and which launches kernels on them.
    Output shapes come from `output_dims` (one shape, or a dict by output name), else from the first
    array input. No gradients: Warp's jax_callable has none either."""
    if not callable(func):
        raise TypeError(f"jax_callable expects a function, got {type(func).__name__}")
    key = ("callable", id(func), num_outputs, vmap_method, _frozen(output_dims), tuple(in_out_argnames or ()),
           JaxCallableGraphMode(graph_mode), frozenset(stage_in_argnames or ()), frozenset(stage_out_argnames or ()))
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is func:
        return cached[1]
    what = f"jax_callable({getattr(func, '__name__', func)})"
    names = parameter_names(func)
    params = split_parameters(names, parameter_types(func, "jax_callable"), num_outputs, in_out_argnames, what)

    graph_mode = JaxCallableGraphMode(graph_mode)

    def run(args, dims):
        func(*args)

    op = JaxOperation(params, run, what, None, output_dims, vmap_method)
    op.graph_mode = graph_mode
    # staging copies buffers for CUDA graph capture; kept as wrapper state, as Warp keeps it
    op.stage_in_argnames, op.stage_out_argnames = set(stage_in_argnames or ()), set(stage_out_argnames or ())
    if graph_mode not in (JaxCallableGraphMode.NONE, JaxCallableGraphMode.JAX):
        op.refusal = (f"{what}: graph mode {graph_mode.name} captures a CUDA graph, which a call on the CPU cannot; "
                      "use JaxCallableGraphMode.NONE or JAX")
    _CACHE[key] = (func, op)
    return op


def clear_jax_callable_graph_cache(callable=None) -> None:
    """Warp's: drop the CUDA graphs a jax_callable captured (all callables' with None). warp_nb's
    jax_callable runs on the CPU and captures no graphs, so there is nothing to drop; the argument
    is still checked."""
    if callable is not None and not isinstance(callable, JaxOperation):
        raise TypeError(f"clear_jax_callable_graph_cache expects what wp.jax_experimental.jax_callable returned (or "
                        f"None), got {type(callable).__name__}")
