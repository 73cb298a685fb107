"""`wp.launch`: find the kernel's launcher for the device (and, for a tile kernel, the lanes of
its blocks), turn the dim into launch bounds (bounds.py), pack the arguments into the bytes of its
argument struct (args.py) and run it through the native runtime or the CUDA target.

Launch cost matters (simulations launch thousands of small kernels): a launch that repeats one
seen before costs a dictionary lookup, a generated packing function and one foreign call."""

from __future__ import annotations

import time

import numpy as np

from .. import config, types as T
from ..runtime import recording
from ..arrays.array import array
from ..errors import KernelError, at_callers_line, get_logger
from ..runtime import native
from ..runtime.block_dim import resolve_block_dim
from ..runtime.devices import Device, DeviceError, cpu_thread_count, current_device, get_device
from ..runtime.target import failed_check
from ..types.array_type import ArrayType
from ..types.generic import is_generic
from ..program.cuda_options import module_cluster_dim
from ..program.signatures import concrete_signature
from .args import composite_from_single_value, convert_argument, make_packer  # noqa: F401
from .capture import refuse_foreign_descriptors
from .adjoint import launch_adjoint, with_grad
from .plan import make_plan, usual_function
from .bounds import (THREAD_LIMIT, LaunchBounds, bounds_cache, block_bounds, canonical_dim, fit_to_tid, too_many,
                     launch_bounds, too_many_threads)

class Launcher:
    """One compiled kernel made ready to launch on one device: its entry point, its packing
    function and what the target needs to run it. Made by Kernel.launcher, used by wp.launch."""

    def __init__(self, kernel, compiled, device: Device, mode: str, backward: bool = False, types_=None):
        self.kernel = kernel
        self.compiled = compiled
        self.device = device
        self.target = device.target
        self.mode = mode
        self.epoch = config.epoch  # settings and definitions it was made under (see config.epoch)
        loaded = compiled.loaded
        self.entry = loaded.adjoint_entry if backward else loaded.entry
        self.stats = loaded.stats_address
        self.debug_state = loaded.debug_state
        #: deterministic mode (compiler/deterministic.py): how the entry point runs, and the replay
        #: of its logged float atomics (None: nothing to replay)
        direction = "backward" if backward else "forward"
        self.deterministic = next((e.deterministic for e in compiled.unit.entry_points if e.direction == direction), "")
        self.replay = getattr(loaded, "adjoint_replay" if backward else "replay", None) if self.deterministic else None
        #: the CPU fast path: wp.launch calls the native runtime itself (and reads the check state)
        self.direct = self.target.direct and not self.deterministic
        self.tid_count = compiled.typed.tid_count
        #: the leading launch dimensions whose coordinates wp.tid() reads (their extents must fit its
        #: int32): none without wp.tid(); all four for a block kernel (its lanes read every axis)
        self.tid_reads = 4 if compiled.typed.uses_blocks else compiled.typed.tid_count
        self.tid_arity = compiled.typed.tid_arity  # (the rank of Launch.bounds.shape)
        self.signature = tuple(types_) if kernel.is_generic else None  # a generic kernel's concrete types
        #: lanes per block the code was typed for, and whether that matters to it (a tile kernel, or
        #: one that asks wp.block_dim()): such kernels are compiled again for other lane counts
        self.block_dim = compiled.typed.block_dim
        self.uses_blocks = compiled.typed.uses_blocks
        #: CPU fibers may run one lane per block for all (compiler/lanes.py; forward code only)
        self.lanes_agree = device.is_cpu and not backward and compiled.typed.lanes_agree
        self.pack = make_packer(kernel, device, types_)
        self.nparams = len(kernel.param_names)
        #: what the native usual launch needs (plan.py), or None: its launches take the Python path
        self.plan = make_plan(self, types_ if types_ is not None else kernel.param_types)

    resolved_block_dim = 1  # the block dim the launch asked for, resolved (set by launcher_for)
    module_exec = None  # its module's ModuleExec for that device and block dim (set by launcher_for)

    @staticmethod
    def threads() -> int:
        return config.cpu_threads or _CPU_COUNT


