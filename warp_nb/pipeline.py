"""`@wp.kernel`, `@wp.func` and the compilation pipeline that turns a kernel into something
launchable:

    parse (at decoration) -> typecheck -> emit -> build + cache -> load

Kernels are grouped by their Python module (a notebook cell is a module of its own); the first
launch of a kernel compiles every kernel of its module that still needs compiling, in parallel,
and each kernel is cached on its own, keyed by the exact C++ it produced: editing one kernel
recompiles that kernel only, and a kernel that fails does not stop the others."""

from __future__ import annotations

import sys
import time
import typing
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from . import build, cache, config, ir
from . import types as T
from .arrays import ArrayType
from .devices import Device, get_device
from .emit import EmitResult, emit_kernel
from .errors import KernelError, KernelTypeError
from .load import LoadedKernel, load_kernel
from .parse import parse_function
from .runtime import compiler_identity_key, headers_digest, native_dir
from .scalars import canonical_scalar
from .scope import Scope
from .typecheck import Context, typecheck_kernel

#: Every compile in this process: (kernel key, seconds, compiled_now) — read by the notebook layer.
compile_log: list = []


def resolve_annotation(t, fn, name: str, what: str, local_names: dict | None = None):
    """A parameter annotation as a kernel type, or a clear error at the function's line.
    String annotations (from __future__ import annotations) are evaluated in the function's
    globals and the locals of the scope that defined it."""
    if isinstance(t, str):
        try:
            t = eval(t, fn.__globals__, local_names or {})
        except Exception as e:  # an annotation that does not evaluate
            raise KernelTypeError(f"the annotation of `{name}` ({t!r}) does not evaluate: {e}") from None
    t = canonical_scalar(t)
    if T.is_scalar_type(t) or T.is_composite_type(t) or isinstance(t, ArrayType) or getattr(t, "_wp_struct_", False):
        return t
    if t is typing.Any and what == "function":
        return None  # generic: typed per call
    shown = getattr(t, "__name__", repr(t))
    raise KernelTypeError(f"parameter `{name}` of {what} `{fn.__qualname__}` has type {shown}, which kernels do not "
                          "accept; use a scalar (float, int, wp.float64 ...), a vector or matrix type, "
                          "wp.array(dtype=...) or a @wp.struct")


def _param_types(fn, fdef, what: str, local_names: dict | None = None) -> list:
    hints = getattr(fn, "__annotations__", {})
    out = []
    for name in fdef.params:
        if name not in hints:
            if what == "function":
                out.append(None)
                continue
            raise KernelTypeError(f"parameter `{name}` of kernel `{fn.__qualname__}` needs a type annotation, "
                                  f"e.g. `{name}: float` or `{name}: wp.array(dtype=float)`", fdef.loc, fdef.name)
        out.append(resolve_annotation(hints[name], fn, name, what, local_names))
    return out


# --- functions ----------------------------------------------------------------------------------


@dataclass
class FuncOverload:
    fn: typing.Callable
    fdef: typing.Any
    params: list  # types, None for generic parameters
    return_type: typing.Any
    scope: Scope
    custom_grad: "FuncOverload | None" = None  # @wp.func_grad
    custom_replay: "FuncOverload | None" = None  # @wp.func_replay

    def accepts(self, arg_types) -> bool:
        from .registry import Literal
        if len(arg_types) != len(self.params):
            return False
        for p, a in zip(self.params, arg_types):
            if p is None:
                continue
            if isinstance(a, Literal):
                if not (a.fits(p) or (a.kind == "int" and T.is_float_type(p))):
                    return False
            elif not (a is p or a == p):
                return False
        return True

    def resolve_params(self, arg_types) -> list:
        from .registry import concrete
        return [p if p is not None else concrete(a) for p, a in zip(self.params, arg_types)]


