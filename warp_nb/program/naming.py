"""A kernel's content hash and the name Warp derives from it (`Kernel.hash`,
`Kernel.get_mangled_name()`): `<key>_<first 8 hex digits of the hash>`, or the bare key when its
module has the strip_hash option (ahead-of-time builds with stable names). The name is cached per
kernel and recomputed when the hash or the module's strip_hash changes; reads and hash updates
take one lock, so a name computed from an old hash is never cached over a new one."""

from __future__ import annotations

import hashlib
import inspect
import threading

#: held while a kernel's hash or cached name changes (Warp's tests reach it as
#: warp._src.codegen._codegen_lock)
codegen_lock = threading.RLock()


class KernelNaming:
    """Mixin of wp.Kernel: the `hash` attribute and `get_mangled_name()`."""

    _hash: bytes | None = None
    _mangled_name: str | None = None

    @property
    def hash(self) -> bytes:
        """A sha256 digest of the kernel's definition (its key and source), made on first read;
        assigning one replaces it (and the cached mangled name)."""
        with codegen_lock:
            if self._hash is None:
                try:
                    text = inspect.getsource(self.func)
                except (OSError, TypeError):
                    text = repr(self.func.__code__.co_code)
                self._hash = hashlib.sha256(f"{self.key}\n{text}".encode()).digest()
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