#: Launch observers (the notebook's timing panel and %wp_time): each is called as
#: listener(kernel, dim, device, seconds, adjoint) after a launch returns. Opt-in: while the list
#: is empty a launch pays one truth test for it.
listeners: list = []
_observing = False


def _launch_observed(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, stream, adjoint, *rest):
    """A launch timed for the listeners (a launch made inside a listener is not timed), and said
    through the logger's info first with wp.config.print_launches, as Warp says it (whatever the
    log level)."""
    global _observing
    _observing = True
    try:
        if config.print_launches:
            get_logger().info(f"kernel: {getattr(kernel, 'key', kernel)} dim: {dim} inputs: {_described(inputs)} "
                     f"outputs: {_described(outputs)} device: {get_device(device)}")
        t0 = time.perf_counter()
        launch(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, stream, adjoint, *rest)
        seconds = time.perf_counter() - t0
        device = get_device(device)
        for listener in list(listeners):
            listener(kernel, dim, device, seconds, bool(adjoint))
    finally:
        _observing = False


def _described(values) -> str:
    items = [f"array(shape={v.shape}, dtype={T.type_name(v.dtype)})" if hasattr(v, "shape") and hasattr(v, "dtype")
             else str(v) for v in values]
    return f"[{', '.join(items)}]"


def _print_launches(on) -> None:
    """wp.config.print_launches: while it is set, every launch goes through _launch_observed (one
    listener that does nothing keeps `listeners` true)."""
    if on and _say_launch not in listeners:
        listeners.append(_say_launch)
    elif not on and _say_launch in listeners:
        listeners.remove(_say_launch)


def _say_launch(*_args) -> None:
    """(the listener print_launches adds: the launch was said before it ran)"""


config.on_change("print_launches", _print_launches)
_print_launches(config.print_launches)  # (set before this module loaded)


def launch_tiled(kernel, dim, inputs=(), outputs=(), adj_inputs=(), adj_outputs=(), device=None, stream=None,
                 adjoint=False, record_tape=True, record_cmd=False, max_blocks=0, block_dim=256):
    """Run `kernel` over `dim` blocks (Warp's tiled launch): wp.tid() gives a block's coordinates,
    and unpacked into one more index, a thread's lane in its block. A block has block_dim lanes
    on CUDA, and on the CPU with wp.config.enable_cpu_blocks; otherwise one (as on Warp's CPU)."""
    try:
        dims = canonical_dim(dim)
    except (TypeError, ValueError) as e:
        raise at_callers_line(e) from None
    lanes = lanes_per_block(get_device(device) if device is not None else current_device(), block_dim)
    try:
        return launch(kernel, dims + (lanes,), inputs, outputs, adj_inputs, adj_outputs, device, stream, adjoint,
                      record_tape, record_cmd, max_blocks, block_dim)
    except KernelError as e:
        del kernel  # see launch(): a kept error must not keep a kernel that failed to build alive
        raise e.with_traceback(None) from None


def lanes_per_block(device, block_dim) -> int:
    """The lanes a block of a launch has, as Warp resolves block_dim (runtime/block_dim.py): on the
    CPU one, unless wp.config.enable_cpu_blocks and more are asked for; on CUDA block_dim."""
    return resolve_block_dim(device, block_dim)


def _block_flags(launcher, dim, adjoint: bool = False) -> int:
    """launch_t::one_lane of a launch in blocks (native/tiles/block_cpu.h run_fiber_blocks; CUDA:
    block.h block_frame_t): 1 (CPU) when one lane may run for all (_lanes_agree); 4 (CPU) when the
    lanes split tile statements (wp.config.cpu_split_tiles); 2 when the lanes may share the tiles that
    compiler/block_uniform.py found uniform, which it did assuming that every wp.tid() component
    but the last one unpacked is the block's: the trailing extents from that last one on come in
    whole blocks."""
    if adjoint:
        return 0
    cpu = launcher.device.is_cpu
    # bit 4, the CPU's lanes split the statements writing shared tiles (CUDA's always do: block.h)
    flags = 0
    if cpu:
        flags = (1 if _lanes_agree(launcher, dim) else 0) | (4 if config.cpu_split_tiles else 0)
    k = launcher.tid_count
    if k <= 1:
        return flags | 2
    shape = canonical_dim(dim)
    trailing = 1
    for d in shape[k - 1:]:
        trailing *= d
    return flags | (2 if len(shape) >= k and trailing % launcher.block_dim == 0 else 0)


