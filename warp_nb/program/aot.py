"""Ahead-of-time compilation, as Warp's `wp.compile_aot_module` / `wp.load_aot_module`: one file
per module and target, named by the module's identifier (`wp_<module>_<hash>`, or `wp_<module>`
with strip_hash) and the target (`Target.artifact_name`: for the CPU a shared library
`<identifier>.o`; for CUDA a PTX or CUBIN `<identifier>.sm<arch>.ptx|cubin`, which NVRTC builds
without a GPU, with the generated source beside it where `Target.source_path` says). Every kernel
of the module (each overload of a generic one) is in it, forward and backward, with a manifest (a
string the file exports, read back by `Target.read_string`) that says which of the target's entry
points belong to which kernel and signature, so loading needs nothing but the file.

Loading binds the module's kernels to the file's entry points: their launches run the file's code,
even when the Python source changed since (what strip_hash is for), until the kernel is redefined.
This module runs the pipeline's front half and the targets' builders; it does not launch, and it
names no device kind: what differs between kinds is the target's."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .. import config, types as T
from ..compiler.adjoint import NotDifferentiableError
from ..compiler.emit import EmitResult
from ..compiler.emit.bundle import bundle_source, can_join
from ..compiler.pipeline import CompiledKernel, CompileOptions, front_half
from ..errors import KernelError
from .cuda_options import cluster_dim_of
from .module import Module, get_module
from ..runtime.devices import aot_target, get_device
from ..toolchain import cache
from ..errors import warn
from ..runtime import compat_hooks

_MANIFEST = "wpnb_aot_manifest"


def compile_aot_module(module=None, device=None, arch=None, module_dir: str | os.PathLike | None = None,
                       use_ptx: bool | None = None, strip_hash: bool | None = None, *,
                       backward: bool = True) -> list[Path]:
    """Compile every kernel of `module` (a Python module, its name, a wp.Module; None: the caller's)
    for `device` (default: the current device, unless `arch` is given) and for each architecture of
    `arch` (an int or a list), into `module_dir` (default ./aot). Returns the files, the device's
    first. A file already there is kept while wp.config.cache_kernels is set. strip_hash=None keeps
    the module's option; True or False sets it."""
    mod = _module(module)
    _set_strip_hash(mod, strip_hash)
    jobs = _module_jobs(mod)
    if (device is not None or arch is None) and get_device(device).is_cpu:
        _warn_native_isa(mod)
    out_dir = Path(module_dir or Path.cwd() / "aot")
    out_dir.mkdir(parents=True, exist_ok=True)
    identifier = mod.get_module_identifier()
    targets = []
    if device is not None or arch is None:
        targets.append(get_device(device).target.aot_target(use_ptx))
    for a in ([arch] if isinstance(arch, int) else list(arch or ())):  # Warp's `arch`: a CUDA architecture
        targets.append(aot_target("cuda", int(a), True if use_ptx is None else use_ptx))
    for k in mod.kernels:  # (before any file is written: a sub-sm_90 build of a clustered kernel is refused)
        clusters = cluster_dim_of(k)
        for target in targets:
            target.refuse_cluster_dim(k.key, clusters or 1)
    paths = [out_dir / target.artifact_name(identifier) for target in targets]
    todo = [(t, p) for t, p in zip(targets, paths) if not (p.exists() and config.cache_kernels)]
    for (target, path), units in zip(todo, _translate(jobs, backward, [t for t, _ in todo])):
        mod._compile(units, target, path)
    return paths


def load_aot_module(module=None, device=None, arch=None, module_dir: str | os.PathLike | None = None,
                    use_ptx: bool | None = None, strip_hash: bool | None = None) -> None:
    """Load what compile_aot_module wrote for `device` (default: the current device): the module's
    kernels launch the file's code from now on. FileNotFoundError when there is no file for the
    module's current identifier."""
    mod = _module(module)
    _set_strip_hash(mod, strip_hash)
    dev = get_device(device)
    target = dev.target.aot_target(use_ptx, None if arch is None else int(arch))
    path = Path(module_dir or Path.cwd() / "aot") / target.artifact_name(mod.get_module_identifier())
    if not path.exists():
        raise FileNotFoundError(f"no ahead-of-time build of module {mod.name!r} for {dev.alias}: {path} does not "
                                "exist (wp.compile_aot_module writes it; the module's code or settings may have "
                                "changed since)")
    # a private copy named by content: a file rewritten at the same path is never mistaken for the
    # one already loaded (the dynamic loader and the CUDA driver both remember paths)
    data = path.read_bytes()
    private = cache.cache_dir() / "aot" / f"{hashlib.sha256(data).hexdigest()[:32]}{path.suffix}"
    if not private.exists():
        private.parent.mkdir(parents=True, exist_ok=True)
        tmp = private.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, private)
    manifest = json.loads(dev.target.read_string(private, _MANIFEST).decode())
    by_kernel = {(e["key"], e["signature"]): e for e in manifest["kernels"]}
    for k in mod.kernels:
        for sig in k.signatures():
            entry = by_kernel.get((k.key, _signature_text(sig)))
            if entry is None:
                continue  # not in the file (defined since): it compiles when launched, as usual
            signature = tuple(sig) if k.is_generic else None
            _bind(k, signature, entry, private, dev, backward=False)
            if entry["backward"] and k.backward_enabled:  # the same entry's unit has the adjoint too
                _bind(k, signature, entry, private, dev, backward=True)


