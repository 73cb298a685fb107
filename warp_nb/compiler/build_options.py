"""`wp.ModuleBuildOptions`: extra C++/CUDA text and include directories for a module's builds, set
as the module option "extra_build_options" (wp.set_module_options, module_options=). What it
changes, for every kernel of the module:
- the generated translation unit: the target's preamble (`Target.build_preamble`: the CPU's is
  compiled only by the C++ compiler, the CUDA one only by NVRTC) sits after warp_nb's native
  headers (so it may use their macros and types) and before the generated code (which may call
  what it declares); a unit for no target (a module's hash) has none, the digest stands for them;
- the compiler's include path (`-I`), per target;
- the kernel's cache key (the text and the directories), so a change rebuilds it.
"""

from __future__ import annotations

import dataclasses
import os

from .records import record
from ..toolchain.external import update_with_file


def _preamble(text) -> str:
    if not isinstance(text, str):
        raise TypeError(f"a preamble must be a str, got {type(text).__name__}")
    return text


def _normal_preamble(text: str) -> str:
    """One trailing newline, so "x" and "x\\n" are the same preamble (and the same hash)."""
    return text.rstrip("\n") + "\n" if text.strip() else ""


def _paths(paths) -> list:
    if paths is None:
        return []
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [os.fspath(p) for p in paths]


def checked_include_dirs(dirs, what: str) -> tuple:
    """The include directories a compiler is given: each must be an existing directory given by absolute
    path (checked when a kernel is built, as Warp accepts any value when the options are made)."""
    out = []
    for path in dirs:
        if not os.path.isabs(path):
            raise ValueError(f"{what}: {path!r} is not an absolute path")
        if not os.path.isdir(path):
            raise ValueError(f"{what}: {path!r} is not an existing directory")
        out.append(os.path.normpath(path))
    return tuple(out)


def _union(a: list, b: list) -> list:
    return list(dict.fromkeys(a + b))


def _join(a: str, b: str) -> str:
    """Two preambles one after the other, on separate lines."""
    return a + "\n" + b if a and b and not a.endswith("\n") else a + b


@record(init=False, eq=False)
class ModuleBuildOptions:
    """Extra build inputs of a module's kernels (see the module docstring). The values are kept as given
    (Warp's lists and text); the digest normalizes them."""

    extra_cuda_include_dirs: list = dataclasses.field(default_factory=list)
    extra_cpu_include_dirs: list = dataclasses.field(default_factory=list)
    extra_cuda_preamble: str = ""
    extra_cpu_preamble: str = ""
    extra_build_dependencies: list = dataclasses.field(default_factory=list)  # files the build depends on

    def __init__(self, *, extra_cuda_include_dirs=None, extra_cpu_include_dirs=None, extra_cuda_preamble="",
                 extra_cpu_preamble="", extra_build_dependencies=None):
        self.extra_cuda_include_dirs = _paths(extra_cuda_include_dirs)
        self.extra_cpu_include_dirs = _paths(extra_cpu_include_dirs)
        self.extra_cuda_preamble = _preamble(extra_cuda_preamble)
        self.extra_cpu_preamble = _preamble(extra_cpu_preamble)
        self.extra_build_dependencies = _paths(extra_build_dependencies)

    def merged(self, other: "ModuleBuildOptions") -> "ModuleBuildOptions":
        """Both options together (directories and dependencies of both, preambles one after the other)."""
        if not isinstance(other, ModuleBuildOptions):
            raise TypeError(f"ModuleBuildOptions.merged takes another wp.ModuleBuildOptions, got {type(other).__name__}")
        return ModuleBuildOptions(
            extra_cuda_include_dirs=_union(self.extra_cuda_include_dirs, other.extra_cuda_include_dirs),
            extra_cpu_include_dirs=_union(self.extra_cpu_include_dirs, other.extra_cpu_include_dirs),
            extra_cuda_preamble=_join(self.extra_cuda_preamble, other.extra_cuda_preamble),
            extra_cpu_preamble=_join(self.extra_cpu_preamble, other.extra_cpu_preamble),
            extra_build_dependencies=_union(self.extra_build_dependencies, other.extra_build_dependencies))

    def include_dirs(self, kind: str) -> tuple:
        """The include directories of the "cpu" or "cuda" compiler, checked (checked_include_dirs)."""
        return checked_include_dirs(getattr(self, f"extra_{kind}_include_dirs"), f"extra_{kind}_include_dirs")

    @property
    def is_empty(self) -> bool:
        return not any(x.strip() if isinstance(x, str) else x for x in dataclasses.astuple(self))

    def digest(self) -> str:
        """What the build depends on: every field, and the current contents of the dependencies."""
        fields = (tuple(map(os.path.normpath, self.extra_cuda_include_dirs)),
                  tuple(map(os.path.normpath, self.extra_cpu_include_dirs)),
                  _normal_preamble(self.extra_cuda_preamble), _normal_preamble(self.extra_cpu_preamble),
                  tuple(self.extra_build_dependencies))
        import hashlib  # (OpenSSL: loaded on first need, not with warp_nb)
        h = hashlib.sha256(repr(fields).encode())
        for path in self.extra_build_dependencies:
            update_with_file(h, path)
        return h.hexdigest()


def build_options_of(module) -> ModuleBuildOptions | None:
    """The module's "extra_build_options", None when not set or empty."""
    opts = dict.get(module.options, "extra_build_options") if module is not None else None
    if opts is None:
        return None
    if not isinstance(opts, ModuleBuildOptions):
        raise TypeError(f"the module option 'extra_build_options' must be a wp.ModuleBuildOptions, "
                        f"got {type(opts).__name__}")
    return None if opts.is_empty else opts


def with_build_options(unit, opts: ModuleBuildOptions | None, target=None):
    """The EmitResult `unit` with `target`'s preamble (`target.build_preamble(opts)`; none without a
    target) inserted after its headers and the options recorded (for the compilers' include paths
    and the cache key); `unit` itself when there are none."""
    if opts is None:
        return unit
    preamble = target.build_preamble(opts) if target is not None else ""
    source = unit.source
    if preamble:
        lines = source.split("\n")
        # the header block ends at the blank line after the last #include (emit/kernel.py preamble_lines)
        last = max((i for i, line in enumerate(lines) if line.startswith("#include ")), default=0)
        source = "\n".join(lines[:last + 1] + [preamble.rstrip("\n")] + lines[last + 1:])
    return dataclasses.replace(unit, source=source, build_options=opts)