def _lanes_agree(launcher, dim) -> bool:
    """Whether the lanes of every block compute the same, so the CPU may run one lane per block for
    all (launch_t::one_lane): the kernel's code lets them (compiler/lanes.py lanes_agree) and they
    read the same wp.tid() coordinates, which holds when the kernel reads none, or only leading
    ones whose trailing extents come in whole blocks (the lane axis of launch_tiled, which a kernel
    that does not unpack it never sees)."""
    if not launcher.lanes_agree:
        return False
    k = launcher.tid_count
    if k == 0:
        return True
    shape = canonical_dim(dim)
    trailing = 1
    for d in shape[k:]:
        trailing *= d
    return k < len(shape) and trailing % launcher.block_dim == 0


def launch(kernel, dim, inputs=(), outputs=(), adj_inputs=(), adj_outputs=(), device=None, stream=None,
           adjoint=False, record_tape=True, record_cmd=False, max_blocks=0, block_dim=None):
    """Run `kernel` over `dim` threads (an int, or a tuple of up to 4 ints). `block_dim`: the
    threads of a CUDA block (default 256), the lanes of a CPU block with wp.config.enable_cpu_blocks
    (default 1)."""
    if not (outputs or adjoint or record_cmd or listeners):  # the usual launch: one native call (plan.py)
        failed = _usual(kernel, dim, inputs, device, block_dim)
        if failed is None:
            return None
        if failed is not False:  # it ran and a check failed: the error, raised at the caller's line
            raise at_callers_line(failed_check(kernel.last_launch[2], failed))
    if listeners and not _observing:
        return _launch_observed(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device, stream, adjoint,
                                record_tape, record_cmd, max_blocks, block_dim)
    if device is None:
        device = current_device()  # the default of this moment, not of the first launch
    try:
        # most launches repeat the kernel's last one: the same device object (or name) and block_dim
        last = kernel.last_launch
        if last[0] is device and last[1] == block_dim:
            launcher = last[2]
        else:
            launcher = kernel.launchers.get(launcher_key(device if device.__class__ is str else device.alias,
                                                         False, None, block_dim))
            if launcher is not None:
                kernel.last_launch = (device, block_dim, launcher, launcher.plan)
    except AttributeError:
        if not getattr(kernel, "_wp_kernel_", False):
            raise at_callers_line(TypeError(f"wp.launch expects a kernel (a function decorated with @wp.kernel), "
                                            f"got {type(kernel).__name__}")) from None
        raise at_callers_line(TypeError(f"wp.launch: device must be a device name such as 'cpu' or 'cuda:0', or a "
                                        f"wp.Device, got {device!r}")) from None
    args = (*inputs, *outputs) if outputs else inputs
    if not hasattr(args, "__len__"):
        raise at_callers_line(TypeError(f"wp.launch: inputs must be a list of the kernel's arguments, "
                                        f"got {type(inputs).__name__}"))
    if launcher is None or launcher.epoch != config.epoch:
        try:
            launcher = _make_launcher(kernel, device, args, block_dim)
        except KernelError as e:
            # IPython keeps the last error with its frames' locals (%debug): they must not keep a kernel
            # that failed to build alive once the next cell redefines it, so the error leaves with no
            # frame below this one, and this one without the kernel
            del kernel, last, launcher
            raise e.with_traceback(None) from None
        if launcher.signature is None:
            kernel.last_launch = (device, block_dim, launcher, launcher.plan)
    if len(args) != launcher.nparams:
        _wrong_count(kernel, args)
    if adjoint:
        return launch_adjoint(kernel, dim, args, (*adj_inputs, *adj_outputs), launcher, block_dim, record_cmd)
    try:  # inline: most launches repeat a dim seen before (one any kernel may use: bounds.launch_bounds)
        bounds, ndim, size = bounds_cache[dim]
    except (KeyError, TypeError):  # new, or unhashable (a list or an array)
        bounds, ndim, size = launch_bounds(dim, launcher.tid_reads)
        if size > THREAD_LIMIT and not record_cmd and recording.capture is None \
                and too_many(dim, size, launcher.tid_count, launcher.block_dim, launcher.device.is_cpu):
            raise at_callers_line(too_many_threads(kernel.key, dim, size))
    if launcher.block_dim > 1:
        bounds, size = block_bounds(dim, launcher.block_dim, _block_flags(launcher, dim))
    elif ndim > 1:
        bounds, size, repeat = fit_to_tid(bounds, ndim, launcher.tid_count)
        if repeat > 1 and not record_cmd and recording.capture is None:  # (rare: more dims than tid indices)
            _run_repeated(launcher, args, bounds, size, repeat)
            if recording.tape is not None and record_tape:
                recording.tape.record_launch(kernel, dim, inputs, outputs, launcher.device,
                                             typed=launcher.compiled.typed, block_dim=launcher.resolved_block_dim)
            return None
    if record_cmd:
        return Launch(kernel, launcher.device, list(args), dim, launcher=launcher)
    if recording.capture is not None:  # inside wp.ScopedCapture: recorded, run by capture_launch
        if recording.capture.apic:
            refuse_foreign_descriptors(kernel, args)
        recording.capture.record(Launch(kernel, launcher.device, list(args), dim, launcher=launcher))
        if recording.tape is not None and record_tape:  # (a Tape in the capture: its backward is captured too)
            recording.tape.record_launch(kernel, dim, inputs, outputs, launcher.device,
                                         typed=launcher.compiled.typed, block_dim=launcher.resolved_block_dim)
        return None
    try:
        packed = launcher.pack(*args)
    except (TypeError, ValueError) as e:
        # the message names kernel, argument and fix: the packer's frames would only bury it
        raise at_callers_line(e.with_traceback(None)) from None
    if launcher.direct:
        _run(launcher.entry, packed, bounds, config.cpu_threads or _CPU_COUNT, launcher.stats)
        if launcher.debug_state is not None and launcher.debug_state.failed:
            raise at_callers_line(failed_check(launcher, bounds))  # (raised here: the user's frame is the next one up)
    else:
        try:
            launcher.target.run(launcher, packed, bounds, size)
        except (IndexError, AssertionError, FloatingPointError) as check:  # a failed check: without the target's frames
            raise at_callers_line(check.with_traceback(None)) from None
    if recording.tape is not None and record_tape:
        recording.tape.record_launch(kernel, dim, inputs, outputs, launcher.device, typed=launcher.compiled.typed,
                                     block_dim=launcher.resolved_block_dim)


