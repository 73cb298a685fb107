"""Failed bounds checks of CUDA launches, read at the next synchronisation instead of after each
launch. Checked code (the default) records its first failed check in the module's
`wpnb_debug_state` on the device and skips the access; reading that state back right after every
launch would make each checked launch wait for the GPU, a cliff that release code does not have.
So a checked launch only notes which state it may have written, and every point where the host
waits for the device anyway (a device or stream synchronisation, a copy to the host that waits;
not an event's, which does not say which launches finished) reads the noted states and raises the
first failure, naming the kernel, array, index and line as on the CPU: reported at the next
synchronisation, as a CUDA error is, not at the launch. Debug mode keeps the immediate read
(cuda/target.py): there, the error comes from the launch itself."""

from __future__ import annotations

import ctypes

from ..runtime.debug import DebugState, debug_error
from . import driver as drv

# (device alias, stream handle) -> {state address: (kernel key, debug sites, packed bounds of its
# last launch, whether launches of several shapes are pending)}
_pending: dict = {}


def note(device, launcher, bounds: bytes) -> None:
    """A checked launch on the device's current stream may have written `launcher.debug_state`."""
    states = _pending.setdefault((device.alias, id(device.stream.handle)), {})
    previous = states.get(launcher.debug_state)
    mixed = previous is not None and (previous[3] or previous[2] != bounds)
    states[launcher.debug_state] = (launcher.kernel.key, launcher.compiled.unit.debug_sites, bounds, mixed)


def raise_failures(device, stream=None) -> None:
    """After the host waited for `device` (or only for `stream` of it): raise the first failed check
    of the launches noted there since the last read (a state found failed is cleared on the device,
    so each failure is reported once)."""
    if not _pending:
        return
    keys = [k for k in _pending if k[0] == device.alias and (stream is None or k[1] == id(stream.handle))]
    states = {}
    for k in keys:
        states.update(_pending.pop(k))
    failure = None
    for address, (key, sites, bounds, mixed) in states.items():
        state = DebugState()
        device.make_current()
        drv.call("cuMemcpyDtoHAsync", ctypes.addressof(state), address, ctypes.sizeof(state), device.stream.handle)
        drv.call("cuStreamSynchronize", device.stream.handle)
        if state.failed:
            drv.call("cuMemsetD8Async", address, 0, ctypes.sizeof(state), device.stream.handle)
            # with launches of several shapes pending, the failing thread's wp.tid() is not known
            failure = failure or debug_error(key, sites, state, None if mixed else bounds)
    if failure is not None:
        raise failure

