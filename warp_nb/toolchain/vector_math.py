"""Vectorised libm on the CPU: glibc's libmvec, found once per process.

A loop that calls sinf stays scalar with g++: the vectoriser needs to know a vector version of the
function exists. glibc ships them (libmvec: `_ZGVdN8v_sinf` is sinf on 8 floats with AVX2), and
g++ calls them for any function declared with `__attribute__((simd))`. native/core/libm.h
declares the libm functions that way when WPNB_VMATH is defined, at the level this module finds:

  1  sin, cos, exp, log, pow                       (glibc 2.22 and later)
  2  and tan, asin, acos, atan, atan2, sinh, cosh,
     tanh, cbrt, erf, log2, log10                  (glibc 2.35 and later)

A level is used only where every x86-64 variant of each of its functions (SSE4, AVX, AVX2 and
AVX-512; float and double) is in the libmvec.so.1 this process can load, so a kernel can never
ask for a symbol the loader lacks. Other platforms, other C libraries and clang (which does not
read the attribute) get level 0: the scalar calls, as before.

The vector versions are not correctly rounded: libmvec promises 4 ulp at most; sin and cos
measured 1.9 ulp against 0.56 for the scalar functions (docs/compat.md, Vector math).
`wp.config.cpu_vector_math = False` keeps the scalar calls; debug builds always do."""

from __future__ import annotations

import ctypes
import platform
import sys
from functools import lru_cache

#: the library's soname: linked by that name (-l:), so no libc6-dev symlink is needed
LIBRARY = "libmvec.so.1"

#: (level, unary functions, binary functions)
LEVELS = (
    (1, ("sin", "cos", "exp", "log"), ("pow",)),
    (2, ("tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "cbrt", "erf", "log2", "log10"), ("atan2",)),
)

# x86-64 vector function ABI: ISA letter -> (float lanes, double lanes)
_ISAS = {"b": (4, 2), "c": (8, 4), "d": (8, 4), "e": (16, 8)}


def symbols(level: int) -> list[str]:
    """Every libmvec symbol that code compiled at `level` may call."""
    names = []
    for lv, unary, binary in LEVELS:
        if lv > level:
            break
        for fns, args in ((unary, "v"), (binary, "vv")):
            for fn in fns:
                for isa, (f_lanes, d_lanes) in _ISAS.items():
                    names.append(f"_ZGV{isa}N{f_lanes}{args}_{fn}f")
                    names.append(f"_ZGV{isa}N{d_lanes}{args}_{fn}")
    return names


@lru_cache(maxsize=1)
def available_level() -> int:
    """The highest level whose symbols this process's libmvec has (0: none, or not x86-64 Linux)."""
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        return 0
    try:
        lib = ctypes.CDLL(LIBRARY)
    except OSError:
        return 0
    found = 0
    for level, _, _ in LEVELS:
        if not all(hasattr(lib, name) for name in symbols(level)):
            break
        found = level
    return found


def level(compiler_version: str) -> int:
    """The level a kernel asking for vector math is compiled at: 0 where the compiler is not g++
    (`compiler_version`: its --version line)."""
    if "clang" in compiler_version.lower():
        return 0
    return available_level()


def flags(compiler_version: str) -> list[str]:
    """The compiler flags of that level (part of each kernel's cache key: a kernel asks for vector
    math through CompileOptions.vector_math, from wp.config.cpu_vector_math)."""
    lv = level(compiler_version)
    return [f"-DWPNB_VMATH={lv}"] if lv else []


def libraries(flag_list: list[str]) -> list[str]:
    """What to link when `flag_list` (a compile's flags) asks for vector math."""
    return [f"-l:{LIBRARY}"] if any(f.startswith("-DWPNB_VMATH=") for f in flag_list) else []
