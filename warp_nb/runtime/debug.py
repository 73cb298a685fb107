"""Debug-mode checks read back after a launch: the native side records the first failed check
(an out-of-bounds index or a failed assert) in `wpnb_debug_state`; this module mirrors that
struct and turns it into the Python error that names the kernel, array, index and line."""

from __future__ import annotations

import ctypes

from ..errors import source_label


class DebugState(ctypes.Structure):
    """Mirror of wpnb::debug_state_t (native/arrays/array.h)."""

    _fields_ = [("failed", ctypes.c_int32), ("loc", ctypes.c_int32), ("axis", ctypes.c_int32),
                ("pad", ctypes.c_int32), ("index", ctypes.c_int64 * 4), ("shape", ctypes.c_int64 * 4)]


def debug_error(kernel_key: str, debug_sites: list, state: DebugState) -> Exception:
    """The IndexError (or AssertionError) for a failed check, at the user's line."""
    site = debug_sites[state.loc]
    loc = site.loc
    where = f"{source_label(loc.file)}, line {loc.line}, in kernel `{kernel_key}`"
    text = f"\n    {loc.text.strip()}" if loc.text else ""
    if state.axis < 0:
        return AssertionError(f"assertion failed ({where}){text}")
    index = state.index[state.axis]
    return IndexError(f"index {index} is out of bounds for axis {state.axis} of {site.what} with size "
                      f"{state.shape[state.axis]} ({where}){text}")
