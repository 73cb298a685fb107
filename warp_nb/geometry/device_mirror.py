"""A geometry structure's descriptor on a CUDA device.

warp_nb builds its geometry on the host: numpy tables, and a ctypes descriptor whose pointer
fields address them (native/geometry/*.h read it). A kernel running on a GPU needs the same
descriptor holding device addresses, in device memory: a host address there is an illegal
access that leaves the CUDA context unusable for the rest of the process. DeviceMirror keeps one
device copy of the descriptor, allocated once so that the structure's id (that copy's address)
stays the same across rebuilds, and device copies of the tables, uploaded after each build on
the device's stream (so launches queued after a build see the new tables)."""

from __future__ import annotations

import ctypes

import numpy as np


class DeviceMirror:
    """The device copy of one descriptor of type `desc_type` and of the tables it points to."""

    def __init__(self, device, desc_type):
        from ..cuda.memory import DeviceBuffer

        self.device = device
        self._desc = DeviceBuffer(device, ctypes.sizeof(desc_type))
        self.id = self._desc.ptr
        self._tables: dict[str, object] = {}  # descriptor field -> DeviceBuffer

    def upload(self, desc, tables: dict) -> None:
        """Copy `tables` ({descriptor field: numpy array or None}) to the device and the descriptor
        with those fields pointing at the copies (None or empty: a null pointer)."""
        from ..cuda import memory as mem
        from ..cuda.memory import DeviceBuffer

        on_device = type(desc).from_buffer_copy(desc)
        for field, table in tables.items():
            if table is None or table.nbytes == 0:
                setattr(on_device, field, 0)
                continue
            table = np.ascontiguousarray(table)
            buffer = self._tables.get(field)
            if buffer is None or buffer.nbytes < table.nbytes:  # the old one is freed in stream order
                buffer = self._tables[field] = DeviceBuffer(self.device, table.nbytes)
            # from pageable memory the driver has staged the bytes when the call returns
            mem.host_to_device(self.device, buffer.ptr, table.ctypes.data, table.nbytes)
            setattr(on_device, field, buffer.ptr)
        raw = ctypes.create_string_buffer(bytes(on_device), ctypes.sizeof(on_device))
        mem.host_to_device(self.device, self.id, ctypes.addressof(raw), ctypes.sizeof(on_device))


def cuda_device_or_none(device):
    """The CUDA Device that `device` names (None: the current default), or None for the CPU."""
    from ..runtime.devices import get_device

    resolved = get_device(device)
    return resolved if resolved.is_cuda else None


def refuse_on_cuda(device, what: str) -> None:
    """Raise for a structure warp_nb cannot yet put on a GPU, before anything holds a host
    address that a CUDA kernel would be handed."""
    resolved = cuda_device_or_none(device)
    if resolved is not None:
        raise ValueError(f"{what} on {resolved.alias}: warp_nb builds this structure in host memory only, and a CUDA "
                         f"kernel given its id would read host addresses; create it with device='cpu' and launch "
                         f"the kernels that use it on the CPU")
