"""Warp's `wp.MemoryKind`: what kind of memory an array points into (`array.memory_kind`). A type of
its own so that array annotations (which hold no memory: UNKNOWN) and the storages that allocate
(runtime/storage.py, cuda/storage.py) name the same values."""

import enum


class MemoryKind(enum.IntEnum):
    """Warp's `wp.MemoryKind`: what kind of memory an array's pointer points into (`array.memory_kind`);
    the values are Warp's."""

    UNKNOWN = 0  # memory warp_nb did not allocate and cannot classify
    HOST = 1
    PINNED = 2  # page-locked host memory (CPU arrays made with pinned=True where a GPU is present)
    CUDA_DEVICE = 3
    CUDA_MEMPOOL = 4
    CUDA_MANAGED = 5
