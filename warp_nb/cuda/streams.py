"""Streams and events (`wp.Stream`, `wp.Event`, `wp.ScopedStream` ...), with Warp's ordering
rules: launches and copies on one stream run in order; other streams are independent until an
event or `wait_stream` orders them; `wp.synchronize*` waits on the host. CPU work is
synchronous, so these only exist for CUDA devices."""

from __future__ import annotations

from . import checks
from . import driver as drv
from ..runtime.devices import DeviceError, get_device

_NON_BLOCKING = 1  # CU_STREAM_NON_BLOCKING: no implicit ordering with the legacy default stream
_DISABLE_TIMING = 2  # CU_EVENT_DISABLE_TIMING


def _cuda_device(device):
    d = get_device(device)
    if not d.is_cuda:
        raise DeviceError(f"streams and events belong to CUDA devices; {d.alias} runs its work synchronously")
    return d


class Stream:
    """An ordered queue of GPU work on one device."""

    def __init__(self, device=None, priority: int = 0, cuda_stream=None):
        self.device = _cuda_device(device)
        self.device.make_current()
        self.owned = cuda_stream is None
        self.handle = cuda_stream if cuda_stream is not None else drv.call("cuStreamCreate", _NON_BLOCKING)

    @property
    def cuda_stream(self) -> int:
        return drv.to_int(self.handle)

    def synchronize(self) -> None:
        self.device.make_current()
        drv.call("cuStreamSynchronize", self.handle)
        checks.raise_failures(self.device, self)

    @property
    def is_complete(self) -> bool:
        err = drv._driver().cuStreamQuery(self.handle)[0]
        return int(err) == 0

    def record_event(self, event: "Event | None" = None) -> "Event":
        event = event or Event(self.device)
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        self.device.make_current()
        drv.call("cuStreamWaitEvent", self.handle, event.handle, 0)

    def wait_stream(self, other: "Stream", event: "Event | None" = None) -> None:
        """Work queued on this stream after this call waits for everything queued on `other` so far."""
        self.wait_event(other.record_event(event))

    def __repr__(self):
        return f"<wp.Stream on {self.device.alias}>"

    def __del__(self):
        if getattr(self, "owned", False):
            try:
                drv.call("cuStreamDestroy", self.handle)
            except Exception:
                pass


class Event:
    """A point in a stream's work, to order other streams after it or to time between two."""

    def __init__(self, device=None, cuda_event=None, enable_timing: bool = False, interprocess: bool = False):
        """Warp's parameters: `cuda_event` an event made elsewhere (not destroyed here); `interprocess`
        is accepted, but warp_nb exports no IPC handles (ipc_handle says so)."""
        self.device = _cuda_device(device)
        if enable_timing and interprocess:
            raise ValueError("wp.Event: enable_timing=True and interprocess=True cannot be combined (as in CUDA)")
        self.device.make_current()
        self.enable_timing, self.interprocess = enable_timing, interprocess
        self.owned = cuda_event is None
        self.handle = cuda_event if cuda_event is not None else drv.call(
            "cuEventCreate", 0 if enable_timing else _DISABLE_TIMING)

    def ipc_handle(self) -> bytes:
        """Warp's IPC handle of the event; warp_nb shares no events between processes (cuda/ipc.py)."""
        from .ipc import refuse
        refuse("wp.Event.ipc_handle", self.device)

    def record(self, stream: Stream | None = None) -> None:
        stream = stream or self.device.stream
        self.device.make_current()
        drv.call("cuEventRecord", self.handle, stream.handle)

    def synchronize(self) -> None:
        drv.call("cuEventSynchronize", self.handle)

    @property
    def is_complete(self) -> bool:
        return int(drv._driver().cuEventQuery(self.handle)[0]) == 0

    def __del__(self):
        if not getattr(self, "owned", False):
            return
        try:
            drv.call("cuEventDestroy", self.handle)
        except Exception:
            pass


def get_stream(device=None) -> Stream:
    return _cuda_device(device).stream


def set_stream(stream: Stream, device=None) -> None:
    (_cuda_device(device) if device is not None else stream.device).stream = stream


def record_event(event: Event | None = None) -> Event:
    return get_stream().record_event(event)


def wait_event(event: Event) -> None:
    get_stream().wait_event(event)


def wait_stream(other: Stream, event: Event | None = None) -> None:
    get_stream(other.device if other is not None else None).wait_stream(other, event)


def synchronize_stream(stream_or_device=None) -> None:
    """Wait on the host for the work queued on a stream: `stream_or_device` a wp.Stream, or a device
    (default: the current device) whose current stream is meant. A CPU device has nothing to wait
    for (its work is synchronous), as wp.synchronize_device."""
    if isinstance(stream_or_device, Stream):
        stream_or_device.synchronize()
        return
    device = get_device(stream_or_device)
    if device.is_cuda:
        device.stream.synchronize()


def synchronize_event(event: Event) -> None:
    event.synchronize()


def get_event_elapsed_time(start: Event, end: Event, synchronize: bool = True) -> float:
    """Milliseconds between two events recorded with enable_timing=True."""
    if synchronize:
        end.synchronize()
    return float(drv.call("cuEventElapsedTime", start.handle, end.handle))


class ScopedStream:
    """`with wp.ScopedStream(s):` makes `s` its device's current stream (and that device the
    default device) inside the block; with sync_enter the new stream first waits for the old."""

    def __init__(self, stream: Stream | None, sync_enter: bool = True, sync_exit: bool = False):
        self.stream, self.sync_enter, self.sync_exit = stream, sync_enter, sync_exit

    def __enter__(self):
        if self.stream is None:
            return None
        from ..runtime.devices import ScopedDevice
        self._scoped_device = ScopedDevice(self.stream.device)
        self._scoped_device.__enter__()
        self._previous = self.stream.device.stream
        if self.sync_enter and self._previous is not self.stream:
            self.stream.wait_stream(self._previous)
        self.stream.device.stream = self.stream
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return
        if self.sync_exit:
            self._previous.wait_stream(self.stream)
        self.stream.device.stream = self._previous
        self._scoped_device.__exit__(*exc)
