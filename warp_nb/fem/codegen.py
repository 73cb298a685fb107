"""Python source made at run time, compiled as if it were a file: what the fem drivers and
fields generate (a kernel for an integrand and the kinds of its result, a device function of a
given arity). The text is registered with `linecache` under a name that says what made it, so
the compiler reads it like any file and an error in it points at its line."""

from __future__ import annotations

import itertools
import linecache

_SOURCES = itertools.count()


def define(name: str, source: str, namespace: dict, what: str = "fem"):
    """Run `source` (which defines `name`) in `namespace` and return `name`'s Python function."""
    filename = f"<warp_nb.{what} {name} {next(_SOURCES)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]
