"""Names bound on only some paths of a branch and read after it (`if op == 1: s = ...` with no
else, then `out[i] = s`). Warp reads the C++ variable the branch assigns, which holds its last
value where no branch assigned it (zero the first time). The typer cannot know at a branch whether
a name will be read after it; it finds out at the read. Then the function is typed again, with a
phi for that name at each such branch (typecheck_statements.partial_phi). Functions without such
a read are typed once."""

from __future__ import annotations

from . import ir
from .scope import Lit


class PartialRead(Exception):
    """A name bound on only some paths of branches was read after them: `keys` are those branches
    ((line, column, name) each, innermost first); the function is typed again with a phi for the
    name at each (run_typer below)."""

    def __init__(self, keys: tuple):
        super().__init__(keys)
        self.keys = keys


def partial_allowed(value) -> bool:
    """Whether a name bound to `value` on some paths may be read after the branch (Warp's zeroed
    C++ local): a value or an array, not a function or a module. Where no path bound it, an array is
    an empty one (no data, every extent 0): checked code reports any index into it as out of
    bounds; release code, which checks nothing, would read through its null pointer."""
    if isinstance(value, Lit):
        return True
    return isinstance(value, ir.Var)


def run_typer(make, types: list) -> ir.Function:
    """Type a function with a typer from `make()`. A name bound on only some paths of a branch and
    read after it (Warp reads its zeroed C++ local) is found at the read, after the branch was
    typed: the function is then typed again, with a phi for that name at that branch
    (typecheck_statements.partial_phi). Functions without such a read are typed once."""
    partial: frozenset = frozenset()
    while True:
        typer = make()
        typer.partial_names = partial
        try:
            return typer.run(types)
        except PartialRead as e:
            if set(e.keys) <= partial:  # (cannot happen: the phis bind the name; never loop)
                raise RuntimeError(f"internal error: phis at {e.keys} did not bind the name") from None
            partial = partial | set(e.keys)


