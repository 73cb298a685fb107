"""`warp._src.apic.types`: constants and records of Warp's APIC C interface that its tests import.
The CUDA ones describe GPU module artifacts (binaries, PTX, source fallback) warp_nb does not save;
APICModuleBytes is the (file name, data, size) record of Warp's load-from-bytes entry point."""

import ctypes
from dataclasses import dataclass

APIC_CUDA_BINARY_NONE, APIC_CUDA_BINARY_PTX, APIC_CUDA_BINARY_CUBIN = 0, 1, 2
APIC_CUDA_ARCH_SUFFIX_A = 1
APIC_CUDA_FALLBACK_AVAILABLE, APIC_CUDA_FALLBACK_SOURCE_UNAVAILABLE = 0, 1


@dataclass
class APICCudaCompileRecipe:
    """How a CUDA module of a saved graph can be compiled again (unused on the CPU)."""
    arch: int = 0
    binary_kind: int = APIC_CUDA_BINARY_NONE
    fallback: int = APIC_CUDA_FALLBACK_SOURCE_UNAVAILABLE


class APICModuleBytes(ctypes.Structure):
    _fields_ = [("filename", ctypes.c_char_p), ("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]