class Function:
    """What `@wp.func` returns: callable from kernels (compiled) and from Python (runs the Python
    function). Defining another @wp.func with the same name in the same module adds an overload."""

    _wp_func_ = True

    def __init__(self, fn):
        self.key = fn.__qualname__
        self.module = fn.__module__
        self.func = fn
        self.overloads: list[FuncOverload] = []
        self.add_overload(fn)
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def add_overload(self, fn) -> None:
        fdef = parse_function(fn)
        params = _param_types(fn, fdef, "function")
        ret = fn.__annotations__.get("return")
        ret = resolve_annotation(ret, fn, "return", "function") if ret is not None else None
        new = FuncOverload(fn, fdef, params, ret, Scope(fn))
        # a redefinition with the same parameter types replaces the old one (notebook re-runs)
        self.overloads = [o for o in self.overloads if o.params != params] + [new]
        self.func = fn

    def select_overload(self, arg_types) -> FuncOverload | None:
        exact = [o for o in self.overloads if None not in o.params and o.accepts(arg_types)]
        if exact:
            return exact[-1]
        return next((o for o in reversed(self.overloads) if o.accepts(arg_types)), None)

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def __repr__(self):
        return f"<wp.func {self.key}>"


_FUNCS: dict = {}


class _AdjointMarker:
    """`wp.adjoint[x]` inside a @wp.func_grad function: the adjoint of parameter x."""

    _wp_adjoint_marker_ = True

    def __getitem__(self, key):
        raise RuntimeError("wp.adjoint[...] can only be used inside a @wp.func_grad function")

    def __repr__(self):
        return "wp.adjoint"


adjoint = _AdjointMarker()


def _attach(f: Function, fn, what: str) -> FuncOverload:
    """Parse a custom gradient or replay function and find the overload of `f` it belongs to
    (by the annotated types of its leading parameters)."""
    if not isinstance(f, Function):
        raise TypeError(f"@wp.{what}(f) expects a @wp.func, got {type(f).__name__}")
    fdef = parse_function(fn)
    params = _param_types(fn, fdef, "function")
    for o in f.overloads:
        if params[:len(o.params)] == o.params or all(p is None for p in params):
            return o, FuncOverload(fn, fdef, params, None, Scope(fn))
    raise TypeError(f"@wp.{what}: no overload of {f.key} has parameters of types "
                    f"({', '.join(T.type_name(p) for p in params)})")


def func_grad(f: Function):
    """Decorator: a custom adjoint for the @wp.func `f`. It takes f's parameters (and adj_ret if f
    returns a value) and adds to wp.adjoint[x] for each input x it differentiates."""
    def decorate(fn):
        overload, grad = _attach(f, fn, "func_grad")
        overload.custom_grad = grad
        return fn
    return decorate


def func_replay(f: Function):
    """Decorator: what the backward pass runs instead of `f` when it recomputes forward values
    (for functions with side effects, such as atomics)."""
    def decorate(fn):
        overload, replay = _attach(f, fn, "func_replay")
        overload.custom_replay = replay
        return fn
    return decorate


def func(fn=None, **options):
    """Decorator: a function callable from kernels."""
    if fn is None:
        return lambda f: func(f, **options)
    key = (fn.__module__, fn.__qualname__)
    existing = _FUNCS.get(key)
    if existing is not None and _same_definition_site(existing, fn):
        existing.add_overload(fn)
        return existing
    f = Function(fn)
    _FUNCS[key] = f
    return f


def _same_definition_site(existing: Function, fn) -> bool:
    """Overloads are separate defs of one name in one module; a re-run notebook cell replaces."""
    return existing.module == fn.__module__


# --- kernels ------------------------------------------------------------------------------------


@dataclass
class CompiledKernel:
    """A kernel ready to launch on one device in one mode."""

    key: str  # the cache key (content hash)
    typed: ir.Function
    unit: EmitResult
    loaded: LoadedKernel
    compile_seconds: float
    compiled_now: bool


