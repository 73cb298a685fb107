"""The statement writer's part for loop versions (compiler/loop_guards.py): in checked code, an
innermost loop whose accesses one check at its entry proves in range is written twice,

    if (<every guard holds>) { for (...) { accesses without check or wrap } }
    else { for (...) { the checked loop, as before } }

The fast copy is what release code runs (a counter's access is a pointer walk); the checked copy
runs whenever a guard fails, so its results and its errors are exactly the checked loop's."""

from __future__ import annotations

from ..loop_guards import loop_versions


def _term(atom, coeff: int) -> str:
    name = atom[1]
    return f"wpnb::int64({name})" if coeff == 1 else f"wpnb::int64({name}) * {coeff}"


def _render(form) -> str:
    parts = [_term(atom, c) for atom, c in form.terms]
    if form.const or not parts:
        parts.append(str(form.const))
    return "(" + " + ".join(parts) + ")"


class LoopVersionWriter:
    """Mixed into emit/body.py FunctionWriter; `versions` is set for a checked forward body only."""

    versions: dict = {}  # id(ir.For) -> loop_guards.LoopVersion
    fast_accesses: frozenset = frozenset()  # the accesses being written without checks (a fast copy)

    def use_loop_versions(self, fn, launch_guarded) -> None:
        # (debug mode keeps every check; a block's lanes keep the per-lane code they share)
        if self.checked and not self.debug and fn.block_dim == 1 and getattr(self, "sharing", None) is None:
            self.versions = loop_versions(fn, launch_guarded)

    def is_fast(self, key) -> bool:
        return key in self.fast_accesses

    def versioned_loop(self, s, depth: int, write_loop) -> bool:
        """Write loop `s` in its two versions (write_loop(depth) writes it once); False if it has none."""
        version = self.versions.get(id(s))
        if version is None or self.fast_accesses:
            return False
        conds = []
        for g in version.guards:
            conds.append(f"{_render(g.least)} >= 0")
            conds.append(f"{_render(g.greatest)} < wpnb::index_limit({g.array}.shape[{g.axis}])")
        self.line(depth, f"if ({' && '.join(dict.fromkeys(conds))}) {{  // the loop's accesses in range: unchecked",
                  s.loc)
        self.fast_accesses = version.accesses
        try:
            write_loop(depth + 1)
        finally:
            self.fast_accesses = frozenset()
        self.line(depth, "} else {")
        write_loop(depth + 1)
        self.line(depth, "}")
        return True
