"""`wp.config.verify_autograd_array_access`: which arrays a recorded launch reads and writes, as
Warp's tape sees them, and the read flags they leave on the arrays.

Which parameters a kernel reads and writes is compiler/param_access.py's analysis of its typed IR
(a store or an atomic update counts as a write here).

While the flag is on, each launch and copy recorded on a tape marks what it writes (warning when
an earlier recorded launch has read that memory: the adjoint of the earlier launch would see the
new values) and then what it reads. `tape.backward()` and `tape.reset()` clear the flags of the
arrays on the tape. The flags live on the array that owns the memory, so views share them.
Knows the typed IR; knows nothing about launching or gradients."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..compiler import ir

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # warp_nb/


def mark_launch(kernel, typed: ir.Function, args) -> None:
    """Mark the arrays of a recorded launch: writes first (warning against earlier reads), then reads."""
    from ..compiler.param_access import param_access  # loaded by the compile that made `typed`
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
