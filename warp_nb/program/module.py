"""Warp's public `Module`: the kernels of one Python module (or one notebook cell), its name and
options, and `load(device)`, which compiles every kernel that is not ready yet, in parallel.
warp_nb compiles and caches each kernel on its own (`compiler.pipeline`), so a Module is a view
over its kernels' compiled units, not a translation unit: editing one kernel recompiles that
kernel only, and a kernel that fails does not stop the others of its module."""

from __future__ import annotations

import inspect
import sys
import weakref
from types import ModuleType
from pathlib import Path

from . import redefinition
from .compile_lock import COMPILE_LOCK
from .module_exec import ModuleExec, exec_key
from ..compiler.options import CompileOptions
from ..errors import KernelError
from ..runtime.block_dim import resolve_block_dim
from ..runtime.devices import cpu_thread_count, get_device
from ..types.array_type import ArrayType
from ..types.scalars import float32


#: every Module made, registered by name or not (wp.Module("name") is not): where `dependents` looks
_EVERY_MODULE: "weakref.WeakSet[Module]" = weakref.WeakSet()


class ModuleOptions(dict):
    """A module's options: what was set on it (`wp.set_module_options`, `module_options=`); an option
    not set reads as wp.config's value (or Warp's default) at the moment it is read."""

    _DEFAULTS = {"fast_math": False, "fuse_fp": True, "lineinfo": False, "cuda_output": None, "block_dim": 256,
                 "optimization_level": None, "compile_time_trace": False, "strip_hash": False,
                 "extra_build_options": None, "cpu_compiler_flags": None}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from .. import config
        # as Warp: the determinism settings are wp.config's when the module is made (a later change
        # of wp.config applies to modules made later, not to library modules already imported)
        self.captured = {"deterministic": config.deterministic,
                         "deterministic_max_records": config.deterministic_max_records}

    def __missing__(self, key):
        from .. import config
        if key in self.captured:
            return self.captured[key]
        if key in ("enable_backward", "max_unroll", "mode"):
            return getattr(config, key)
        if key in self._DEFAULTS:
            return self._DEFAULTS[key]
        raise KeyError(key)