class Kernel:
    """What `@wp.kernel` returns. Launch it with wp.launch(kernel, dim, inputs=[...])."""

    _wp_kernel_ = True

    def __init__(self, fn, key: str | None = None, module: str | None = None, enable_backward=None,
                 local_names: dict | None = None):
        self.func = fn
        self.key = key or fn.__qualname__
        self.module = module or fn.__module__
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.enable_backward = enable_backward
        self.mode: str | None = None  # "debug" or "release" for this kernel alone; None follows wp.config.mode
        self.syntax = parse_function(fn)
        self.param_names = list(self.syntax.params)
        self.param_types = _param_types(fn, self.syntax, "kernel", local_names)
        self.scope = Scope(fn)
        self._compiled: dict = {}
        self._failure: dict = {}
        self._launcher: dict = {}
        _register(self)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel `{self.key}` cannot be called directly; launch it with "
                        f"wp.launch({self.__name__}, dim=..., inputs=[...])")

    def __repr__(self):
        return f"<wp.kernel {self.key}>"

    def options_key(self, device: Device, backward: bool = False) -> tuple:
        return (device.alias, self.mode or config.mode, config.cxx_flags, backward)

    def invalidate(self) -> None:
        """Forget this kernel's compiled code and launchers (for example after a @wp.func it uses was
        redefined in a notebook); the next launch or load_module compiles it again, from the cache
        when its generated code did not change."""
        self._compiled.clear()
        self._failure.clear()
        self._launcher.clear()

    def compiled(self, device: Device | None = None, backward: bool = False) -> CompiledKernel:
        """This kernel compiled for `device` in the current mode (compiling its module if needed).
        With `backward`, the translation unit also holds the adjoint (compiled on first need)."""
        device = get_device(device)
        okey = self.options_key(device, backward)
        hit = self._compiled.get(okey)
        if hit is not None:
            return hit
        if backward:
            try:
                p = prepare(self, self.mode or config.mode, backward=True)
                if device.is_cuda:
                    from . import cuda_launch
                    self._compiled[okey] = CompiledKernel(p.cache_key, p.typed, p.unit,
                                                          cuda_launch.build_and_load(p, device), 0.0, True)
                else:
                    self._compiled[okey] = build_and_load(p)
            except KernelError as e:
                raise e.with_traceback(None) from None
            return self._compiled[okey]
        load_module(self.module, device)
        if okey not in self._compiled and okey not in self._failure:
            # not in its module's list: a kernel made by a factory function and since replaced
            # there by a newer kernel of the same name; it still compiles on its own
            try:
                if device.is_cuda:
                    from . import cuda_launch
                    cuda_launch.load_module([self], device)
                else:
                    self._compiled[okey] = build_and_load(prepare(self, self.mode or config.mode))
            except KernelError as e:
                self._failure[okey] = e
        hit = self._compiled.get(okey)
        if hit is None:
            raise self._failure[okey]
        return hit


_MODULES: dict[str, list[Kernel]] = {}


def _register(k: Kernel) -> None:
    kernels = _MODULES.setdefault(k.module, [])
    # a re-run cell or re-executed file replaces the kernel of the same name
    kernels[:] = [other for other in kernels if other.key != k.key] + [k]


def kernel(fn=None, *, enable_backward=None, module=None, key=None):
    """Decorator: a kernel, launched over a grid of threads with wp.launch."""
    if fn is None:
        return lambda f: kernel(f, enable_backward=enable_backward, module=module, key=key)
    # the defining scope's locals, for string annotations of kernels defined inside functions
    caller = sys._getframe(1)
    if caller.f_code.co_name == "<lambda>":
        caller = caller.f_back
    return Kernel(fn, key=key, module=module, enable_backward=enable_backward, local_names=caller.f_locals)


# --- the pipeline -------------------------------------------------------------------------------


@dataclass
class _Prepared:
    kernel: Kernel
    typed: ir.Function
    unit: EmitResult
    cache_key: str
    mode: str


def prepare(k: Kernel, mode: str, backward: bool = False) -> _Prepared:
    """parse (done at decoration) -> typecheck -> [adjoint] -> emit -> cache key."""
    typed = typecheck_kernel(k.syntax, k.param_types, k.scope, Context(mode, backward))
    if config.print_ir:
        print(ir.format_function(typed))
    unit = emit_kernel(typed, mode, backward)
    key = cache.make_key(_without_comments(unit.source), compiler_identity_key(),
                         " ".join(build.compiler_flags(mode, config.cxx_flags)), headers_digest(), cache.VERSION)
    return _Prepared(k, typed, unit, key, mode)