class Launch:
    """A launch recorded with `wp.launch(..., record_cmd=True)` (Warp's `wp.Launch`): not run yet;
    `launch()` runs it, as often as wanted, and the arguments and dim can be changed in between.
    The arguments are packed once and again only after a change, so a replay costs less than a
    wp.launch. Replays are not recorded on a Tape."""

    def __init__(self, kernel, device=None, params=None, dim=0, adjoint: bool = False, launcher=None, **warp_only):
        """As Warp: `wp.Launch(kernel, device, adjoint=...)` makes an empty command whose arguments
        (default: zero, arrays None) and dim are set before `launch()`."""
        self.kernel = kernel
        self.adjoint = adjoint
        self._launcher = launcher or launcher_for(kernel, device, adjoint, block_dim=warp_only.get("block_dim"))
        self.device = self._launcher.device
        #: the kernel's arguments (`params` shows them after the bounds, as Warp's Launch.params)
        self.args = list(params) if params is not None else [_zero_argument(t) for t in kernel.param_types]
        #: an adjoint launch's gradient arrays set with adjoint=True (else each array's .grad)
        self.adj_params = [None] * len(self.args)
        self._packed = None
        self.set_dim(dim)

    @property
    def block_dim(self) -> int:
        """The launch's block dim as resolved for its device when it was made (runtime/block_dim.py)."""
        return int(self._launcher.resolved_block_dim)

    @property
    def module_exec(self):
        """The kernel's module as loaded for this launch's device and block dim (Warp's ModuleExec)."""
        return self._launcher.module_exec

    def set_dim(self, dim) -> None:
        """Change the launch's dim; a dim it cannot take leaves the last valid one (and its bounds)."""
        launcher = self._launcher
        packed, ndim, size = launch_bounds(dim, launcher.tid_reads)
        repeat = 1
        if launcher.block_dim > 1:
            packed, self._size = block_bounds(dim, launcher.block_dim, _block_flags(launcher, dim, self.adjoint))
        elif ndim > 1:
            packed, self._size, repeat = fit_to_tid(packed, ndim, launcher.tid_count)
        else:
            self._size = size
        self._bounds, self._repeat, self._threads = packed, repeat, size
        self.bounds = LaunchBounds(canonical_dim(dim), launcher.tid_arity)
        self.dim = dim

    @property
    def params(self) -> list:
        """As Warp: the launch bounds, then the kernel's arguments (then, for an adjoint launch, their
        adjoints: a value's not set is its type's zero, an array's None, its .grad). Set arguments with
        set_param_at_index / set_params."""
        if not self.adjoint:
            return [self.bounds, *self.args]
        adjoints = [_zero_argument(t) if g is None and not isinstance(t, ArrayType) else g
                    for g, t in zip(self.adj_params, self.kernel.param_types)]
        return [self.bounds, *self.args, *adjoints]

    def set_param_at_index(self, index: int, value, adjoint: bool = False) -> None:
        """Set argument `index`; adjoint=True (on an adjoint launch) sets its gradient array instead."""
        if not 0 <= index < len(self.args):
            raise IndexError(f"kernel `{self.kernel.key}` has {len(self.args)} parameters; no index {index}")
        t = self.kernel.param_types[index]
        value = composite_from_single_value(self.kernel.key, self.kernel.param_names[index], t, value)
        if getattr(self, "_raw_ctypes", None):
            self._raw_ctypes = self._raw_ctypes - {index}
        if adjoint:
            if not self.adjoint:
                raise RuntimeError(f"launch of kernel `{self.kernel.key}` is not an adjoint launch; "
                                   "make it with wp.Launch(kernel, device, adjoint=True)")
            self.adj_params[index] = value
        else:
            if isinstance(t, ArrayType) and value is not None and not is_generic(t):
                # refused now, as Warp does, rather than at the next launch (the old value stays set)
                convert_argument(self.kernel.key, self.kernel.param_names[index], t, value, self.device,
                                 f"launch of kernel `{self.kernel.key}`: argument `{self.kernel.param_names[index]}`")
            self.args[index] = value
        self._packed = None

    def set_param_by_name(self, name: str, value, adjoint: bool = False) -> None:
        if name not in self.kernel.param_names:
            raise KeyError(f"kernel `{self.kernel.key}` has no parameter {name!r} "
                           f"(its parameters: {', '.join(self.kernel.param_names)})")
        self.set_param_at_index(self.kernel.param_names.index(name), value, adjoint=adjoint)

    def set_param_at_index_from_ctype(self, index: int, value) -> None:
        """As Warp: set an argument from its C form (an array's or struct's __ctype__(), or a plain
        value). The C forms warp_nb makes remember the value they came from, which is what is set;
        an array set so is refused by an apic capture, as in Warp (a raw descriptor names no array)."""
        self.set_param_at_index(index, getattr(value, "_wp_value", value))
        if isinstance(getattr(value, "_wp_value", None), array):
            self._raw_ctypes = getattr(self, "_raw_ctypes", frozenset()) | {index}

    def set_param_by_name_from_ctype(self, name: str, value) -> None:
        self.set_param_by_name(name, getattr(value, "_wp_value", value))

    def set_params(self, values) -> None:
        for k, v in enumerate(values):
            self.set_param_at_index(k, v)

    def launch(self, stream=None) -> None:
        if recording.capture is not None:  # inside wp.ScopedCapture: this launch as it is now, recorded
            if recording.capture.apic and getattr(self, "_raw_ctypes", None):
                raise NotImplementedError(f"launch of kernel `{self.kernel.key}`: an argument set from a raw array "
                                          "ctype (set_param_at_index_from_ctype) cannot be recorded in an apic "
                                          "capture; set the wp.array itself with set_param_at_index")
            snapshot = Launch(self.kernel, self.device, list(self.args), self.dim, self.adjoint, self._launcher)
            snapshot.adj_params = list(self.adj_params)
            recording.capture.record(snapshot)
            return
        if self._threads > THREAD_LIMIT and too_many(self.dim, self._threads, self._launcher.tid_count,
                                                     self._launcher.block_dim, self._launcher.device.is_cpu):
            raise at_callers_line(too_many_threads(self.kernel.key, self.dim, self._threads))
        if self._packed is None:
            params = self.args
            if self.adjoint and any(g is not None for g in self.adj_params):
                copies: list = []
                params = [with_grad(a, g, self.kernel, k, copies, False)
                          for k, (a, g) in enumerate(zip(params, self.adj_params))]
                if copies:
                    raise TypeError(f"recorded adjoint launch of kernel `{self.kernel.key}`: give each adjoint array the "
                                    "strides of its array (a packed launch cannot copy one back each time)")
            self._packed = self._launcher.pack(*params)
        launcher = self._launcher
        if self._repeat > 1:
            _run_times(launcher, self._packed, self._bounds, self._size, self._repeat)
        elif launcher.plan is not None:  # one native call that also reads the check state (plan.py)
            if _run_planned(launcher.plan, self._packed, self._bounds):
                raise at_callers_line(failed_check(launcher, self._bounds))
        elif launcher.direct:
            _run(launcher.entry, self._packed, self._bounds, config.cpu_threads or _CPU_COUNT, launcher.stats)
            if launcher.debug_state is not None and launcher.debug_state.failed:
                raise at_callers_line(failed_check(launcher, self._bounds))
        else:
            try:
                launcher.target.run(launcher, self._packed, self._bounds, self._size)
            except (IndexError, AssertionError, FloatingPointError) as check:  # a failed check: without the target's frames
                raise at_callers_line(check.with_traceback(None)) from None