class Module:
    """The kernels defined in one Python module or notebook cell."""

    def __init__(self, name: str, loader=None):
        self.name = name
        self.loader = loader  # Warp's importer of the module's source; kept, not used
        self.options = ModuleOptions()
        self._kernels: dict = {}  # key -> Kernel, in definition order
        #: Warp's loaded binaries by device; warp_nb keeps compiled code per kernel, so only what
        #: callers put here, dropped when the module's symbol names change (_set_strip_hash)
        self.execs: dict = {}
        _EVERY_MODULE.add(self)

    def __repr__(self):
        return f"<wp.Module {self.name} ({len(self._kernels)} kernels)>"

    @property
    def kernels(self) -> list:
        return list(self._kernels.values())

    @property
    def functions(self) -> dict:
        """The @wp.func defined in this Python module, by name (the latest of a name redefined)."""
        from .func import _FUNCS
        return {qualname: f for (module, qualname), f in _FUNCS.items() if module == self.name}

    @property
    def structs(self) -> dict:
        """The @wp.struct defined in this Python module, by name (the latest of a name redefined)."""
        return {qualname: st for (module, qualname), st in redefinition.structs.items() if module == self.name}

    def add(self, kernel) -> None:
        """Register a kernel; a re-run cell or re-executed file replaces the kernel of the same key."""
        self._kernels.pop(kernel.key, None)
        self._kernels[kernel.key] = kernel

    def load(self, device=None, block_dim=None):
        """Compile (or fetch from the cache) and load every kernel of this module that is not
        ready on `device` (each concrete signature: a generic kernel's wp.overload ones), in
        parallel. Returns the module's ModuleExec for the device and block dim (the same object
        on every load) when all of them compiled, else None. warp_nb compiles each kernel on its
        own, so a bad kernel does not stop the good ones of its module: its error is raised when it
        is launched. A load that loaded nothing (every kernel failed: a module="unique" kernel's own
        module, say) raises the first error, as Warp's load of a module that does not compile."""
        device = get_device(device)
        lanes = self.resolve_block_dim(device, block_dim)  # (a block dim out of range: refused before compiling)
        return self._finish_load(device, lanes, self.load_quietly(device))

    def resolve_block_dim(self, device, block_dim=None) -> int:
        """The lanes of a block of this module's kernels on `device` for a load asking for
        `block_dim` (None: not asked; on the CPU one lane, on CUDA the module's block_dim option)."""
        if block_dim is None and not device.is_cpu:
            block_dim = self.options["block_dim"]
        return resolve_block_dim(device, block_dim)

    def exec_for(self, device, lanes: int) -> ModuleExec:
        """The ModuleExec of this module on `device` for blocks of `lanes` (made on first ask)."""
        key = exec_key(device, lanes)
        found = self.execs.get(key)
        if not isinstance(found, ModuleExec):
            found = self.execs[key] = ModuleExec(self, device, lanes)
        return found

    def unload(self) -> None:
        """Forget what this module loaded: its ModuleExecs, and each kernel's compiled code (its next
        launch loads it again, from the kernel cache when unchanged). Launches captured in a graph,
        or recorded with record_cmd, keep the code they run."""
        self.execs.clear()
        self.hashers.clear()
        for k in self.kernels:
            k.invalidate()

    @property
    def references(self) -> set:
        """The other modules whose @wp.func this module's kernels call (through locals too, `f =
        other.func`): what Warp reloads this module after. Found from the kernels' typed code, again
        only when a kernel or a definition changed."""
        from .module_build import called_functions, resolve_options
        stamp = (tuple((k.key, k.hash) for k in self.kernels), redefinition.generation, redefinition.definitions)
        memo = self.__dict__.get("_references")
        if memo is None or memo[0] != stamp:
            options = resolve_options(self)
            found = {f.module for k in self.kernels for f in called_functions(k, options) if f.module is not self}
            memo = self._references = (stamp, found)
        return set(memo[1])

    @property
    def dependents(self) -> set:
        """The modules whose kernels call this module's @wp.func (the reverse of `references`):
        what Warp unloads after this one."""
        return {m for m in list(_EVERY_MODULE) if m is not self and m.kernels and self in _references_or_none(m)}

    def _pending(self, device) -> list:
        """(kernel, signature) of each concrete signature not yet compiled (or failed) on `device`."""
        return [(k, sig) for k in self.kernels for sig in k.signatures() if not k.is_ready(device, signature=sig)]

    def load_quietly(self, device=None, built: frozenset | None = None) -> bool:
        """load() without raising: each kernel keeps its error for its own launches. `built`: the
        cache keys force_load already built for several modules at once."""
        device = get_device(device)
        with COMPILE_LOCK:
            ok = self._load_locked(device, built)
        self.get_module_hash()  # noted in `hashers`, as Warp's load does (unload clears it)
        return ok

    def _load_locked(self, device, built) -> bool:
        pending = self._pending(device)
        if built is None:
            built = _build_together(pending, device) if len(pending) > 1 else frozenset()
        for k, sig in pending:
            if not k.is_ready(device, signature=sig):
                k.compile(device, signature=sig, built_together=built)
        return all(k.is_ready(device, signature=sig) and k._key(device, False, sig) in k._compiled
                   for k in self.kernels for sig in k.signatures())

    def first_failure(self, device):
        """The error of the first kernel of this module that failed to compile for `device` (None: none)."""
        for k in self.kernels:
            for sig in k.signatures():
                error = k._failures.get(k._key(device, False, sig))
                if error is not None:
                    return error
        return None

    def _finish_load(self, device, lanes, ok: bool):
        """After load_quietly: the load's ModuleExec, noted in `execs` (Warp's record of a module's
        loaded binaries, by (CUDA context or None for the CPU, block dim)); None when some kernel
        failed; raises when nothing compiled. `lanes` None: any block dim loaded before will do."""
        if ok:
            if lanes is None:
                found = [e for e in self.execs.values() if isinstance(e, ModuleExec) and e.device == device]
                if found:
                    return found[0]
                lanes = self.resolve_block_dim(device, None)
            return self.exec_for(device, lanes)
        states = [(k, k._failures.get(k._key(device, False, sig))) for k in self.kernels for sig in k.signatures()]
        errors = [e for _, e in states if e is not None]
        if errors and len(errors) == len(states):
            raise errors[0].with_traceback(None)
        return None

    def get_module_hash(self, block_dim: int | None = None) -> str:
        """A digest of what this module compiles: its name, options (with the settings from wp.config
        they fall back to) and each kernel with its concrete signatures (a generic kernel's
        overloads, which launches with new types add), and the block dim when one is given (a tiled
        build for that block size). Kept in `hashers` until those change."""
        import hashlib

        settings = self._hash_settings() + ("" if block_dim is None else f"|block_dim={int(block_dim)}")
        # each kernel's part is its own hash (of its source, computed once per kernel: Kernel.hash)
        memo = (settings, tuple((k.key, k.hash, tuple(sorted(repr(sig) for sig in k.signatures())))
                                             for k in self.kernels))
        digest = self.hashers.get(memo)
        if digest is None:
            parts = [self.name, memo[0]]
            for key, kernel_hash, signatures in memo[1]:
                parts += [f"{key}:{kernel_hash.hex()}", *signatures]
            digest = self.hashers[memo] = hashlib.sha256("\n".join(parts).encode()).hexdigest()
        return digest

    @property
    def hashers(self) -> dict:
        """Warp's cache of this module's hashes: get_module_hash's digests by what they cover
        (clearing it recomputes them)."""
        memo = self.__dict__.get("_hashers")
        if memo is None:
            memo = self._hashers = {}
        return memo

    def _hash_settings(self) -> str:
        """The options a module hash covers: those set on the module, then the optimisation level and
        CPU instruction set in effect (a module option, else wp.config's; None for the optimisation
        level is its own value: the target's default)."""
        from .. import config
        from ..toolchain.cpu_isa import effective_flags, isa_flags
        level = self.options.get("optimization_level")
        level = config.optimization_level if level is None else level
        return "|".join([repr(sorted(dict(self.options).items(), key=str)), f"optimization_level={level!r}",
                         f"cpu_isa={isa_flags(effective_flags(self.options))!r}"])

    def _get_compile_output_name(self, device) -> str:
        """Warp's name for this module's compiled file on `device`: `<identifier>.cpu<target>.o` on
        the CPU (the target: compiler, triple and instruction set, toolchain/cpu_isa.py), else
        `<identifier>.sm<arch>.ptx|cubin`."""
        device = get_device(device)
        if device.is_cpu:
            from ..runtime import compat_hooks
            from ..toolchain.cpu_isa import current_target_hash
            probes = compat_hooks.namespace("context")  # Warp's tests substitute the CPU probes there
            return f"{self.get_module_identifier()}.cpu{current_target_hash(self.options, probes=probes)}.o"
        return device.target.artifact_name(self.get_module_identifier())

    #: wp.compile_aot_module's builder of one module file, set by program/aot.py (which imports this module)
    _aot_build = None

    def _compile(self, units: list, target, path) -> None:
        """Build the module's translation unit `units` for `target` into `path` (wp.compile_aot_module;
        Warp's tests replace this method to skip the build)."""
        type(self)._aot_build(self, units, target, path)

    def get_module_identifier(self) -> str:
        """The name of this module's ahead-of-time artifacts (wp.compile_aot_module): `wp_<name>_<hash>`,
        the hash covering its code and the settings that change the generated code, or `wp_<name>`
        with the strip_hash option."""
        if self.options["strip_hash"]:
            return f"wp_{self.name}"
        import hashlib

        from .. import config
        from ..toolchain.headers import headers_digest
        settings = f"{config.mode}|{config.verify_fp}|{config.cxx_flags}|{config.version}|{headers_digest()}"
        return f"wp_{self.name}_{hashlib.sha256((self.get_module_hash() + settings).encode()).hexdigest()[:7]}"

    # --- Warp's build API: content hash and resolved options (program/module_build.py) ----------
    def hash_module(self) -> str:
        """The content hash of this module's generated code (equal code: equal hash, whatever the
        module's name), with its options and wp.ModuleBuildOptions."""
        from .module_build import content_hash, resolve_options
        return content_hash(self.kernels, resolve_options(self))

    def resolve_options(self, config=None, block_dim: int | None = None) -> dict:
        """The options a build of this module uses now: its own, else `config`'s (wp.config); with
        `block_dim`, those of a build for that block size."""
        from .module_build import resolve_options
        return resolve_options(self, config, block_dim)

    def _get_live_kernels(self) -> list:
        """The kernels a build of this module compiles (Warp's name)."""
        return self.kernels

    def mark_modified(self) -> None:
        """Warp's hook after changing what a module's kernels read (a closure variable, a global):
        each kernel compiles again at its next launch, from the kernel cache when its generated
        code did not change."""
        self.execs.clear()
        for k in self.kernels:
            k.invalidate()

    def _set_strip_hash(self, strip_hash: bool) -> None:
        """Set the strip_hash option (kernel symbols without their hash suffix, for ahead-of-time
        builds); the kernels' names change, so their cached names and the loaded binaries go."""
        self.options["strip_hash"] = bool(strip_hash)
        self.execs.clear()
        for k in self.kernels:
            k._forget_mangled_name()


