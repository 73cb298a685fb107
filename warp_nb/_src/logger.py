"""`warp._src.logger`: warnings shown once per message, as Warp's logger does (warp_nb.utils.warn:
printed as "Warp UserWarning: ...", through Python's warnings filters)."""

from ..errors import (  # noqa: F401
    Logger, LoggerBasic, _warnings_seen, get_logger, log_debug, log_error, log_info, log_warning, set_logger, warn,
)


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.logger.{name}")