# --- compiling --------------------------------------------------------------------------------


def _module(module) -> Module:
    if module is None:
        module = sys._getframe(2).f_globals.get("__name__", "__main__")
    return get_module(module)


def _warn_native_isa(mod: Module) -> None:
    """A CPU build for this machine's instruction set may not run on another CPU: say so, once."""
    from ..toolchain.cpu_isa import effective_flags, is_native
    if not is_native(effective_flags(mod.options)):
        return
    # through Warp's logger name when warp._src is loaded (Warp's tests intercept it there), else warp_nb's warn
    log = compat_hooks.resolve("context", "log_warning", warn)
    log("compile_aot_module: CPU module is being compiled with -march=native. The binary uses this machine's "
        "instruction set and may fail on other CPUs; for a portable build set wp.config.cpu_compiler_flags='' "
        "(or the module option cpu_compiler_flags='').", category=UserWarning, stacklevel=2, once=True)


def _set_strip_hash(mod: Module, strip_hash) -> None:
    if strip_hash is not None:
        mod._set_strip_hash(strip_hash)


def _module_jobs(mod: Module) -> list:
    """(kernel, signature) for every compilable kernel of the module, as Warp chooses: a generic
    kernel without overloads is left out with a warning; none left is an error."""
    jobs, skipped = [], []
    for k in mod.kernels:
        if k.is_generic and not k.overloads:
            skipped.append(k.key)
            continue
        if k.is_generic and len(k.overloads) > 1 and mod.options["strip_hash"]:
            raise RuntimeError(f"cannot compile module {mod.name!r} ahead of time with strip_hash=True: the generic "
                               f"kernel `{k.key}` has multiple overloads, whose entry points need hash suffixes to "
                               "be told apart; compile without strip_hash")
        jobs += [(k, sig) for sig in k.signatures()]
    if not jobs:
        raise RuntimeError(f"No compilable kernels found in module {mod.name!r}: each kernel must be concrete, or a "
                           "generic kernel with overloads (wp.overload) so that its types are known")
    for key in skipped:
        warn(f"compile_aot_module: the generic kernel `{key}` of module {mod.name!r} is left out: it is a generic "
             "kernel without overloads (give its types with wp.overload)")
    return jobs