def _run_repeated(launcher, args, bounds, size: int, repeat: int) -> None:
    """wp.launch of a kernel whose wp.tid() gives fewer indices (but more than one) than the launch
    has dimensions: its fitted launch run `repeat` times (bounds.fit_to_tid)."""
    try:
        packed = launcher.pack(*args)
    except (TypeError, ValueError) as e:
        raise at_callers_line(e.with_traceback(None)) from None
    _run_times(launcher, packed, bounds, size, repeat)


def _run_times(launcher, packed, bounds, size: int, repeat: int) -> None:
    for _ in range(repeat):
        if launcher.direct:
            _run(launcher.entry, packed, bounds, config.cpu_threads or _CPU_COUNT, launcher.stats)
            if launcher.debug_state is not None and launcher.debug_state.failed:
                raise at_callers_line(failed_check(launcher, bounds))
        else:
            try:
                launcher.target.run(launcher, packed, bounds, size)
            except (IndexError, AssertionError, FloatingPointError) as check:  # a failed check: without the target's frames
                raise at_callers_line(check.with_traceback(None)) from None


def _zero_argument(t):
    """An unset argument of a wp.Launch: zero bits, as Warp's (a transform too, not the identity)."""
    if isinstance(t, ArrayType):
        return None
    if T.is_composite_type(t):
        return t._from_numpy(np.zeros(t._shape_))
    return t() if T.is_scalar_type(t) else None


