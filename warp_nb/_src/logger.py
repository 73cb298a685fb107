"""`warp._src.logger`: warnings shown once per message, as Warp's logger does."""

import warnings

_warnings_seen: set = set()


def warn(message: str, category=UserWarning, stacklevel: int = 2, once: bool = False) -> None:
    if once:
        if message in _warnings_seen:
            return
        _warnings_seen.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)


log_warning = warn


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.logger.{name}")
