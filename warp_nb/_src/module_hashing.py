"""`warp._src.context.ModuleHasher` / `ModuleBuilder`: Warp's classes that hash a module's code
and generate it without compiling, built on warp_nb's own module hash and the pipeline's front
half (program/module_build.py)."""

from __future__ import annotations

from ..compiler.build_options import with_build_options
from ..compiler.emit import for_target
from ..program.module_build import content_hash, emit_units, resolve_options
from ..runtime.devices import aot_target


class ModuleHasher:
    """Warp's ModuleHasher(kernels, options): the content hash of those kernels with those options."""

    def __init__(self, kernels, options: dict):
        self.kernels, self.options = list(kernels), dict(options)
        self._hash = None

    def get_hash(self) -> str:
        if self._hash is None:
            self._hash = content_hash(self.kernels, self.options)
        return self._hash


class ModuleBuilder:
    """Warp's ModuleBuilder(module, options): runs the front half of the pipeline for every kernel
    of the module when made (an error in a kernel is raised here), recording each kernel's typed IR
    (`kernel.adj.variables`); `codegen(device)` gives the generated translation units."""

    def __init__(self, module, options: dict | None = None, hasher=None):
        self.module = module
        self.options = dict(options) if options is not None else resolve_options(module)
        self.hasher = hasher
        # the hasher's kernels when given (in a fixed order: by key, then content hash, so kernels
        # sharing a key have one order too), else the module's
        kernels = sorted(hasher.kernels, key=lambda k: (k.key, k.hash)) if hasher is not None else module.kernels
        self.units = emit_units(kernels, self.options)
        for k, typed, _unit in self.units:
            k._built_ir = typed

    def build_meta(self) -> dict:
        """What a build of these kernels records beside its binary, by kernel key (sorted): the
        entry points' symbols, whether there is a backward pass and the kernel's block size."""
        meta = {}
        for k, typed, unit in sorted(self.units, key=lambda u: (u[0].key, u[0].hash)):
            meta.setdefault(k.key, []).append({"function": unit.function, "backward": bool(unit.entry_points[1:]),
                                               "block_dim": typed.block_dim})
        return meta

    def codegen(self, device: str = "cpu") -> str:
        """The C++ warp_nb generates for the module's kernels on `device`'s kind of target, one
        translation unit after another, each with that target's prelude, entry points and
        wp.ModuleBuildOptions preamble. No GPU is needed."""
        kind = str(device).split(":")[0]
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"codegen: device must be 'cpu' or 'cuda', got {device!r}")
        target = aot_target(kind)  # (a target without a device: no GPU or NVRTC needed to write the text)
        return "\n".join(with_build_options(for_target(unit, target), unit.build_options, target).source
                         for _k, _typed, unit in self.units)
