"""Which instruction set CPU kernels are compiled for, chosen as Warp chooses it: the -march /
-mcpu / -mtune flags of `cpu_compiler_flags` (a module option, else wp.config.cpu_compiler_flags,
else "-march=native": this machine's CPU). "" asks for the architecture's generic target, whose
binaries run on any CPU of the architecture (what ahead-of-time builds shipped elsewhere want).
Other flags of Warp's LLVM backend (-mllvm ...) have no g++ equivalent and are ignored.

Also the facts a CPU binary depends on (compiler version, target triple, CPU features), for the
names and keys of compiled CPU code."""

from __future__ import annotations

import platform
from functools import cache

NATIVE = "-march=native"
_ISA_PREFIXES = ("-march", "-mcpu", "-mtune")


def effective_flags(module_options=None) -> str:
    """The cpu_compiler_flags in effect: the module's option, else wp.config's, else -march=native."""
    from .. import config
    flags = module_options.get("cpu_compiler_flags") if module_options is not None else None
    if flags is None:
        flags = config.cpu_compiler_flags
    return NATIVE if flags is None else flags


def isa_flags(flags: str) -> str:
    """The instruction-set part of compiler flags (-march=..., -mcpu=..., -mtune=...)."""
    return " ".join(f for f in flags.split() if f.startswith(_ISA_PREFIXES))


def is_native(flags: str) -> bool:
    """Whether the flags target this machine's CPU (so the binary depends on its features)."""
    return any(f.endswith("=native") for f in isa_flags(flags).split())


def generic_flags() -> str:
    """g++ flags for the architecture's baseline (no -march=native extensions)."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return "-march=x86-64 -mtune=generic"
    if machine in ("aarch64", "arm64"):
        return "-march=armv8-a"
    return ""  # other architectures: the compiler's default target


def cxx_isa_flags(flags: str) -> str:
    """What to append to warp_nb's CPU compiler flags (whose release default is -march=native) for
    these cpu_compiler_flags: nothing for the default, the generic target for "", else their ISA
    flags (the last -march wins with g++ and clang++)."""
    isa = isa_flags(flags)
    if isa == NATIVE:
        return ""
    return isa or generic_flags()


@cache
def _ask_compiler(option: str) -> str:
    import subprocess  # (loaded when a compiler is first asked, not with warp_nb)
    from .cxx import find_compiler
    try:
        out = subprocess.run([find_compiler(), option], capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.strip() or "unknown"


def toolchain_version() -> str:
    """The C++ compiler's version (g++ -dumpfullversion)."""
    return _ask_compiler("-dumpfullversion")


def target_triple() -> str:
    """The triple the C++ compiler targets (g++ -dumpmachine): x86_64-linux-gnu ..."""
    return _ask_compiler("-dumpmachine")


@cache
def feature_set() -> frozenset:
    """This CPU's instruction-set features (the flags of /proc/cpuinfo; empty where unreadable)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def target_hash(flags: str, version: str, triple: str, features: frozenset) -> str:
    """8 hex digits naming the CPU target of a binary: the compiler version, the triple, the ISA
    flags and, for -march=native, this CPU's features."""
    import hashlib
    parts = [version, triple, isa_flags(flags)]
    if is_native(flags):
        parts.append(" ".join(sorted(features)))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]


def _probe(probes, name: str, default):
    """A probe's answer: `name` of `probes` when given and it has one (Warp's tests substitute
    warp._src.context._get_cpu_feature_set, _get_cpu_toolchain_version, _get_cpu_target_triple),
    else this module's own probe."""
    found = getattr(probes, name, None) if probes is not None else None
    return (found or default)()


def current_target_hash(module_options=None, flags: str | None = None, probes=None) -> str:
    """The target hash (above) of CPU code built now with `flags` (None: those in effect for a module
    with `module_options`)."""
    flags = effective_flags(module_options) if flags is None else flags
    return target_hash(flags, _probe(probes, "_get_cpu_toolchain_version", toolchain_version),
                       _probe(probes, "_get_cpu_target_triple", target_triple),
                       _probe(probes, "_get_cpu_feature_set", feature_set))
