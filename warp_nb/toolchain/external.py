"""C++ from outside warp_nb that kernels use: the user's headers (included by absolute path) and the
libraries linked with them, as `wp.build_experimental.add_builtin(..., header=, libraries=)` registers
them. What a kernel's cache key needs from them (their contents, so an edited header rebuilds its
users) and what the CPU linker needs (the libraries of the headers a unit includes). Knows files;
knows nothing about builtins or kernels (the registry records which builtin comes from which header)."""

from __future__ import annotations

import os

#: absolute header path -> the libraries (absolute paths) its functions are defined in
_LIBRARIES: dict[str, tuple] = {}


def register(header: str, libraries: tuple) -> None:
    """Record that `header` (an absolute path) declares functions defined in `libraries`."""
    known = _LIBRARIES.get(header, ())
    _LIBRARIES[header] = tuple(dict.fromkeys(known + tuple(libraries)))


def is_external(header: str) -> bool:
    """Whether a unit's header is the user's (an absolute path) rather than one of native/."""
    return os.path.isabs(header)


def libraries_for(headers) -> tuple:
    """The libraries to link with a unit that includes `headers`."""
    return tuple(dict.fromkeys(lib for h in headers if is_external(h) for lib in _LIBRARIES.get(h, ())))


def digest(headers) -> str | None:
    """The contents of the external headers among `headers` and of their libraries (None when there
    are none): part of the cache key, read at each compile, so an edited header or a rebuilt
    library recompiles the kernels that use it."""
    external = sorted(h for h in headers if is_external(h))
    if not external:
        return None
    import hashlib  # (OpenSSL: loaded on first need, not with warp_nb)
    h = hashlib.sha256()
    for path in external + list(libraries_for(external)):
        h.update(path.encode() + b"\0")
        update_with_file(h, path)
    return h.hexdigest()


def update_with_file(h, path: str) -> None:
    """Feed `path`'s bytes to hash `h` (a marker when it cannot be read: the build then reports it)."""
    try:
        with open(path, "rb") as f:
            h.update(f.read())
    except OSError:
        h.update(b"<missing>")