def launcher_key(device_name: str, backward: bool, signature, block_dim) -> tuple:
    """The one shape of the keys of `Kernel.launchers`: what a launch asks for. The device as the
    launch named it (or its alias), the direction, a generic kernel's concrete signature (None for
    others) and the launch's block_dim as given (the lanes it resolves to depend on the device and
    wp.config, whose changes remake every launcher: config.epoch)."""
    return (device_name, backward, signature, block_dim)


def _make_launcher(kernel, device, args, block_dim=None) -> Launcher:
    if not getattr(kernel, "_wp_kernel_", False):
        raise TypeError(f"wp.launch expects a kernel (a function decorated with @wp.kernel), got "
                        f"{type(kernel).__name__}")
    if kernel.options.get("entry_point_abi"):  # (compiler/entry_abi.py)
        raise at_callers_line(RuntimeError(
            f"kernel `{kernel.key}` has entry_point_abi={kernel.options['entry_point_abi']!r}: its entry point is "
            "launched by another program (which fills its parameters in CUDA constant memory), so it cannot be "
            "launched with wp.launch; compile it with wp.compile_aot_module for that program"))
    try:
        module_cluster_dim(kernel.module)  # (Warp's module options are read, and checked, at a launch)
    except (RuntimeError, TypeError, ValueError) as e:
        raise at_callers_line(e.with_traceback(None)) from None
    try:
        if kernel._definition_error is not None:  # a bad annotation: before any argument is judged by it
            raise at_callers_line(kernel._definition_error)
        signature = None
        if kernel.is_generic:
            if len(args) != len(kernel.param_names):
                _wrong_count(kernel, args)
            signature = concrete_signature(kernel, args)
            hit = kernel.launchers.get(launcher_key(get_device(device).alias, False, signature, block_dim))
            if hit is not None and hit.epoch == config.epoch:
                return hit
        return launcher_for(kernel, device, False, signature, block_dim)
    except (KernelError, DeviceError) as e:
        raise at_callers_line(e.with_traceback(None)) from None


