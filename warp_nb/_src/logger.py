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
