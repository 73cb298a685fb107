"""`wp.can_access(device, array)`: whether a kernel on `device` may read an array's memory, from the
devices involved (Device.can_access). Knows arrays only by their `device` and, for indexed arrays,
the arrays they gather from; knows nothing about launches."""

from __future__ import annotations

from .devices import Device, get_device


def can_access(device, resource) -> bool:
    """True when kernels on `device` can dereference every pointer of `resource` (a wp.array, or an
    indexed array: its data and its index arrays)."""
    target = get_device(device)
    return all(target.can_access(part.device) for part in _memory_parts(resource))


def _memory_parts(resource) -> list:
    kind = type(resource).__name__
    if kind in ("ArrayType", "IndexedArrayType", "ArrayAnnotation", "IndexedArrayAnnotation") or isinstance(resource, type):
        raise TypeError(f"wp.can_access needs a concrete Warp array with memory, got the type annotation "
                        f"{resource!r}")
    # numpy 2's arrays have a `device` too (the string "cpu"): a warp_nb array's is a Device
    if not (isinstance(getattr(resource, "device", None), Device) and hasattr(resource, "shape")):
        raise TypeError(f"wp.can_access takes Warp arrays (wp.array, wp.indexedarray), got {type(resource).__name__}")
    if hasattr(resource, "indices") and hasattr(resource, "data"):  # an indexed array gathers from data by indices
        return [resource.data, *(i for i in resource.indices if i is not None)]
    return [resource]
