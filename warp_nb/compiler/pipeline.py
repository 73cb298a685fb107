"""The compiler pipeline: two halves, composed by `compile_kernel`. A kernel definition and a
concrete signature come in; a kernel loaded on a target comes out:

    front half:  parse -> type -> adjoint -> emit -> key      (Python only: a Translation)
    back half:   build or fetch -> load                       (the target's compiler and loader)

Every driver calls these halves and none spells the stages out again: a launch (compile_kernel),
a module load (program/module.py: the front half of each kernel, then one build of the missing
ones together, then the back half of each), wp.compile_aot_module and Warp's module hashers (the
front half alone), warm-up (the front half of a tiny kernel).

Each stage is its own module (parse.py, typecheck.py, adjoint.py, emit/, toolchain/cache.py) and
the target (runtime/target.py, cuda/target.py) supplies what depends on the device kind: its
prelude and entry points (part of the translation unit, so of the key), its part of the cache
key, its compiler, its loader. The kernel is the unit of compilation and
caching; which kernels compile together, and in parallel, is `warp_nb.module`'s business."""

from __future__ import annotations

import dataclasses
import time

from .records import record
from ..toolchain import cache
from ..toolchain.headers import headers_digest
from . import ir
from .adjoint import adjoint_unit
from .build_options import build_options_of, with_build_options
from ..toolchain import external as external_files
from .deterministic import plan_kernel
from .emit import EmitResult, emit_kernel, for_target
from .emit.cpp import EMIT_REVISION
from .emit.entry import external_entry_points
from .entry_abi import EXTERNAL_CONSTANT_PARAMS, check_external_entry
from .options import CompileOptions  # noqa: F401  (defined apart: launches need it without the compiler)
from .parse import parse_definition
from .typecheck import Context, typecheck_kernel
from .verify import between_stages

#: Every compile in this process, for every target: (kernel key, seconds, compiled_now). The
#: notebook layer reads it to say "compiled" or "cached".
compile_log: list = []


@record(frozen=True)
class Translation:
    """What the front half gives: a kernel typed for one signature, its translation unit (C++ text
    with its build options) and, for a target, the unit's cache key. No compiler has run."""

    kernel_key: str  # the wp.Kernel's key (what the compile log names)
    typed: ir.Function
    unit: EmitResult
    key: str | None  # the cache key; None when translated without a target (module hashes, typed IR only)
    options: CompileOptions
    seconds: float  # time spent in the front half

    @property
    def name(self) -> str:
        """The name of its artifact in the cache (beside the key)."""
        return f"k_{self.typed.name}"


@record(frozen=True)
class CompiledKernel:
    """A kernel ready to launch on one target with one set of options."""

    key: str  # the cache key (content hash)
    typed: ir.Function
    unit: EmitResult
    loaded: object  # what the target's load gave: runtime.load.LoadedKernel, cuda.target.LoadedCudaKernel ...
    compile_seconds: float
    compiled_now: bool


def compile_kernel(kernel, signature: list, target, options: CompileOptions, front: Translation | None = None,
                   built_together: frozenset = frozenset()) -> CompiledKernel:
    """`kernel` (a wp.Kernel) typed for `signature` (one type per parameter), compiled for `target`
    and loaded: the front half, then the back half. `front`: the front half already run (a module
    load translates its kernels first, to build the missing ones together); `built_together`: cache
    keys the caller has just built, which count as compiled now. Raises KernelError at the user's
    line for an error in the kernel."""
    front = front or front_half(kernel, signature, options, target, entries="launch")
    loaded, seconds, compiled_now = back_half(front, target)
    compiled_now = compiled_now or front.key in built_together
    compile_log.append((kernel.key, front.seconds + seconds, compiled_now))
    return CompiledKernel(front.key, front.typed, front.unit, loaded, front.seconds + seconds, compiled_now)


