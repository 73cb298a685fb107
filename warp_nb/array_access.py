"""`wp.config.verify_autograd_array_access`: which arrays a recorded launch reads and writes, as
Warp's tape sees them, and the read flags they leave on the arrays.

A kernel parameter is *read* when the kernel (or a @wp.func it calls, followed argument by
argument) loads an element from it, directly or through a view (`row = a[i]; row[j]`); it is
*written* when an element is stored into it or updated by an atomic (`a[i] += x` is a write
only, as in Warp). Taking a view, reading `a.shape` or passing the array on are neither.

While the flag is on, each launch and copy recorded on a tape marks what it writes (warning when
an earlier recorded launch has read that memory: the adjoint of the earlier launch would see the
new values) and then what it reads. `tape.backward()` and `tape.reset()` clear the flags of the
arrays on the tape. The flags live on the array that owns the memory, so views share them.
Knows the typed IR; knows nothing about launching or gradients."""

from __future__ import annotations

import os
import sys

from .compiler import ir

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


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


def mark_launch(kernel, typed: ir.Function, args) -> None:
    """Mark the arrays of a recorded launch: writes first (warning against earlier reads), then reads."""
    read, written = param_access(typed)
    filename, lineno = _definition_site(kernel)
    for k in sorted(written):
        a = args[k]
        if _is_array(a):
            a.mark_write(arg_name=kernel.param_names[k], kernel_name=kernel.key, filename=filename, lineno=lineno)
    for k in sorted(read):
        if _is_array(args[k]):
            args[k].mark_read()


def mark_copy(dest, src) -> None:
    """Mark a recorded wp.copy (or clone, or assign): the destination is written, the source read."""
    filename, lineno = user_site()
    dest.mark_write(operation="an array copy", filename=filename, lineno=lineno)
    src.mark_read()


def clear(arrays) -> None:
    for a in arrays:
        if _is_array(a):
            a.mark_init()


def read_flags(arrays) -> list:
    """The read flags of `arrays` (to put back with restore_read_flags)."""
    return [(a, a._is_read) for a in arrays if _is_array(a)]


def restore_read_flags(saved: list) -> None:
    for a, flag in saved:
        if flag:
            a.mark_read()
        else:
            a.mark_init()


def user_site() -> tuple[str, int]:
    """The file and line of the innermost caller outside warp_nb (where the user made the call)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("<unknown>", 0)


def _definition_site(kernel) -> tuple[str, int]:
    func = getattr(kernel, "func", None)
    code = getattr(func, "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else ("<unknown>", 0)


def _is_array(a) -> bool:
    return getattr(type(a), "_wp_array_", False)