def launcher_for(kernel, device, backward: bool = False, signature=None, block_dim=1) -> Launcher:
    """The launcher of `kernel` for a launch on `device` (a Device or a name) asking for `block_dim`,
    made now and kept in `kernel.launchers` under the device's alias and the name it was asked by.
    Its code is typed for the lanes a block of that launch has (lanes_per_block): a tile kernel's
    wp.tile(x) has that many elements. A kernel whose code does not depend on the lanes (every
    kernel without tiles) is known as such from its typing alone, and uses its one-lane build, compiled
    with the rest of its module."""
    dev = get_device(device)
    types_ = list(signature) if signature is not None else kernel.param_types
    if signature is not None and not backward:  # as Warp: a launch with new types adds an overload
        kernel.overloads.setdefault(tuple(signature), tuple(signature))
    resolved = lanes_per_block(dev, block_dim)
    lanes = resolved
    if lanes > 1 and not kernel.depends_on_lanes(dev, signature):
        lanes = 1  # (the code does not depend on the lanes: the module's one-lane build runs them)
    compiled = kernel.compiled(dev, backward, signature, lanes)
    launcher = Launcher(kernel, compiled, dev, config.mode, backward, types_)
    launcher.resolved_block_dim = resolved  # the launch's block dim (Warp's; a Tape replays with it)
    launcher.module_exec = kernel.module.exec_for(dev, resolved)
    kernel.launchers[launcher_key(dev.alias, backward, signature, block_dim)] = launcher
    if isinstance(device, str) and device != dev.alias:
        kernel.launchers[launcher_key(device, backward, signature, block_dim)] = launcher
    return launcher


def _wrong_count(kernel, args):
    names = ", ".join(kernel.param_names)
    raise at_callers_line(TypeError(f"launch of kernel `{kernel.key}` got {len(args)} arguments but the kernel "
                                    f"takes {len(kernel.param_names)} ({names})"))


_CPU_COUNT = cpu_thread_count()  # asked once: the affinity syscall would cost a third of a launch


def _usual(kernel, dim, inputs, device, block_dim):
    """The usual launch in one native call (plan.py; bound to it on first use)."""
    global _usual
    _usual = usual_function()
    return _usual(kernel, dim, inputs, device, block_dim)


def _run_planned(plan, packed, bounds):
    """A recorded launch through its launcher's plan (plan.py; bound to the native function on first
    use: a launcher has a plan only where the extension module is loaded)."""
    global _run_planned
    _run_planned = native.extension().run_planned
    return _run_planned(plan, packed, bounds)


def _run(entry, packed, bounds, threads, stats):
    """The CPU fast path: the native runtime's launch function (bound on first use)."""
    global _run
    native.launch(entry, packed, bounds, threads, stats)
    _run = native.launch
