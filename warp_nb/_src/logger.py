"""`warp._src.logger`: warnings shown once per message, as Warp's logger does (warp_nb.utils.warn:
printed as "Warp UserWarning: ...", through Python's warnings filters)."""

from ..utils.functions import _warnings_seen, warn  # noqa: F401

log_warning = warn
