"""Warp's public `Module`: the kernels of one Python module (or one notebook cell), its name and
options, and `load(device)`, which compiles every kernel that is not ready yet, in parallel.
warp_nb compiles and caches each kernel on its own (`compiler.pipeline`), so a Module is a view
over its kernels' compiled units, not a translation unit: editing one kernel recompiles that
kernel only, and a kernel that fails does not stop the others of its module."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from ..runtime.devices import cpu_thread_count, get_device


class Module:
    """The kernels defined in one Python module or notebook cell."""

    def __init__(self, name: str):
        self.name = name
        self.options: dict = {}
        self._kernels: dict = {}  # key -> Kernel, in definition order

    def __repr__(self):
        return f"<wp.Module {self.name} ({len(self._kernels)} kernels)>"

    @property
    def kernels(self) -> list:
        return list(self._kernels.values())

    def add(self, kernel) -> None:
        """Register a kernel; a re-run cell or re-executed file replaces the kernel of the same key."""
        self._kernels.pop(kernel.key, None)
        self._kernels[kernel.key] = kernel

    def load(self, device=None, block_dim=None) -> bool:
        """Compile (or fetch from the cache) and load every kernel of this module that is not
        ready on `device`, in parallel; True when all of them compiled. An error stays with its
        kernel and is raised when that kernel is launched."""
        device = get_device(device)
        pending = [k for k in self.kernels if not k.is_ready(device)]
        if len(pending) > 1:
            with ThreadPoolExecutor(min(len(pending), cpu_thread_count()) + 1) as pool:
                ready = pool.submit(device.target.prepare)  # e.g. the CPU runtime, built once per machine
                list(pool.map(lambda k: k.compile(device), pending))
                ready.result()
        for k in pending:
            if not k.is_ready(device):
                k.compile(device)
        return all(k.has_compiled_code for k in self.kernels)


_MODULES: dict[str, Module] = {}


def get_module(name: str) -> Module:
    """The Module of a Python module (or notebook cell) name, made on first use."""
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = Module(name)
    return module


def modules() -> list[Module]:
    return list(_MODULES.values())


def kernels_of(name: str) -> list:
    """The kernels registered for a Python module (or notebook cell) name."""
    module = _MODULES.get(name)
    return module.kernels if module is not None else []


def load_module(module=None, device=None) -> None:
    """Compile (or load from the cache) every kernel of `module` (a name, a Python module or a
    wp.Module; default: the caller's module) that is not ready on `device`."""
    if module is None:
        module = sys._getframe(1).f_globals.get("__name__", "__main__")
    name = module if isinstance(module, str) else module.__name__ if hasattr(module, "__name__") else module.name
    get_module(name).load(device)


def force_load(device=None, modules=None) -> None:
    """Compile every registered kernel (of `modules`, default all) for `device`."""
    for name in list(modules or _MODULES):
        load_module(name, device)


_WARM_UP_KERNEL = """
def wpnb_warm_up(a: array, b: float):
    i = wp.tid()
    if a[i] > b:
        a[i] = wp.sin(a[i]) * b + 1.0
"""
_warmed = False


def warm_up() -> None:
    """Everything the first launch would otherwise do once per process: the CPU target's runtime,
    the compiler's identity, the header digest, and one pass of parse/typecheck/emit (no compile)."""
    global _warmed
    if _warmed:
        return
    _warmed = True
    import warp_nb as wp

    from .. import config, types as T
    from ..compiler.emit import emit_kernel
    from ..compiler.parse import parse_source
    from ..compiler.pipeline import default_options
    from ..compiler.scope import Scope
    from ..compiler.typecheck import Context, typecheck_kernel
    from ..toolchain.headers import headers_digest
    from ..types.array_type import ArrayType

    cpu = get_device("cpu")
    cpu.target.prepare()
    cpu.target.key_parts(default_options())
    headers_digest()
    scope = Scope(warm_up)
    scope.globals = {"wp": wp}
    typed = typecheck_kernel(parse_source(_WARM_UP_KERNEL, "<warm-up>"), [ArrayType(T.float32, 1), T.float32], scope,
                             Context(config.mode))
    emit_kernel(typed, config.mode)