def _without_comments(source: str) -> str:
    """The generated C++ without its comment lines (the user's file, lines and source text, kept
    for error messages): the cache key of a kernel does not change when the code around it moves."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))


def build_and_load(p: _Prepared, cached_path=None) -> CompiledKernel:
    """build + cache -> load (`cached_path`: the library, when a lookup already found it)."""
    t0 = time.perf_counter()

    def compile_into(out_path):
        build.compile_library(p.unit.source, out_path, native_dir(), p.mode, config.cxx_flags, p.kernel.key)

    if cached_path is not None:
        path, compiled_now = cached_path, False
        cache.stats["disk_hits"] += 1
    else:
        path, compiled_now = cache.get_or_build(f"k_{p.kernel.syntax.name}", p.cache_key, compile_into)
    loaded = load_kernel(path, p.unit.entry, p.unit.backward_entry, debug=p.mode == "debug")
    seconds = time.perf_counter() - t0
    compile_log.append((p.kernel.key, seconds, compiled_now))
    return CompiledKernel(p.cache_key, p.typed, p.unit, loaded, seconds, compiled_now)


def load_module(module: str | None = None, device=None) -> None:
    """Compile (or load from the cache) every kernel of `module` that is not ready on `device`.
    Kernels compile in parallel; an error in one kernel is kept for that kernel's launches and
    does not stop the others."""
    device = get_device(device)
    if module is None:
        module = sys._getframe(1).f_globals.get("__name__", "__main__")
    if device.is_cuda:
        from . import cuda_launch
        cuda_launch.load_module(list(_MODULES.get(module, ())), device)
        return
    pending = []
    for k in list(_MODULES.get(module, ())):
        okey = k.options_key(device)
        if okey in k._compiled:
            continue
        try:
            pending.append((okey, prepare(k, k.mode or config.mode)))
            k._failure.pop(okey, None)
        except KernelError as e:
            k._failure[okey] = e
    missing = []
    for okey, p in pending:
        found = cache.lookup(f"k_{p.kernel.syntax.name}", p.cache_key)
        if found is None:
            missing.append((okey, p))
        else:  # cached: load it now, without a second lookup
            p.kernel._compiled[okey] = build_and_load(p, found)
    workers = min(len(missing), _compile_workers())

    def finish(item):
        okey, p = item
        try:
            p.kernel._compiled[okey] = build_and_load(p)
        except KernelError as e:
            p.kernel._failure[okey] = e

    if workers > 1 or missing:
        from .runtime import library
        with ThreadPoolExecutor(max(workers, 1)) as pool:
            runtime_ready = pool.submit(library)  # the CPU runtime builds alongside (once per machine)
            list(pool.map(finish, missing))
            runtime_ready.result()
    for item in pending:
        if item[0] not in item[1].kernel._compiled and item[0] not in item[1].kernel._failure:
            finish(item)


def _compile_workers() -> int:
    from .devices import cpu_thread_count
    return max(1, cpu_thread_count())


_WARM_UP_KERNEL = """
def wpnb_warm_up(a: array, b: float):
    i = wp.tid()
    if a[i] > b:
        a[i] = wp.sin(a[i]) * b + 1.0
"""
_warmed = False


def warm_up() -> None:
    """Everything the first launch would otherwise do once per process: the runtime library, the
    compiler's identity, the header digest, and one pass of parse/typecheck/emit (no compile)."""
    global _warmed
    if _warmed:
        return
    _warmed = True
    from . import runtime
    from .parse import parse_source
    runtime.library()
    compiler_identity_key()
    headers_digest()
    import warp_nb as wp
    fdef = parse_source(_WARM_UP_KERNEL, "<warm-up>")
    scope = Scope(warm_up)
    scope.globals = {"wp": wp}
    typed = typecheck_kernel(fdef, [ArrayType(T.float32, 1), T.float32], scope, Context(config.mode))
    emit_kernel(typed, config.mode)


def kernels_of(module: str) -> list:
    """The kernels registered for a Python module (or notebook cell) name."""
    return list(_MODULES.get(module, ()))


def force_load(device=None, modules=None) -> None:
    """Compile every registered kernel (of `modules`, default all) for `device`."""
    for module in list(modules or _MODULES):
        load_module(module, device)


def source_of(k: Kernel, device=None) -> str:
    """The generated C++ of a kernel (for %wp_source and debugging)."""
    return k.compiled(device).unit.source


def signature_text(k: Kernel) -> str:
    params = ", ".join(f"{n}: {T.type_name(t)}" for n, t in zip(k.param_names, k.param_types))
    return f"{k.key}({params})"
