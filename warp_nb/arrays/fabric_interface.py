"""Reading a Fabric array interface: the dict Omniverse Fabric (or a test) hands to
`wp.fabricarray(data, attrib)`:

    {"version": 1, "device": "cpu",
     "attribs": {name: {"type": (is_warp, "f4", length, array_depth, role),
                        "access": 2, "pointers": [...], "counts": [...],
                        "array_lengths": [...]}}}          # array_lengths: arrays of arrays only

In: that dict and an attribute name. Out: the element type, the number of dimensions (2 for an
attribute whose elements are arrays), the device and the buckets as (address, count, lengths
address) rows, and the bucket table a kernel searches (native/arrays/fabric_array.h). Knows
nothing about kernels or launches."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import types
from ..runtime import devices
from ..types.fabric_type import BUCKET_FIELDS

_SCALARS = {"b": types.bool, "i1": types.int8, "i2": types.int16, "i4": types.int32, "i8": types.int64,
            "u1": types.uint8, "u2": types.uint16, "u4": types.uint32, "u8": types.uint64,
            "f2": types.float16, "f4": types.float32, "f8": types.float64}


@dataclass
class FabricAttribute:
    """One Fabric attribute's element type, dimensions, device and access."""

    dtype: object
    ndim: int
    device: object
    access: int
    buckets: list  # (data address, element count, lengths address or 0), empty buckets left out


def element_type(type_info):
    """(is_warp, scalar code, length, array depth, role) -> (dtype, ndim). role "" is a scalar,
    "vector" a vector of `length`, "matrix" a square matrix of `length` elements."""
    if not isinstance(type_info, (tuple, list)) or len(type_info) != 5:
        shown = tuple(type_info) if isinstance(type_info, (tuple, list)) else type_info
        n = len(type_info) if isinstance(type_info, (tuple, list)) else "none"
        raise ValueError(f"Fabric attribute type must contain five elements, got {n}: {shown!r}")
    _, code, length, depth, role = type_info
    scalar = _SCALARS.get(code)
    if scalar is None:
        raise ValueError(f"Fabric attribute type has an unknown scalar code {code!r}; expected one of "
                         f"{', '.join(_SCALARS)}")
    length = int(length)
    if role == "matrix":
        n = math.isqrt(length)
        if n * n != length:
            raise ValueError(f"Fabric matrix attribute must have a square element count, got {length}")
        dtype = types.matrix((n, n), scalar)
    elif role == "vector" or length > 1:
        dtype = types.vector(length, scalar)
    else:
        dtype = scalar
    if int(depth) not in (0, 1):
        raise ValueError(f"Fabric attribute array depth must be 0 or 1, got {depth}")
    return dtype, 1 + int(depth)


def read_attribute(iface, attrib: str) -> FabricAttribute:
    """The attribute `attrib` of a Fabric array interface, checked."""
    if not isinstance(iface, dict):
        raise TypeError(f"wp.fabricarray(data, attrib): `data` must be a Fabric array interface (a dict), "
                        f"got {type(iface).__name__}")
    version = iface.get("version")
    if version != 1:
        raise ValueError(f"Unsupported Fabric interface version: {version}")
    info = iface.get("attribs", {}).get(attrib)
    if info is None:
        raise ValueError(f"Failed to get attribute '{attrib}'")
    dtype, ndim = element_type(info.get("type"))
    pointers, counts = list(info.get("pointers", [])), list(info.get("counts", []))
    if len(pointers) != len(counts):
        raise ValueError(f"Fabric attribute '{attrib}' has {len(pointers)} pointers but {len(counts)} counts")
    lengths = list(info.get("array_lengths", [0] * len(counts))) if ndim == 2 else [0] * len(counts)
    if ndim == 2 and len(lengths) != len(counts):
        raise ValueError(f"Fabric attribute '{attrib}' has {len(lengths)} array_lengths for {len(counts)} buckets")
    buckets = [(int(p or 0), int(c), int(n or 0)) for p, c, n in zip(pointers, counts, lengths) if int(c) > 0]
    return FabricAttribute(dtype, ndim, devices.get_device(iface.get("device")), int(info.get("access", 2)),
                           buckets)


def bucket_table(buckets: list) -> np.ndarray:
    """The rows a kernel searches: [start, end, data address, lengths address] per bucket (int64;
    addresses above 2**63 keep their bits)."""
    table = np.zeros((len(buckets), BUCKET_FIELDS), dtype=np.int64)
    start = 0
    for row, (ptr, count, lengths) in enumerate(buckets):
        table[row] = (start, start + count, np.uint64(ptr).view(np.int64), np.uint64(lengths).view(np.int64))
        start += count
    return table
