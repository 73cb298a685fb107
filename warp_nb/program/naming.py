"""A kernel's content hash and the name Warp derives from it (`Kernel.hash`,
`Kernel.get_mangled_name()`): `<key>_<first 8 hex digits of the hash>`, or the bare key when its
module has the strip_hash option (ahead-of-time builds with stable names). The name is cached per
kernel and recomputed when the hash or the module's strip_hash changes; reads and hash updates
take one lock, so a name computed from an old hash is never cached over a new one."""

from __future__ import annotations

import inspect
import threading

import numbers

from .unique import fingerprint

#: held while a kernel's hash or cached name changes (Warp's tests reach it as
#: warp._src.codegen._codegen_lock)
codegen_lock = threading.RLock()


def _stable_text(value) -> str:
    """A captured value as text that is the same in every process: a constant by value, anything
    else by its type and name (not its address, which would rename the kernel in every run)."""
    if value is None or isinstance(value, (bool, numbers.Number, str, bytes)):
        return fingerprint(value)
    if isinstance(value, (tuple, list)):
        return type(value).__name__ + "(" + ",".join(_stable_text(v) for v in value) + ")"
    return f"{type(value).__name__}:{getattr(value, '__qualname__', '')}"


class KernelNaming:
    """Mixin of wp.Kernel: the `hash` attribute and `get_mangled_name()`."""

    _hash: bytes | None = None
    _mangled_name: str | None = None

    @property
    def hash(self) -> bytes:
        """A sha256 digest of the kernel's definition (its key, source and captured values), made on first read;
        assigning one replaces it (and the cached mangled name)."""
        with codegen_lock:
            if self._hash is None:
                from ..compiler.parse import definition_source  # the file's index: no second tokenising
                text = definition_source(self.func)
                if text is None:
                    try:
                        text = inspect.getsource(self.func)
                    except (OSError, TypeError):
                        text = repr(self.func.__code__.co_code)
                import hashlib  # (OpenSSL: loaded on first need, not with warp_nb)
                h = hashlib.sha256(f"{self.key}\n{text}".encode())
                # a factory's kernels share their source: the values they captured tell them apart
                for cell in getattr(self.func, "__closure__", None) or ():
                    try:
                        h.update(_stable_text(cell.cell_contents).encode())
                    except ValueError:  # a cell not bound yet
                        pass
                self._hash = h.digest()
            return self._hash

    @hash.setter
    def hash(self, value: bytes) -> None:
        with codegen_lock:
            self._hash = value
            self._mangled_name = None

    def get_mangled_name(self) -> str:
        """The kernel's symbol name: `<key>_<hash prefix>`, the key alone under strip_hash."""
        with codegen_lock:
            if self._mangled_name is None:
                if self.module.options["strip_hash"]:
                    self._mangled_name = self.key
                else:
                    self._mangled_name = f"{self.key}_{self.hash.hex()[:8]}"
            return self._mangled_name

    def _forget_mangled_name(self) -> None:
        with codegen_lock:
            self._mangled_name = None
