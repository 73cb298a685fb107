"""`warp._src.apic.capture`: Warp's per-graph recording object. warp_nb records into the graph itself
(launch/capture.py), so this class exists for the tests' imports and names no recording state."""


class APICapture:
    """Warp's native recording state of one apic graph; warp_nb has none (see launch/capture.py)."""

    operation_count = 0
