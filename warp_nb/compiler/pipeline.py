"""The compiler pipeline in one function. A kernel definition and a concrete signature come in;
a kernel loaded on a target comes out:

    parse -> type -> adjoint -> emit -> key -> build or fetch -> load

Each stage is its own module (parse.py, typecheck.py, adjoint.py, emit/, toolchain/cache.py) and
the target (runtime/target.py, cuda/target.py) supplies what depends on the device kind: its
part of the cache key, its compiler, its loader. The kernel is the unit of compilation and
caching; which kernels compile together, and in parallel, is `warp_nb.module`'s business."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from .. import config
from ..toolchain import cache
from ..toolchain.headers import headers_digest
from . import ir
from .adjoint import adjoint_unit
from .build_options import build_options_of, with_build_options
from .emit import EmitResult, emit_kernel
from .emit.cpp import EMIT_REVISION
from .parse import parse_definition
from .typecheck import Context, typecheck_kernel
from .verify import between_stages

#: Every compile in this process, for every target: (kernel key, seconds, compiled_now). The
#: notebook layer reads it to say "compiled" or "cached".
compile_log: list = []


@dataclass(frozen=True)
class CompileOptions:
    """What changes the generated code or its compilation, apart from the kernel and the target.
    Computed once per launch configuration (`Kernel.options`), so every target sees the same."""

    mode: str = "release"  # "checked": optimised with bounds checks; "debug": checks, asserts, -O0 -g
    backward: bool = False  # also emit the adjoint
    cxx_flags: str = ""  # extra C++ compiler flags (CPU)
    block_dim: int = 1  # lanes per block of a tile kernel (native/tiles/block.h); 1 for every other kernel


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel ready to launch on one target with one set of options."""

    key: str  # the cache key (content hash)
    typed: ir.Function
    unit: EmitResult
    loaded: object  # what the target's load gave: runtime.load.LoadedKernel, cuda.target.LoadedCudaKernel ...
    compile_seconds: float
    compiled_now: bool


class BuildDeferred(Exception):
    """Raised by compile_kernel(..., defer_build=True) when the kernel is not in the cache: its
    translation unit, for the caller to build together with others (program/module.py), after
    which compile_kernel finds it in the cache."""

    def __init__(self, name: str, key: str, unit: EmitResult, options: CompileOptions):
        super().__init__(name)
        self.name, self.key, self.unit, self.options = name, key, unit, options


def compile_kernel(kernel, signature: list, target, options: CompileOptions, defer_build: bool = False,
                   built_together: frozenset = frozenset()) -> CompiledKernel:
    """`kernel` (a wp.Kernel) typed for `signature` (one type per parameter), compiled for
    `target` and loaded. Raises KernelError at the user's line for an error in the kernel (and
    BuildDeferred when asked to leave a missing build to the caller; `built_together`: cache keys
    the caller has just built in a bundle, which count as compiled now)."""
    t0 = time.perf_counter()
    syntax = parse_definition(kernel.func)
    context = Context(options.mode, options.backward, getattr(kernel, "backward_enabled", False), options.block_dim)
    typed = typecheck_kernel(syntax, signature, kernel.scope, context)
    adjoint = adjoint_unit(typed, options.backward)  # without backward: only what wp.grad(f) calls
    between_stages(typed, adjoint, options.mode)  # print and verify the IR when debugging
    unit = with_module_build_options(kernel, emit_kernel(typed, options.mode, adjoint))
    key = cache_key(unit, target, options)
    path, compiled_now = fetch_or_build(f"k_{typed.name}", key, unit, target, options, defer_build)
    compiled_now = compiled_now or key in built_together
    loaded = target.load(path, unit, options)
    seconds = time.perf_counter() - t0
    compile_log.append((kernel.key, seconds, compiled_now))
    return CompiledKernel(key, typed, unit, loaded, seconds, compiled_now)


def emit_unit(kernel, signature: list, options: CompileOptions, symbol: str | None = None,
              build_options="module") -> tuple[ir.Function, EmitResult]:
    """The front half of compile_kernel (which spells its stages out itself): parse -> type -> adjoint
    -> emit, for one concrete signature, no C++ compiled. `symbol` renames the kernel's C++ symbol
    (overloads of one kernel compiled into one translation unit: wp.compile_aot_module).
    `build_options`: the wp.ModuleBuildOptions to apply (None: none), by default the module's."""
    syntax = parse_definition(kernel.func)
    context = Context(options.mode, options.backward, getattr(kernel, "backward_enabled", False), options.block_dim)
    typed = typecheck_kernel(syntax, signature, kernel.scope, context)
    if symbol is not None:
        typed = dataclasses.replace(typed, symbol=symbol)
    adjoint = adjoint_unit(typed) if options.backward else None
    between_stages(typed, adjoint, options.mode)  # print and verify the IR when debugging
    unit = emit_kernel(typed, options.mode, adjoint)
    if build_options == "module":
        return typed, with_module_build_options(kernel, unit)
    return typed, with_build_options(unit, build_options)


def with_module_build_options(kernel, unit: EmitResult) -> EmitResult:
    """`unit` with its module's wp.ModuleBuildOptions applied (preambles, include paths)."""
    return with_build_options(unit, build_options_of(getattr(kernel, "module", None)))


def fetch_or_build(name: str, key: str, unit: EmitResult, target, options: CompileOptions, defer: bool = False):
    """(artifact path, compiled_now): from the cache, else built by the target (or, with `defer`,
    left to the caller: BuildDeferred)."""
    if defer:
        found = cache.lookup(name, key, target.suffix)
        if found is None:
            raise BuildDeferred(name, key, unit, options)
    return cache.get_or_build(name, key, lambda out: target.build(unit, out, options), suffix=target.suffix)


def cache_key(unit: EmitResult, target, options: CompileOptions) -> str:
    """The generated C++ (without its comment lines, which hold the user's file and lines: moving
    code does not change a kernel's key), the native headers, this package's version and the
    target's own parts (its compiler and flags)."""
    code = "\n".join(line for line in unit.source.splitlines() if not line.lstrip().startswith("//"))
    extra = (unit.build_options.digest(),) if unit.build_options is not None else ()
    if options.block_dim > 1:  # (the code says it too: lane counts are template arguments)
        extra += (f"block_dim={options.block_dim}",)
    return cache.make_key(code, headers_digest(), cache.VERSION, EMIT_REVISION, *target.key_parts(options), *extra)


def default_options(mode: str | None = None, backward: bool = False) -> CompileOptions:
    return CompileOptions(mode or config.mode, backward, config.cxx_flags)