#: at most this many kernels in one translation unit: bundles of several kernels parse the native
#: headers once, and a few bundles still compile in parallel
BUNDLE_SIZE = 16


def _build_together(pending: list, device, max_workers: int | None = None, backward: bool = False) -> frozenset:
    """Run the front half of every kernel of `pending` (with `backward`: of its backward launch's
    unit), then build those not in the cache a few at a time, in one translation unit per bundle
    and the bundles in parallel; each kernel's artifact goes into the cache under its own key,
    where its back half (afterwards, in Kernel.compile) finds it. A bundle that fails to compile is
    left to its kernels' own builds, which report the error at the right kernel. Returns the cache
    keys built."""
    from ..compiler.emit.bundle import can_join
    from ..compiler.pipeline import is_cached
    target = device.target
    fronts = [k.translate(device, backward, signature=sig) for k, sig in pending]  # parse, type, emit, key
    missing = [f for f in fronts if f is not None and not is_cached(f, target)]
    # as many bundles as there are cores (to compile in parallel), of at most BUNDLE_SIZE kernels
    cores = cpu_thread_count() if max_workers is None else max(1, max_workers)
    size = max(1, min(BUNDLE_SIZE, -(-len(missing) // cores)))
    bundles: list = []
    for front in missing:
        home = next((b for b in bundles if len(b) < size and b[0].options.cxx_flags == front.options.cxx_flags
                     and can_join([f.unit for f in b], front.unit)), None)
        if home is None:
            bundles.append([front])
        else:
            home.append(front)
    if not bundles:  # a warm start: everything is in the cache, no pool (importing it costs 3 ms)
        target.prepare()
        return frozenset()
    workers = max(1, min(len(bundles), cores))
    from concurrent.futures import ThreadPoolExecutor  # (loads logging: not worth it on `import warp_nb`)
    with ThreadPoolExecutor(workers + 1) as pool:
        ready = pool.submit(target.prepare)  # e.g. the CPU runtime, built once per machine
        built = [key for keys in pool.map(lambda bundle: _build_bundle(bundle, target), bundles) for key in keys]
        ready.result()
    return frozenset(built)


def build_backward_together(pending: list, device) -> None:
    """Compile the backward launches' units of `pending` ((kernel, signature) pairs, one-lane
    builds, kernels with backward passes) that are not compiled on `device` yet, together, as a
    module load builds forward units: a Tape's first backward pass (autograd/tape.py) pays about one
    build per core instead of one per kernel, one after another. Each kernel keeps its error for
    its own launch."""
    with COMPILE_LOCK:
        todo = [(k, sig) for k, sig in pending if not k.is_ready(device, True, sig)]
        if len(todo) < 2:
            return  # (one is built by its launch, as it would be here)
        built = _build_together(todo, device, backward=True)
        for k, sig in todo:
            if not k.is_ready(device, True, sig):
                k.compile(device, True, sig, built_together=built)


def _build_bundle(fronts: list, target) -> list:
    if len(fronts) == 1:  # built alone, in the pool all the same (with more cores than kernels, every bundle is one)
        from ..compiler.pipeline import fetch_or_build
        front = fronts[0]
        try:
            fetch_or_build(front.name, front.key, front.unit, target, front.options)
        except KernelError:
            return []  # its own back half reports the error, at its kernel
        return [front.key]
    import tempfile

    from ..compiler.emit import EmitResult
    from ..compiler.emit.bundle import bundle_source
    from ..toolchain import cache
    units = [f.unit for f in fronts]
    unit = EmitResult(bundle_source(units), "", function=f"{len(units)} kernels", mode=units[0].mode)
    options = CompileOptions(units[0].mode, False, fronts[0].options.cxx_flags,
                             vector_math=fronts[0].options.vector_math)
    with tempfile.TemporaryDirectory(prefix="wpnb-bundle-") as tmp:
        built = Path(tmp) / f"bundle{target.suffix}"
        try:
            target.build(unit, built, options)
        except KernelError:
            return []
        for f in fronts:
            cache.install(f.name, f.key, built, target.suffix, f.unit.source)
    return [f.key for f in fronts]


_MODULES: dict[str, Module] = {}


def get_module(name) -> Module:
    """The Module of a Python module (or notebook cell) name, made on first use."""
    if isinstance(name, Module):
        return name
    if not isinstance(name, str):
        name = getattr(name, "__name__", str(name))  # a Python module object
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = Module(name)
    return module


def module_named(name: str) -> Module | None:
    """The Module of that name if one was made, else None."""
    return _MODULES.get(name)


def unique_module(func) -> Module:
    """`@wp.kernel(module="unique")`: a module of the kernel's own, named after its definition."""
    return get_module(f"{func.__module__}.{func.__qualname__}.{func.__code__.co_firstlineno}")


def _caller_module(depth: int = 2) -> str:
    """The name of the Python module whose code is `depth` frames up (1: the caller of this
    function's caller): its __name__ ("__main__" for a script, also one run by runpy), else its
    __spec__'s name, else the module inspect finds for the frame, else the loaded module of its
    file. RuntimeError when none of those says."""
    frame = sys._getframe(depth)
    g = frame.f_globals
    if g.get("__name__"):
        return g["__name__"]
    spec = g.get("__spec__")
    if spec is not None and getattr(spec, "name", None):
        return spec.name
    found = inspect.getmodule(frame)
    if found is not None:
        return found.__name__
    filename = frame.f_code.co_filename
    for name, mod in list(sys.modules.items()):
        if getattr(mod, "__file__", None) == filename:
            return name
    raise RuntimeError(f"Could not determine the calling module (code from {filename!r} has no __name__ or "
                       "__spec__, and no loaded module has that file); pass the module explicitly, "
                       "e.g. wp.set_module_options(options, module=__name__)")


def set_module_options(options: dict, module=None) -> None:
    """Set options (Warp's: "enable_backward", "mode", "max_unroll", "fast_math" ...) on a module,
    by default the caller's; they apply to its kernels compiled from now on."""
    get_module(module if module is not None else _caller_module()).options.update(options)
    if "deterministic" in options:  # launchers made under the old level are made again (config.epoch)
        from .. import config
        config.epoch += 1


def get_module_options(module=None) -> dict:
    options = get_module(module if module is not None else _caller_module()).options
    keys = ("enable_backward", "max_unroll", "mode", "deterministic", "deterministic_max_records", *ModuleOptions._DEFAULTS)
    return {**{k: options[k] for k in keys}, **options}


def modules() -> list[Module]:
    return list(_MODULES.values())


def kernels_of(name: str) -> list:
    """The kernels registered for a Python module (or notebook cell) name."""
    module = _MODULES.get(name)
    return module.kernels if module is not None else []


def load_module(module=None, device=None, recursive: bool = False, block_dim: int | None = None) -> None:
    """Compile (or load from the cache) every kernel of `module` (a name, a Python module or a
    wp.Module; default: the caller's module) that is not ready on `device`; with `recursive`, also
    those of its submodules. RuntimeError when neither it nor a submodule defines any kernel,
    function or struct (a misspelt name, a module that is not Warp code), as in Warp."""
    if isinstance(module, str) and isinstance(sys.modules.get(module), ModuleType):
        module = sys.modules[module]  # an alias of a loaded module ("warp.utils") means that module
    target = get_module(module if module is not None else _caller_module())
    # a package's kernels are registered under the submodules that define them: they count as its content
    family = [m for m in list(_MODULES.values()) if m is target or m.name.startswith(target.name + ".")]
    # a package whose kernels are made on first use (wp.utils: per dtype, when called) is Warp code
    # with nothing to compile yet, not a misspelt name
    lazy = isinstance(module, ModuleType) and getattr(module, "__warp_nb_kernels_on_first_use__", False)
    if not any(m.kernels or m.functions or m.structs for m in family) and not lazy:
        raise RuntimeError(f"Module '{target.name}' does not contain any Warp kernels, functions, or structs "
                           "(is the name right, and is the module imported?)")
    for m in family if recursive else [target]:
        if m.load(device, block_dim) is None:
            # an explicit load reports a kernel that does not compile (its siblings are loaded and
            # launch); the error carries no frame that would keep the failed kernel alive
            error = m.first_failure(get_device(device))
            if error is not None:
                del m, family, target
                raise error.with_traceback(None)


def force_load(device=None, modules=None, block_dim=None, max_workers=None) -> None:
    """Compile every registered kernel (of `modules`: names, Python modules or wp.Modules; default
    all) for `device` (one or a list). The kernels of all the modules are built together, at most
    `max_workers` compiler processes at a time (default wp.config.load_module_max_workers, None: one
    per core; 0 or 1: one at a time). Every module is loaded before the first error (of a module
    none of whose kernels compiled) is raised, so one bad module does not keep the others out."""
    from .. import config
    workers = config.load_module_max_workers if max_workers is None else max_workers
    if workers is not None and (not isinstance(workers, int) or workers < 0):
        raise ValueError(f"force_load: max_workers must be None or a non-negative int, got {workers!r}")
    chosen = [get_module(m) for m in (modules if modules is not None else list(_MODULES))]
    for dev in device if isinstance(device, (list, tuple)) else [device]:
        dev = get_device(dev)
        # a block dim asked for is resolved (and refused when out of range) before compiling; none
        # asked: each module keeps the block dims it was loaded for
        lanes = None if block_dim is None else resolve_block_dim(dev, block_dim)
        with COMPILE_LOCK:
            pending = [p for m in chosen for p in m._pending(dev)]
            built = _build_together(pending, dev, workers) if len(pending) > 1 else frozenset()
        error = None
        for m in chosen:
            try:
                m._finish_load(dev, lanes, m.load_quietly(dev, built))
            except Exception as e:  # noqa: BLE001  (raised once every module had its turn)
                error = error or e
        if error is not None:
            raise error


def _warm_up_kernel(a: ArrayType(float32, 1), b: float32):
    i = tid()  # noqa: F821  (builtins need no `wp.` in kernels)
    if a[i] > b:
        a[i] = sin(a[i]) * b + 1.0  # noqa: F821


_warmed = False


def warm_up() -> None:
    """Everything the first launch would otherwise do once per process: the CPU target's runtime,
    the compiler's identity, the header digest, and the front half of the pipeline on a tiny
    kernel (parse, type, adjoint, emit, key: no C++ compiled)."""
    global _warmed
    if _warmed:
        return
    _warmed = True
    from ..compiler.pipeline import front_half
    from ..toolchain import cache
    from .kernel import Kernel

    cache.cache_dir()  # chosen now, as Warp's init does: wp.config.kernel_cache_dir names it from here on

    cpu = get_device("cpu")
    cpu.target.prepare()
    kernel = Kernel(_warm_up_kernel, key="wpnb_warm_up", module=Module("wpnb-warm-up"), register=False)
    front_half(kernel, kernel.param_types, kernel.compile_options(), cpu.target)


def _references_or_none(module) -> set:
    """`module.references`, or nothing when they cannot be found (a module whose options or kernels
    are invalid: its own launches report that; another module's `dependents` must not raise for it)."""
    try:
        return module.references
    except (KernelError, ValueError, TypeError):
        return set()

