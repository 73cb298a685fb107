"""`warp._src.logger`: warnings shown once per message, as Warp's logger does (warp_nb.utils.warn:
printed as "Warp UserWarning: ...", through Python's warnings filters)."""

from ..errors import _warnings_seen, warn  # noqa: F401

log_warning = warn


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.logger.{name}")
