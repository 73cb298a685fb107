"""Which kernel parameters (arrays) a typed kernel reads and writes, following views and the
@wp.func calls it makes argument by argument. A parameter is *read* when an element is loaded from
it, directly or through a view (`row = a[i]; row[j]`); *stored* when an element (or component) is
stored into it; *updated* when an atomic changes it (`a[i] += x` is an update only, as in Warp).
Taking a view, reading `a.shape` or passing the array on are none of these.

An analysis of the typed IR, read by the tape's array-access checks (autograd/array_access.py) and
by adjoint launches (which must not let an adjoint consume a gradient the caller gave); knows
nothing about launching or gradients."""

from __future__ import annotations

from . import ir


def param_access(fn: ir.Function) -> tuple[frozenset, frozenset]:
    """(read, written): positions of the parameters `fn` reads from and writes to (arrays)."""
    read, stored, updated = _access(fn, {})
    return read, stored | updated


def stored_params(fn: ir.Function) -> frozenset:
    """Positions of the parameters `fn` stores elements (or components) into; the adjoint of a store
    consumes the stored element's gradient, an atomic update's does not."""
    return _access(fn, {})[1]


def _access(fn: ir.Function, memo: dict) -> tuple[frozenset, frozenset, frozenset]:
    """(read, stored, updated by atomics): parameter positions."""
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = (frozenset(), frozenset(), frozenset())  # a recursion guard; kernels do not recurse
    alias = {id(p): k for k, p in enumerate(fn.params)}  # Var -> parameter it views
    read, written, updated = set(), set(), set()

    def visit(stmts) -> None:
        for s in stmts:
            value = getattr(s, "value", None)
            if isinstance(s, ir.Let) and isinstance(value, ir.View) and id(value.array) in alias:
                alias[id(s.dst)] = alias[id(value.array)]
            elif isinstance(s, ir.Let) and isinstance(value, ir.Copy) and id(value.src) in alias:
                alias[id(s.dst)] = alias[id(value.src)]
            elif isinstance(s, ir.Assign) and id(s.src) in alias:
                alias[id(s.dst)] = alias[id(s.src)]
            if isinstance(value, ir.Load) and id(value.array) in alias:
                read.add(alias[id(value.array)])
            if isinstance(s, ir.Store) and id(s.array) in alias:
                written.add(alias[id(s.array)])
            if isinstance(value, ir.Call) and (value.builtin.atomic or value.builtin.side_effects):
                for a in value.args[:1]:  # the array an atomic updates comes first
                    if id(a) in alias:
                        updated.add(alias[id(a)])
            if isinstance(value, ir.CallFunc):
                for mine, theirs in zip((read, written, updated), _access(value.func.ir, memo)):
                    mine.update(alias[id(a)] for k, a in enumerate(value.args) if id(a) in alias and k in theirs)
            for block in ir.child_blocks(s):
                visit(block)

    visit(fn.body)
    memo[id(fn)] = (frozenset(read), frozenset(written), frozenset(updated))
    return memo[id(fn)]
