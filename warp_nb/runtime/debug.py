"""Debug-mode checks read back after a launch: the native side records the first failed check
(an out-of-bounds index or a failed assert) and the launch's thread that failed it in
`wpnb_debug_state`; this module mirrors that struct and turns it into the Python error that names
the kernel, array, index, thread and line, with a caret under the index."""

from __future__ import annotations

import ast
import ctypes

from ..errors import source_label
from .launch_layout import launch_shape


class DebugState(ctypes.Structure):
    """Mirror of wpnb::debug_state_t (native/core/prelude.h)."""

    _fields_ = [("failed", ctypes.c_int32), ("loc", ctypes.c_int32), ("axis", ctypes.c_int32),
                ("pad", ctypes.c_int32), ("index", ctypes.c_int64 * 4), ("shape", ctypes.c_int64 * 4),
                ("thread", ctypes.c_int64)]


def debug_error(kernel_key: str, debug_sites: list, state: DebugState, bounds: bytes | None = None) -> Exception:
    """The IndexError (AssertionError, FloatingPointError, or RuntimeError for a check that names its
    failure) for a failed check, at the user's line. `bounds`: the launch's packed wpnb::launch_t,
    whose shape turns the failing thread's index into wp.tid()'s."""
    thread = _thread_text(state.thread, bounds)
    if state.axis == NON_FINITE:
        return _non_finite(kernel_key, debug_sites, state, thread)
    if not 0 <= state.loc < len(debug_sites):  # a kernel loaded without its sources (an ahead-of-time module)
        what = "an assertion failed" if state.axis < 0 else (
            f"index {state.index[state.axis]} is out of bounds for axis {state.axis} with size "
            f"{state.shape[state.axis]}")
        return (AssertionError if state.axis < 0 else IndexError)(
            f"{what}{thread} in kernel `{kernel_key}` (check {state.loc}; its source line is not known here)")
    site = debug_sites[state.loc]
    loc = site.loc
    where = f"{source_label(loc.file)}, line {loc.line}, in kernel `{kernel_key}`"
    if state.axis == NAMED_FAILURE:  # a check that names its own failure (site.what)
        text = f"\n    {loc.text.strip()}" if loc.text else ""
        return RuntimeError(f"{site.what}{thread} ({where}){text}")
    if state.axis < 0:
        text = f"\n    {loc.text.strip()}" if loc.text else ""
        return AssertionError(f"assertion failed{thread} ({where}){text}")
    index = state.index[state.axis]
    return IndexError(f"index {index} is out of bounds for axis {state.axis} of {site.what} with size "
                      f"{state.shape[state.axis]}{thread} ({where}){_line_with_caret(loc, state.axis)}")


#: DebugState.axis of a NaN or infinity stored into an array (wp.config.verify_fp in debug mode)
NON_FINITE = -2
#: DebugState.axis of a check whose site says what failed (a tile reduction without an identity
#: over a line with no element inside the launch: native/tiles/tile_reduce.h)
NAMED_FAILURE = -3


def _non_finite(kernel_key: str, debug_sites: list, state: DebugState, thread: str) -> FloatingPointError:
    if not 0 <= state.loc < len(debug_sites):
        return FloatingPointError(f"a NaN or infinity was stored into an array{thread} in kernel `{kernel_key}` "
                                  f"(wp.config.verify_fp; check {state.loc}, its source line is not known here)")
    site = debug_sites[state.loc]
    text = f"\n    {site.loc.text.strip()}" if site.loc.text else ""
    return FloatingPointError(f"a NaN or infinity was stored into {site.what}{thread} ({source_label(site.loc.file)}, "
                              f"line {site.loc.line}, in kernel `{kernel_key}`; wp.config.verify_fp){text}")


def _thread_text(thread: int, bounds: bytes | None) -> str:
    """' at wp.tid() = 7' (a tuple for a launch of several dimensions), or '' where unknown."""
    if thread < 0:
        return ""
    if bounds is None:
        return f" in thread {thread}"
    shape, ndim = launch_shape(bounds)
    coords = []
    for extent in reversed(shape[:max(ndim, 1)]):
        thread, c = divmod(thread, extent) if extent > 0 else (thread, 0)
        coords.append(c)
    coords.reverse()
    return f" at wp.tid() = {coords[0] if len(coords) == 1 else tuple(coords)}"


def _line_with_caret(loc, axis: int) -> str:
    """The source line of a checked access, with a caret under its index expression where the
    access is found in the columns the compiler recorded for it."""
    if not loc.text:
        return ""
    line = loc.text.strip()
    span = index_span(loc, axis)
    if span is None:
        return f"\n    {line}"
    start = span[0] - (len(loc.text) - len(loc.text.lstrip()))
    return f"\n    {line}\n    {' ' * start}{'^' * max(span[1] - span[0], 1)}"


def index_span(loc, axis: int = 0) -> tuple[int, int] | None:
    """The columns [start, end) of the index expression of the subscript at `loc` (the element read
    there, or the element a statement there stores to), from the columns the compiler recorded;
    where the subscript has an index per axis, the one of `axis`."""
    if loc.end_col is None or not loc.text or loc.end_col <= loc.col:
        return None
    segment = loc.text[loc.col:loc.end_col]
    try:
        node = ast.parse(segment).body[0]
    except (SyntaxError, IndexError):
        return None
    if isinstance(node, ast.Expr):
        node = node.value
    elif isinstance(node, ast.Assign):
        node = node.targets[0]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        node = node.target
    if not isinstance(node, ast.Subscript) or not segment.isascii():  # (ast's columns count UTF-8 bytes)
        return None
    index = node.slice
    if isinstance(index, ast.Tuple) and 0 <= axis < len(index.elts):
        index = index.elts[axis]
    return loc.col + index.col_offset, loc.col + index.end_col_offset
