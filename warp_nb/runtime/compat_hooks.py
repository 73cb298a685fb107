"""Where Warp's implementation namespace meets warp_nb's own code. Warp's tests patch names in
`warp._src.context` (its logger, the CPU probes, the runtime object's native entry points) and
expect the library to call what they patched. The compat package (warp_nb/_src, imported only when
something reaches for `warp._src`) registers its namespaces here as it loads; until then nothing is
registered, every caller runs its own code, and no part of the compat package is imported."""

from __future__ import annotations

_NAMESPACES: dict = {}


def register(name: str, namespace) -> None:
    """Make `namespace` (a module of the compat package) the one callers named `name` consult."""
    _NAMESPACES[name] = namespace


def namespace(name: str):
    """The registered namespace `name`, or None while the compat package is not loaded."""
    return _NAMESPACES.get(name)


def resolve(name: str, attribute: str, default):
    """`attribute` of the registered namespace `name`, read at call time (so a patch made after the
    namespace loaded is what runs), else `default`."""
    found = _NAMESPACES.get(name)
    return getattr(found, attribute, default) if found is not None else default
