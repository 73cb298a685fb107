"""A target is what makes a kind of device run kernels: its part of a kernel's cache key, how the
generated C++ is built into an artifact, how an artifact is loaded, and how a launch runs. The
pipeline (`compiler.pipeline.compile_kernel`) and `wp.launch` only talk to this interface, so a
new kind of device is one new target object. The CPU target is here; the CUDA target is in
`warp_nb.cuda.target`."""

from __future__ import annotations

import ctypes
from pathlib import Path

from ..toolchain import cxx
from ..toolchain.headers import native_dir
from . import native
from ..toolchain.modes import has_checks
from .debug import debug_error
from .load import LoadedKernel, load_kernel


class Target:
    """The interface every device kind implements. `options` is a compiler CompileOptions."""

    name = ""
    suffix = ""  # of the artifact in the cache (".so", ".cubin", ".ptx")
    #: wp.launch may call the native CPU runtime directly (the fast path) for loaded kernels
    #: without debug checks
    direct = False

    def key_parts(self, options) -> tuple[str, ...]:
        """What the compiled artifact depends on besides the C++ text and the native headers."""
        raise NotImplementedError

    def build(self, unit, out_path: Path, options) -> None:
        """Compile the translation unit `unit` (an EmitResult) into `out_path`."""
        raise NotImplementedError

    def load(self, path: Path, unit, options):
        """Load a built artifact; what it returns is kept as CompiledKernel.loaded."""
        raise NotImplementedError

    def run(self, launcher, packed: bytes, bounds: bytes, size: int) -> None:
        """Run one launch (`packed`: the argument struct, `bounds`: the launch bounds)."""
        raise NotImplementedError

    def prepare(self) -> None:
        """One-time work before the first kernel runs (done alongside the first compiles)."""


class CpuTarget(Target):
    """The host's C++ compiler builds a shared library; ctypes loads it; the native runtime's
    thread pool runs it."""

    name = "cpu"
    suffix = ".so"
    direct = True

    def key_parts(self, options) -> tuple[str, ...]:
        return cxx.identity_key(), " ".join(cxx.compiler_flags(options.mode, options.cxx_flags))

    def build(self, unit, out_path: Path, options) -> None:
        cxx.compile_library(unit.source, out_path, native_dir(), options.mode, options.cxx_flags, unit.function,
                            include_dirs=unit.build_options.extra_cpu_include_dirs if unit.build_options else ())

    def load(self, path: Path, unit, options) -> LoadedKernel:
        return load_kernel(path, unit.entry, unit.backward_entry, debug=has_checks(options.mode))

    def prepare(self) -> None:
        native.library()

    def run(self, launcher, packed: bytes, bounds: bytes, size: int) -> None:
        native.launch(launcher.entry, packed, bounds, launcher.threads(), launcher.stats)
        state = launcher.debug_state
        if state is not None and state.failed:
            raise_failed_check(launcher)


def raise_failed_check(launcher) -> None:
    """Raise the error a launch's checks recorded, leaving the check state cleared for the next
    launch (it starts zeroed and is only ever written by a failing check, so a launch that passes
    costs one read)."""
    state = launcher.debug_state
    error = debug_error(launcher.kernel.key, launcher.compiled.unit.debug_sites, state)
    ctypes.memset(ctypes.addressof(state), 0, ctypes.sizeof(state))
    raise error
