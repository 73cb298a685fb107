"""Ahead-of-time compilation for GPUs, without a GPU: `wp.compile_aot_module` writes the PTX or
CUBIN of every kernel of a module, as Warp's function of the same name does. It runs the same
pipeline as a launch, with a CUDA target that has an architecture but no device."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from .compiler.adjoint import NotDifferentiableError
from .cuda.target import AotCudaTarget
from .compiler.pipeline import compile_kernel
from .program.module import kernels_of


def compile_aot_module(module=None, arch: int = 90, module_dir: str | os.PathLike | None = None,
                       use_ptx: bool = True, backward: bool = True, strip_hash: bool = False) -> list[Path]:
    """Compile every kernel of `module` (a Python module, its name, or None for the caller's)
    for the GPU architecture `arch`, writing one .ptx or .cubin file per kernel (forward and, with
    `backward`, adjoint kernels in the same file). A kernel that cannot be differentiated is
    written forward only, with a warning that names it. Returns the files."""
    if module is None:
        module = sys._getframe(1).f_globals.get("__name__", "__main__")
    name = module if isinstance(module, str) else getattr(module, "__name__", str(module))
    kernels = kernels_of(name)
    if not kernels:
        raise ValueError(f"module {name!r} has no kernels")
    target = AotCudaTarget(arch, use_ptx)
    out_dir = Path(module_dir or Path.cwd() / "aot")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for k in kernels:
        try:
            compiled = compile_kernel(k, k.param_types, target, k.compile_options(backward and k.backward_enabled))
        except NotDifferentiableError as e:
            warnings.warn(f"compile_aot_module: kernel `{k.key}` is written without its backward pass: {e.message}",
                          stacklevel=2)
            compiled = compile_kernel(k, k.param_types, target, k.compile_options(False))
        suffix = target.suffix[1:]
        path = out_dir / (f"{k.syntax.name}.sm{arch}.{suffix}" if strip_hash else
                          f"{k.syntax.name}_{compiled.key[:12]}.sm{arch}.{suffix}")
        path.write_bytes(compiled.loaded.read_bytes())
        written.append(path)
    return written
