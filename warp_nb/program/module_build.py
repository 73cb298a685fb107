"""A module's content hash and generated code without compiling, under the names Warp's API uses:
`Module.hash_module()` and `Module.resolve_options(config)` (Warp's `ModuleHasher` / `ModuleBuilder`
classes are built on these in the compatibility package, _src/module_hashing.py). warp_nb builds each kernel as its own translation unit (compiler/pipeline.py),
so the hash is a digest of what its cache keys are made of: each kernel's generated C++ for each
concrete signature (comment lines left out, as in pipeline.cache_key) and the module's
wp.ModuleBuildOptions. Equal code hashes equal whatever the module is called; a change in a
wp.static value, a called function or a referenced constant changes the code and so the hash.

The C++ hashed is the text every target shares, without a target's prelude, entry points and
preamble: a module has one hash (its ahead-of-time identifier names the files of every target);
the entry points follow from that text (the body's parameters say the tid dimensions and the
accumulators) and the package version, which the identifier has too, and the preambles are in the
options' digest."""

from __future__ import annotations

import hashlib

from .. import config as _config
from ..compiler.build_options import ModuleBuildOptions
from ..toolchain import external as external_files
from ..compiler.options import CompileOptions
from ..errors import KernelError
from ..types.generic import is_generic
from .deterministic import module_max_records, module_mode
from .unique import fingerprint

#: the module options a build resolves (the module's setting, else wp.config's, else Warp's default)
_RESOLVED = ("enable_backward", "mode", "max_unroll", "fast_math", "fuse_fp", "lineinfo", "cuda_output",
             "block_dim", "optimization_level", "strip_hash", "extra_build_options", "deterministic",
             "deterministic_max_records")


def resolve_options(module, config=None, block_dim: int | None = None) -> dict:
    """The options a build of `module` uses now (Warp's Module.resolve_options(config, block_dim)):
    `block_dim` given, the options of a build for that block size."""
    config = config or _config
    options = module.options
    out = {}
    for name in _RESOLVED:
        value = dict.get(options, name)
        if value is None and name in ("enable_backward", "max_unroll", "mode"):
            value = getattr(config, name)
        elif value is None and name not in options:
            value = options.get(name, type(options)._DEFAULTS.get(name))
        out[name] = value
    out["deterministic"] = module_mode(module)  # (a ValueError naming the option for anything else)
    out["deterministic_max_records"] = module_max_records(module)
    out["verify_fp"] = bool(getattr(config, "verify_fp", False))  # checks compiled into every kernel
    if block_dim is not None:
        out["block_dim"] = int(block_dim)
    return out


def _signatures(kernel) -> list:
    return [sig for sig in kernel.signatures() if not any(is_generic(t) for t in sig)]


def _backward(kernel, options: dict) -> bool:
    own = kernel.options.get("enable_backward")
    return bool(own if own is not None else options.get("enable_backward"))


def emit_units(kernels, options: dict) -> list:
    """(kernel, typed IR, EmitResult) for every kernel and concrete signature: the front half of
    the pipeline (parse, type, adjoint, emit), with `options`' mode, backward setting and build
    options, for no target (the text every target shares). A kernel error is raised, at its line."""
    mode = options.get("mode") or _config.mode
    extra = options.get("extra_build_options")
    if extra is not None and not isinstance(extra, ModuleBuildOptions):
        raise TypeError("the module option 'extra_build_options' must be a wp.ModuleBuildOptions")
    extra = None if extra is None or extra.is_empty else extra
    from ..compiler.pipeline import front_half  # (the compiler loads at the first compile)
    out = []
    for k in kernels:
        for sig in _signatures(k):
            compile_options = CompileOptions(k.mode or mode, _backward(k, options), _config.cxx_flags,
                                             deterministic=int(module_mode(k.module)),
                                             vector_math=bool(_config.cpu_vector_math))
            front = front_half(k, list(sig), compile_options,
                               target=None, build_options=extra)
            out.append((k, front.typed, front.unit))
    return out


def content_hash(kernels, options: dict) -> str:
    """The digest of the generated code of `kernels` built with `options` (see the module docstring),
    with each kernel's own options (launch bounds, register cap ...: they change the binary, not the
    C++ text). A kernel whose front half fails is hashed by its definition and those of the
    functions it names (Warp hashes a module without compiling it, so a hash never raises)."""
    h = hashlib.sha256()
    h.update(repr(sorted((k, v) for k, v in options.items() if k != "extra_build_options")).encode())
    for k in sorted(kernels, key=lambda k: (k.key, k.hash)):  # the order kernels were defined in does not count
        h.update(f"{k.key}\n{_kernel_options(k)}\n".encode())
        try:
            units = emit_units([k], options)
        except KernelError:
            h.update(definition_digest(k).encode())
            continue
        for _k, _typed, unit in units:
            code = "\n".join(line for line in unit.source.splitlines() if not line.lstrip().startswith("//"))
            h.update(f"{code}\n".encode())
            if unit.build_options is not None:
                h.update(unit.build_options.digest().encode())
            h.update((external_files.digest(unit.headers) or "").encode())  # the user's headers (build_experimental)
    return h.hexdigest()


def _kernel_options(kernel) -> str:
    options = {k: v for k, v in kernel.options.items() if v is not None}
    return repr((sorted(options.items(), key=str), getattr(kernel, "launch_bounds", None)))


def definition_digest(kernel) -> str:
    """A digest of a kernel's definition: its code (constants included) and closure values, and
    those of every @wp.func it names, through their own calls."""
    h = hashlib.sha256(kernel.hash)
    seen: set = set()
    todo = [kernel.func]
    while todo:
        fn = todo.pop()
        code = getattr(fn, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        h.update(_code_text(code).encode())
        for name in _names(code):
            value = getattr(fn, "__globals__", {}).get(name)
            if getattr(value, "_wp_func_", False):  # a @wp.func: each of its overloads' bodies
                todo += [o.fn for o in value.overloads]
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                h.update(fingerprint(cell.cell_contents).encode())
            except ValueError:  # a cell not bound yet
                pass
    return h.hexdigest()


def _code_text(code) -> str:
    """The bytecode, names and constants of a code object and the code objects nested in it."""
    parts = [code.co_code.hex(), repr(code.co_names)]
    for const in code.co_consts:
        parts.append(_code_text(const) if hasattr(const, "co_code") else repr(const))
    return "|".join(parts)


def _names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def called_functions(kernel, options: dict) -> list:
    """The @wp.func a kernel's typed code calls, directly or through other functions, in the order
    first called (none for a kernel that does not compile: its error waits for its launch)."""
    try:
        units = emit_units([kernel], options)
    except KernelError:
        return []
    found: dict = {}
    seen: set = set()  # typed instances walked (a function typed for other argument types calls other functions)
    todo = [inst for _k, typed, _unit in units for inst in typed.funcs]
    while todo:
        inst = todo.pop(0)
        if id(inst) in seen:
            continue
        seen.add(id(inst))
        if getattr(inst.func, "_wp_func_", False):
            found.setdefault(inst.func, None)
        todo += list(inst.ir.funcs)
    return list(found)