def _translate(jobs: list, backward: bool, targets: list) -> list:
    """For each target, (kernel, signature, options, unit) for each job: the front half for it."""
    out: list = [[] for _ in targets]
    for k, sig in jobs:
        # the overloads of a generic kernel share one translation unit: a C++ name for each
        symbol = f"k_{k.func.__name__}_{hashlib.sha256(_signature_text(sig).encode()).hexdigest()[:8]}" \
            if k.is_generic else None
        options = k.compile_options(backward and k.backward_enabled)
        for units, target in zip(out, targets):
            try:
                unit = front_half(k, list(sig), options, target, symbol=symbol).unit
            except NotDifferentiableError as e:  # (the first target finds out; the others build without it)
                warn(f"compile_aot_module: kernel `{k.key}` is written without its backward pass: {e.message}")
                options = k.compile_options(False)
                unit = front_half(k, list(sig), options, target, symbol=symbol).unit
            units.append((k, sig, options, unit))
    return out


def _build(mod: Module, units: list, target, path: Path) -> None:
    """One translation unit for the whole module, with the manifest; written atomically."""
    joined: list = []
    for k, _sig, _options, unit in units:
        if not can_join(joined, unit):
            raise KernelError(f"compile_aot_module: kernel `{k.key}` cannot share a translation unit with the other "
                              f"kernels of module {mod.name!r} (another kernel has its C++ name, or another mode)")
        joined.append(unit)
    manifest = {"module": mod.name, "kernels": [_manifest_entry(k, sig, options, unit)
                                                for k, sig, options, unit in units]}
    text = json.dumps(manifest).replace("\\", "\\\\").replace('"', '\\"')
    # the manifest is a global the host reads (WPNB_DEBUG_STATE: exported on the CPU, __device__ on CUDA)
    source = bundle_source(joined) + f'\nWPNB_DEBUG_STATE char {_MANIFEST}[] = "{text}";\n'
    first = units[0][2]
    options = CompileOptions(first.mode, any(o.backward for _k, _s, o, _u in units), first.cxx_flags,
                             vector_math=first.vector_math)
    unit = EmitResult(source, function=f"module {mod.name}", mode=first.mode, prelude=units[0][3].prelude)
    with tempfile.TemporaryDirectory(prefix="wpnb-aot-") as tmp:
        built = Path(tmp) / f"module{target.suffix}"
        target.build(unit, built, options)
        staged = path.with_name(path.name + f".tmp{os.getpid()}")
        shutil.copyfile(built, staged)
        os.replace(staged, path)
    beside = target.source_path(path)
    if beside is not None:  # the generated source, beside the binary
        beside.write_text(source)


Module._aot_build = staticmethod(_build)


def _manifest_entry(k, sig, options: CompileOptions, unit: EmitResult) -> dict:
    return {"key": k.key, "signature": _signature_text(sig), "backward": options.backward, "mode": options.mode,
            "deterministic": options.deterministic,
            "entry": unit.entry, "backward_entry": unit.backward_entry}  # (the file's target's entry points)


def _signature_text(sig) -> str:
    return ", ".join(t.type_name() if hasattr(t, "type_name") else T.type_name(t) for t in sig)


# --- loading ----------------------------------------------------------------------------------


def _bind(k, signature, entry: dict, path: Path, dev, backward: bool) -> None:
    """Make the file's entry points the kernel's compiled code for this signature and direction."""
    options = k.compile_options(backward)
    if options.mode != entry["mode"] or options.deterministic != entry.get("deterministic", 0):
        return  # built in another mode: launches compile as usual
    front = front_half(k, list(signature if signature is not None else k.param_types), options)
    # (the entry points' description says how a deterministic kernel's launches run)
    unit = EmitResult("", entry["entry"], backward_entry=entry["backward_entry"], function=k.key, mode=entry["mode"],
                      entry_points=front.unit.entry_points, deterministic=front.unit.deterministic,
                      frame_global=front.unit.frame_global)  # (a CUDA launch reads its frame's size)
    loaded = dev.target.load(path, unit, options)
    k.adopt(dev, CompiledKernel(f"aot:{path.stem}", front.typed, unit, loaded, 0.0, False), backward, signature)
