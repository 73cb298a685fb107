"""A target is what makes a kind of device run kernels: the prelude and entry points it adds to
the generated C++ (which the emitter writes the same for every target), its part of a kernel's
cache key, how a translation unit is built into an artifact, how an artifact is loaded, how a
launch runs, and how its ahead-of-time artifacts are named and read. The pipeline
(`compiler.pipeline`), `wp.launch` and wp.compile_aot_module only talk to this interface, so a new
kind of device is one new target object. The CPU target is here (its entry points in
`cpu_entry.py`); the CUDA target is in `warp_nb.cuda.target`."""

from __future__ import annotations

import ctypes
from pathlib import Path

from . import cpu_entry, native
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
    #: a backward launch's unit holds the backward entry point alone (compiler/pipeline.py front_half
    #: entries="launch"): forward launches use the unit compiled without the adjoint, so the forward
    #: entry point of a unit with the adjoint would only be compiled again for nothing
    backward_alone = False
    #: the lines its translation units start with, before the native headers: which target compiles
    #: (the macro native/core/prelude.h reads) and the prelude header
    prelude: tuple[str, ...] = ()

    def entry_name(self, entry) -> str:
        """The symbol of the entry point `entry` (a compiler.emit.entry.EntryPoint)."""
        raise NotImplementedError

    def entry_point(self, entry) -> str:
        """The C++ text of the entry point `entry`: it runs the kernel's body over a launch."""
        raise NotImplementedError

    def build_preamble(self, build_options) -> str:
        """The C++ of a module's wp.ModuleBuildOptions that this target compiles (its preamble)."""
        return ""

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

    def write_adjoint_seeds(self, loaded, data: bytes, clear: int = 0) -> None:
        """Put `data` in the loaded kernel's adjoint seeds global (`loaded.adjoint_seeds`: compiler/
        emit/adjoint.py seeded_params) before a backward launch, or with `clear` > 0 zero that many
        bytes of it after the launch (ordered after the launch where launches are asynchronous)."""
        raise NotImplementedError

    def refuse_cluster_dim(self, kernel_key: str, cluster_dim: int) -> None:
        """Raise where this target cannot build a kernel declared with thread block clusters of
        `cluster_dim` blocks (the CPU has no clusters: the option does not apply, nothing to refuse)."""

    # --- ahead-of-time modules (program/aot.py) -----------------------------------------------
    def aot_target(self, use_ptx: bool | None = None, arch: int | None = None) -> Target:
        """The target an ahead-of-time build for this target's device uses (`use_ptx`, `arch`: what
        wp.compile_aot_module asks for instead of the device's own choice, where the kind has them)."""
        return self

    def artifact_name(self, identifier: str) -> str:
        """The file name of a module's ahead-of-time artifact (`identifier`: the module's)."""
        raise NotImplementedError

    def source_path(self, artifact: Path) -> Path | None:
        """Where the generated source of an ahead-of-time artifact is written beside it (None: not)."""
        return None

    def read_string(self, path: Path, symbol: str) -> bytes:
        """The NUL-terminated string that the artifact at `path`, loaded, exports as `symbol` (the
        manifest of an ahead-of-time module)."""
        raise NotImplementedError


class CpuTarget(Target):
    """The host's C++ compiler builds a shared library; ctypes loads it; the native runtime's
    thread pool runs it."""

    name = "cpu"
    suffix = ".so"
    direct = True
    backward_alone = True
    prelude = ("#define WPNB_CPU 1", '#include "core/prelude.h"')

    def entry_name(self, entry) -> str:
        return cpu_entry.entry_name(entry)

    def entry_point(self, entry) -> str:
        return cpu_entry.entry_point(entry)

    def build_preamble(self, build_options) -> str:
        return build_options.extra_cpu_preamble

    def key_parts(self, options) -> tuple[str, ...]:
        from ..toolchain import cxx  # (subprocess, hashlib: loaded with the first kernel, not with warp_nb)
        return cxx.identity_key(), " ".join(cxx.compiler_flags(options.mode, options.cxx_flags, options.vector_math))

    def build(self, unit, out_path: Path, options) -> None:
        from ..toolchain import cxx
        from ..toolchain import external as external_files
        from ..toolchain.headers import native_dir
        cxx.compile_library(unit.source, out_path, native_dir(), options.mode, options.cxx_flags, unit.function,
                            vector_math=options.vector_math,
                            include_dirs=unit.build_options.include_dirs("cpu") if unit.build_options else (),
                            libraries=external_files.libraries_for(unit.headers))  # (wp.build_experimental)

    def load(self, path: Path, unit, options) -> LoadedKernel:
        return load_kernel(path, unit.entry, unit.backward_entry, debug=has_checks(options.mode),
                           seeds_global=unit.seeds_global)

    def prepare(self) -> None:
        native.library()

    def write_adjoint_seeds(self, loaded, data: bytes, clear: int = 0) -> None:
        if clear:
            ctypes.memset(loaded.adjoint_seeds, 0, clear)
        else:
            ctypes.memmove(loaded.adjoint_seeds, data, len(data))

    def run(self, launcher, packed: bytes, bounds: bytes, size: int) -> None:
        # deterministic mode: "serial" entry points run on one thread, in thread order; a deferring
        # one's logged float atomics are applied in thread order once every chunk has run
        threads = 1 if launcher.deterministic == "serial" else launcher.threads()
        try:
            native.launch(launcher.entry, packed, bounds, threads, launcher.stats)
        finally:  # (never left in the logs for a later launch, whose arrays may be others)
            if launcher.replay is not None:
                launcher.replay()
        state = launcher.debug_state
        if state is not None and state.failed:
            raise failed_check(launcher, bounds)

    def artifact_name(self, identifier: str) -> str:
        return f"{identifier}.o"  # Warp's name for the CPU artifact; here it is a shared library

    def read_string(self, path: Path, symbol: str) -> bytes:
        lib = ctypes.CDLL(str(path))
        return ctypes.cast(ctypes.addressof(ctypes.c_char.in_dll(lib, symbol)), ctypes.c_char_p).value


def failed_check(launcher, bounds: bytes) -> Exception:
    """The error a launch's checks recorded (to raise at the caller's line), leaving the check state
    cleared for the next launch (it starts zeroed and is only ever written by a failing check, so a
    launch that passes costs one read)."""
    state = launcher.debug_state
    error = debug_error(launcher.kernel.key, launcher.compiled.unit.debug_sites, state, bounds)
    ctypes.memset(ctypes.addressof(state), 0, ctypes.sizeof(state))
    return error