def front_half(kernel, signature: list, options: CompileOptions, target=None, symbol: str | None = None,
               build_options="module", entries: str = "all") -> Translation:
    """parse -> type -> adjoint -> emit -> key, for one concrete signature; no C++ compiled.
    `target`: the target the unit is for, which writes its prelude and entry points and whose
    cache key is computed (None: neither; the text is the same for every target). `symbol` renames
    the kernel's C++ symbol (overloads of one kernel in one translation unit:
    wp.compile_aot_module). `build_options`: the wp.ModuleBuildOptions to apply (None: none), by
    default the module's. `entries`: "all" entry points, or those a "launch" runs (launched_entries)."""
    t0 = time.perf_counter()
    syntax = parse_definition(kernel.func)
    context = Context(options.mode, options.backward, getattr(kernel, "backward_enabled", False), options.block_dim)
    typed = typecheck_kernel(syntax, signature, kernel.scope, context)
    if symbol is not None:
        typed = dataclasses.replace(typed, symbol=symbol)
    external = getattr(kernel, "options", {}).get("entry_point_abi") == EXTERNAL_CONSTANT_PARAMS
    if external:  # an entry point for another program to launch (entry_abi.py)
        check_external_entry(typed, options.deterministic)
    plan = plan_kernel(typed, options.backward) if options.deterministic else None  # (or refused)
    adjoint = adjoint_unit(typed, options.backward)  # without backward: only what wp.grad(f) calls
    between_stages(typed, adjoint, options.mode)  # print and verify the IR when debugging
    unit = emit_kernel(typed, options.mode, adjoint, plan, options.verify_fp)
    if external:
        unit = dataclasses.replace(unit, entry_points=external_entry_points(unit.entry_points, typed, kernel.key))
    unit = launched_entries(unit, options, target) if entries == "launch" else unit
    unit = for_target(unit, target) if target is not None else unit  # the target's prelude and entry points
    unit = with_build_options(unit, build_options_of(getattr(kernel, "module", None))
                              if build_options == "module" else build_options, target)
    key = cache_key(unit, target, options) if target is not None else None
    return Translation(kernel.key, typed, unit, key, options, time.perf_counter() - t0)


def launched_entries(unit: EmitResult, options: CompileOptions, target) -> EmitResult:
    """`unit` with the entry points a launch with `options` runs: on a target whose backward
    launches have units of their own (`backward_alone`), a backward launch's unit has the backward
    entry point alone, as the forward launches use the unit compiled without the adjoint (its
    forward entry point would be compiled again for nothing: about a quarter of the build)."""
    if not (options.backward and getattr(target, "backward_alone", False)):
        return unit
    return dataclasses.replace(unit, entry_points=tuple(e for e in unit.entry_points if e.direction != "forward"))


def back_half(front: Translation, target) -> tuple[object, float, bool]:
    """build or fetch -> load: (what the target loaded, seconds, whether it was compiled now)."""
    t0 = time.perf_counter()
    path, compiled_now = fetch_or_build(front.name, front.key, front.unit, target, front.options)
    loaded = target.load(path, front.unit, front.options)
    return loaded, time.perf_counter() - t0, compiled_now


def fetch_or_build(name: str, key: str, unit: EmitResult, target, options: CompileOptions):
    """(artifact path, compiled_now): from the cache, else built by the target."""
    return cache.get_or_build(name, key, lambda out: target.build(unit, out, options), suffix=target.suffix)


def is_cached(front: Translation, target) -> bool:
    """Whether the back half of `front` would find its artifact in the cache (no build)."""
    return cache.lookup(front.name, front.key, target.suffix) is not None


def cache_key(unit: EmitResult, target, options: CompileOptions) -> str:
    """The generated C++ (without its comment lines, which hold the user's file and lines: moving
    code does not change a kernel's key), the native headers, this package's version and the
    target's own parts (its compiler and flags)."""
    code = "\n".join(line for line in unit.source.splitlines() if not line.lstrip().startswith("//"))
    extra = (unit.build_options.digest(),) if unit.build_options is not None else ()
    user_headers = external_files.digest(unit.headers)  # the contents of the user's headers and libraries
    extra += (user_headers,) if user_headers is not None else ()
    if options.block_dim > 1:  # (the code says it too: lane counts are template arguments)
        extra += (f"block_dim={options.block_dim}",)
    return cache.make_key(code, headers_digest(), cache.VERSION, EMIT_REVISION, *target.key_parts(options), *extra)
