"""`@wp.kernel` and `wp.Kernel`: a Python function that runs once per thread of a launch. A Kernel
holds its definition, its parameter types (generic ones are typed per concrete signature: at a
launch from the arguments, or ahead of time with `wp.overload`), and what it became on each
device: compiled code (from `compiler.pipeline.compile_kernel`) or the error that stopped it, and
the launchers `wp.launch` uses. As in Warp, errors in a kernel's body surface when its module is
loaded or the kernel launched, so a file with one bad kernel still imports. It belongs to a
`Module` (its Python module or notebook cell), which compiles kernels loaded together in parallel."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .. import config
from . import redefinition
from ..compiler.annotations import parameter_names, parameter_types
from ..compiler.options import CompileOptions
from ..compiler.scope import Scope
from ..errors import KernelError, KernelTypeError
from ..runtime.devices import Device, get_device
from ..toolchain.cpu_isa import cxx_isa_flags, effective_flags
from ..types.generic import is_generic, matches
from ..types.array_family import refuse_instance_annotations
from .deterministic import module_mode
from .compile_lock import COMPILE_LOCK
from .cuda_options import kernel_cuda_options
from .naming import KernelNaming
from .module import Module, get_module, module_named, unique_module
from .unique import check_module_options, unique_module_name

if TYPE_CHECKING:  # (annotations only: the compiler loads at the first compile)
    from ..compiler.pipeline import CompiledKernel


def bounds_checks_wanted() -> bool:
    """Whether release-mode kernels get bounds checks: `config.bounds_check`, on by default in every
    process (a notebook's kernel and a script alike): the unchecked copy of the body that chunks with
    proven indices run (compiler/index_ranges.py) makes them cost about nothing, and an
    out-of-bounds write must not corrupt memory silently (docs/compat.md, "Bounds checks")."""
    return config.bounds_check is None or bool(config.bounds_check)


class Kernel(KernelNaming):
    """What `@wp.kernel` returns. Launch it with wp.launch(kernel, dim, inputs=[...])."""

    _wp_kernel_ = True

    def __init__(self, func, key: str | None = None, module=None, options: dict | None = None,
                 code_transformers=None, enable_backward=None, launch_bounds=None, local_names: dict | None = None,
                 register: bool = True):
        # the parser loads with the first definition, not with warp_nb (tests/unit/test_lazy_imports.py)
        from ..compiler.parse import keep_source
        from ..compiler.static_eval import resolve_at_declaration
        keep_source(func)
        if code_transformers:  # Warp's ast.NodeTransformers, run on the kernel's syntax tree once
            func = _transformed(func, code_transformers)
        self.func = func
        self.key = key or func.__qualname__
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__module__ = func.__module__  # as a wrapped function says (wp.get_module(k.__module__))
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self.options = dict(options or {})  # Warp's per-kernel options dict (enable_backward, mode ...)
        if enable_backward is not None:
            self.options["enable_backward"] = enable_backward
        self.launch_bounds = launch_bounds
        self.mode: str | None = self.options.get("mode")  # "debug"/"release" for this kernel alone
        self.param_names = parameter_names(func)
        self._definition_error = None
        try:
            self.param_types = parameter_types(func, "kernel", local_names)
        except KernelError as e:  # raised when the kernel is loaded or launched, as Warp does
            self._definition_error = e
            self.param_types = [Any] * len(self.param_names)
        self.scope = Scope(func)
        resolve_at_declaration(func, self.scope)  # wp.static(...) sees the globals as they are now
        self.overloads: dict = {}  # concrete signatures asked for with wp.overload
        self._compiled: dict = {}  # (device alias, CompileOptions, signature) -> CompiledKernel
        self._failures: dict = {}  # same key -> KernelError
        self._translations: dict = {}  # same key -> the front half's Translation, until compiled
        self._generation = (redefinition.generation, redefinition.definitions)  # when _compiled was made
        #: launchers by launcher_key (device, direction, signature, block_dim): made and read by the
        #: launch layer (launch/launcher.py)
        self.launchers: dict = {}
        #: (device as the launch gave it, block_dim, launcher) of the last plain forward launch: what
        #: wp.launch checks first (two comparisons), before it builds a launcher key
        self.last_launch: tuple = (None, None, None, None)
        if module == "unique":
            module = unique_module(func)
        self.module: Module = module if isinstance(module, Module) else get_module(module or func.__module__)
        if register:
            self.module.add(self)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel `{self.key}` cannot be called directly; launch it with "
                        f"wp.launch({self.__name__}, dim=..., inputs=[...])")

    def __repr__(self):
        return f"<wp.kernel {self.key}>"

    @property
    def syntax(self):
        """The parsed body (parsed on first need; a syntax error is raised here)."""
        from ..compiler.parse import parse_definition
        return parse_definition(self.func)

    @property
    def adj(self):
        """Warp's `Kernel.adj`, as a read-only view of this definition (a Warp-compatibility shim:
        _src/adjoint_view.py, loaded on first use)."""
        view = self.__dict__.get("_adj_view")
        if view is None:
            from .._src.adjoint_view import AdjointView
            view = self._adj_view = AdjointView(self.func, self.scope, kernel=self)
        return view

    @property
    def enable_backward(self):
        return self.options.get("enable_backward")

    @enable_backward.setter
    def enable_backward(self, value) -> None:
        self.options["enable_backward"] = value

    # --- signatures -----------------------------------------------------------------------
    @property
    def is_generic(self) -> bool:
        return any(is_generic(t) for t in self.param_types)

    def signatures(self) -> list[tuple]:
        """The concrete signatures to compile when the module loads: the parameter types of a
        non-generic kernel, the wp.overload signatures of a generic one."""
        return list(self.overloads.values()) if self.is_generic else [tuple(self.param_types)]

    def infer_argument_types(self, args) -> list:
        """The concrete parameter types a launch with `args` (inputs then outputs) specialises this
        kernel for (an application's array subclass counts as its native family)."""
        from .signatures import concrete_signature
        return list(concrete_signature(self, args))

    def add_overload(self, arg_types) -> "Kernel":
        """Register a concrete signature (a list of types, or a dict by parameter name) for a generic
        kernel; returns the specialised kernel, as Warp does (launchable, and what wp.jax_kernel
        wraps). Every parameter must be concrete and fit its generic annotation."""
        if isinstance(arg_types, dict):
            unknown = set(arg_types) - set(self.param_names)
            if unknown:
                raise TypeError(f"wp.overload: kernel `{self.key}` has no parameter {sorted(unknown)[0]!r}")
            arg_types = [arg_types.get(n, t) for n, t in zip(self.param_names, self.param_types)]
        from ..types.array_family import annotation_of
        from ..compiler.annotations import resolve_annotation
        arg_types = [annotation_of(t) or t for t in arg_types]  # an array given as a type: its family's annotation
        signature = tuple(resolve_annotation(t, self.func, n, "kernel") for n, t in zip(self.param_names, arg_types))
        if len(signature) != len(self.param_types):
            raise TypeError(f"wp.overload: kernel `{self.key}` takes {len(self.param_types)} parameters, "
                            f"got {len(signature)} types")
        for name, pattern, t in zip(self.param_names, self.param_types, signature):
            if is_generic(t):
                raise TypeError(f"wp.overload: the type of `{name}` must be concrete, got {t!r}")
            if not matches(pattern, t):
                raise TypeError(f"wp.overload: `{name}` of kernel `{self.key}` is declared {pattern!r}; "
                                f"{t!r} does not fit it")
        self.overloads[signature] = signature
        # one specialised kernel per signature: wp.overload and a later add_overload of the same
        # types (from an array subclass's arguments, say) give back the same object, as in Warp
        made = self.__dict__.setdefault("_specialized_kernels", {})
        if signature not in made:
            made[signature] = self.specialized(signature)
        return made[signature]

    def specialized(self, signature: tuple) -> "Kernel":
        """The kernel for one concrete signature, launchable on its own (what wp.overload returns).
        It is not registered in the module; the generic kernel compiles the signature there."""
        k = Kernel(self.func, key=self.key, module=self.module, options=self.options,
                   launch_bounds=self.launch_bounds, register=False)
        k.param_types = list(signature)
        k.mode = self.mode
        return k

    # --- compiling ------------------------------------------------------------------------
    def compile_options(self, backward: bool = False, block_dim: int = 1) -> CompileOptions:
        """The compile options in effect now: the kernel's setting, else its module's, else
        wp.config's (the more specific scope wins, as in Warp)."""
        if backward and not self.backward_enabled:
            raise KernelError(f"kernel `{self.key}` has no backward pass: it was defined with enable_backward=False "
                              "(or its module, or wp.config, disables backward passes)", None, self.key)
        explicit = self.mode or self.module.options.get("mode")
        mode = explicit or config.mode
        if mode == "release" and not explicit and bounds_checks_wanted():
            mode = "checked"  # optimised code with bounds checks (config.bounds_check)
        # the module's (or wp.config's) cpu_compiler_flags choose the CPU instruction set (toolchain/cpu_isa.py)
        isa = cxx_isa_flags(effective_flags(self.module.options))
        return CompileOptions(mode, backward, f"{config.cxx_flags} {isa}".strip() if isa else config.cxx_flags,
                              block_dim, int(module_mode(self.module)), bool(config.verify_fp),
                              bool(config.cpu_vector_math))

    @property
    def backward_enabled(self) -> bool:
        for setting in (self.options.get("enable_backward"), self.module.options.get("enable_backward")):
            if setting is not None:
                return bool(setting)
        return bool(config.enable_backward)

    def _key(self, device: Device, backward: bool, signature, block_dim: int = 1) -> tuple:
        if self._generation != (redefinition.generation, redefinition.definitions):
            self._forget_stale()
        return (device.alias, self.compile_options(backward, block_dim),
                tuple(signature if signature is not None else self.param_types))

    def is_ready(self, device: Device, backward: bool = False, signature=None) -> bool:
        """Whether compiling for `device` has been tried with the current options."""
        key = self._key(device, backward, signature)
        return key in self._compiled or key in self._failures

    def translate(self, device: Device, backward: bool = False, signature=None, block_dim: int = 1):
        """The front half of the pipeline for `device` (a Translation: typed IR, C++ text, cache key),
        kept until the kernel is compiled with it; None when the kernel has an error (kept, as a
        failed compile is, for this kernel's launches)."""
        key = self._key(device, backward, signature, block_dim)
        with COMPILE_LOCK:
            if key in self._translations or key in self._failures:
                return self._translations.get(key)
            try:
                from ..compiler.pipeline import front_half  # (the compiler loads at the first compile)
                self._translations[key] = front_half(self, self._concrete(key), key[1], device.target,
                                                     entries="launch")
            except KernelError as e:
                self._failures[key] = e
            return self._translations.get(key)

    def compile(self, device: Device, backward: bool = False, signature=None, built_together: frozenset = frozenset(),
                block_dim: int = 1) -> None:
        """Compile for `device` now, keeping the result or the error (for this kernel's launches:
        one bad kernel does not stop the others of its module); the front half is not run again
        when `translate` ran it. `built_together`: cache keys its module has just built."""
        key = self._key(device, backward, signature, block_dim)
        with COMPILE_LOCK:
            try:
                front = self._translations.pop(key, None)
                from ..compiler.pipeline import compile_kernel
                self._compiled[key] = compile_kernel(self, self._concrete(key), device.target, key[1], front,
                                                     built_together)
                self._failures.pop(key, None)
            except KernelError as e:
                self._failures[key] = e

    def _concrete(self, key) -> list:
        """The concrete parameter types of a compile key (raises for a definition error, or a
        generic signature)."""
        if self._definition_error is not None:
            raise self._definition_error
        types_ = list(key[2])
        if any(is_generic(t) for t in types_):
            raise KernelTypeError(f"kernel `{self.key}` has generic parameters; launch it with arguments or "
                                  "give concrete types with wp.overload", None, self.key)
        return types_

    def depends_on_lanes(self, device: Device, signature=None) -> bool:
        """Whether this kernel's code depends on how many lanes its blocks have (tiles, stacks, tiled
        queries, wp.block_dim()): known from typing it for one lane, before anything is compiled. A
        kernel with an error says True (its build for the launch's lanes reports the error)."""
        key = self._key(device, False, signature)
        done = self._compiled.get(key)
        if done is not None:
            return done.typed.uses_blocks
        front = self.translate(device, False, signature)
        return front is None or front.typed.uses_blocks

    def compiled(self, device=None, backward: bool = False, signature=None, block_dim: int = 1) -> CompiledKernel:
        """This kernel compiled for `device` with the current options (and `signature`, for a generic
        kernel): forward code compiles with the rest of its module; `backward` adds the adjoint.
        `block_dim`: the lanes per block a tile kernel is typed for (1: the module's build)."""
        device = get_device(device)
        key = self._key(device, backward, signature, block_dim)
        hit = self._compiled.get(key)
        if hit is not None:
            return hit
        with COMPILE_LOCK:  # (another thread may have compiled it meanwhile: checked again inside)
            if not backward and signature is None and block_dim == 1:
                self.module.load_quietly(device)
            if key not in self._compiled and key not in self._failures:
                self.compile(device, backward, signature, block_dim=block_dim)
        hit = self._compiled.get(key)
        if hit is None:
            raise self._failures[key].with_traceback(None)
        return hit

    def adopt(self, device: Device, compiled: CompiledKernel, backward: bool = False, signature=None) -> None:
        """Launch `compiled` (code built elsewhere: wp.load_aot_module) for this device, direction and
        signature, with the current options, instead of compiling."""
        self._compiled[self._key(device, backward, signature)] = compiled
        self._failures.pop(self._key(device, backward, signature), None)
        self.launchers.clear()
        self.last_launch = (None, None, None, None)

    def _forget_stale(self) -> None:
        """After a redefinition (program/redefinition.py) compiled code may be stale: compile again;
        after a new definition only the failures are (a name that was missing may exist now)."""
        if self._generation[0] != redefinition.generation:
            self._compiled.clear()
            self.launchers.clear()
            self.last_launch = (None, None, None, None)
        self._failures.clear()
        self._translations.clear()
        self._generation = (redefinition.generation, redefinition.definitions)

    def invalidate(self) -> None:
        """Forget this kernel's compiled code and launchers (for example after a @wp.func it uses was
        redefined in a notebook); the next launch compiles it again, from the cache when its
        generated code did not change."""
        self._compiled.clear()
        self._failures.clear()
        self._translations.clear()
        self.launchers.clear()
        self.last_launch = (None, None, None, None)

    @property
    def has_compiled_code(self) -> bool:
        return bool(self._compiled)

    def compiled_options(self, device_alias: str) -> list:
        """(CompileOptions, signature) pairs this kernel has been compiled with on a device (for tools
        that recompile the same variants for another target)."""
        return [(options, list(sig)) for alias, options, sig in self._compiled if alias == device_alias]


def _transformed(func, transformers):
    """A copy of `func` whose syntax tree is `func`'s rewritten by `transformers` (compiler/parse.py
    define_transformed): the user's function keeps its own tree, for other kernels made from it."""
    import types as py_types

    from ..compiler.parse import define_transformed
    copy = py_types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__, copy.__module__ = func.__qualname__, func.__module__
    copy.__annotations__, copy.__kwdefaults__ = dict(func.__annotations__), func.__kwdefaults__
    define_transformed(copy, list(transformers))
    return copy


def kernel(f=None, *, enable_backward=None, module=None, key=None, name=None, launch_bounds=None,
           module_options=None, **warp_only):
    """Decorator: a kernel, launched over a grid of threads with wp.launch. As in Warp:
    `enable_backward`, `module` (a name, a wp.Module, or "unique" for a module of its own),
    `module_options` (set on its module), `name` (its key), `launch_bounds` (recorded; CUDA only);
    Warp's CUDA-only keywords (cluster_dim, cuda_max_registers, enable_cuda_smem_spilling,
    grid_stride, entry_point_abi) are checked and recorded (cuda_options.py)."""
    if f is None:
        return lambda fn: kernel(fn, enable_backward=enable_backward, module=module, key=key, name=name,
                                 launch_bounds=launch_bounds, module_options=module_options, **warp_only)
    # the defining scope's locals, for string annotations of kernels defined inside functions
    caller = sys._getframe(1)
    if caller.f_code.co_name == "<lambda>":
        caller = caller.f_back
    refuse_instance_annotations(getattr(f, "__annotations__", {}), f"kernel `{f.__qualname__}`")
    module_options = check_module_options(module, module_options)
    if name is not None and not (isinstance(name, str) and name.isidentifier() and name.isascii()):
        # the name becomes the kernel's C++ symbol (and its entry point's)
        raise ValueError(f"kernel name {name!r} is not a valid C++ identifier: use letters, digits and "
                         f"underscores, not starting with a digit")
    # Warp's CUDA-only kernel options: no effect on the CPU, but checked and recorded (and hashed: module_build)
    options = kernel_cuda_options(warp_only, launch_bounds, enable_backward)
    if module == "unique":
        fingerprint_options = {**options, "enable_backward": enable_backward, "key": key or name}
        module_name = unique_module_name(f, fingerprint_options, launch_bounds, module_options)
        existing = module_named(module_name)
        kernel_key = key or name or f.__qualname__
        if existing is not None and kernel_key in existing._kernels:  # an identical definition: its kernel
            return existing._kernels[kernel_key]
        module = get_module(module_name)
        from .. import config
        module.options.setdefault("deterministic", config.deterministic)  # as Warp: captured when made
        module.options.setdefault("deterministic_max_records", config.deterministic_max_records)
        module.options.update(module_options or {})
    k = Kernel(f, key=key or name, module=module, options=options, enable_backward=enable_backward,
               launch_bounds=launch_bounds, local_names=caller.f_locals)
    return k
