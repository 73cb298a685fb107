"""Interprocess sharing of CUDA memory and events (Warp's wp.from_ipc_handle and
wp.event_from_ipc_handle, which open a handle another process exported, and the ipc_handle() of an
array or Event, which exports one). warp_nb exports no IPC handles and opens none: each says so
with the RuntimeError Warp raises where a device does not support IPC (the CPU, or a GPU without
it). docs/compat.md lists this with the other CUDA-only features."""

from __future__ import annotations

from ..runtime.devices import get_device


def refuse(what: str, device) -> None:
    raise RuntimeError(f"{what}: IPC is not supported on device {get_device(device)}: warp_nb does not share "
                       "allocations or events between processes (pass data through files, pipes or MPI instead)")


def from_ipc_handle(handle: bytes, dtype, shape, strides=None, device=None):
    """An array over memory another process exported with an IPC handle (not supported here)."""
    refuse("wp.from_ipc_handle", device)


def event_from_ipc_handle(handle, device=None):
    """An event another process exported with an IPC handle (not supported here)."""
    refuse("wp.event_from_ipc_handle", device)
