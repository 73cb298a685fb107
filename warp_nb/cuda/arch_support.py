"""Which GPU architectures each CUDA major version compiles for. NVRTC of a newer CUDA drops old
architectures (CUDA 12 dropped Kepler, CUDA 13 Maxwell, Pascal and Volta); a device older than the
toolkit's minimum gets a clear error naming the CUDA version that still supports it, instead of
NVRTC's "invalid option" at the first kernel."""

from __future__ import annotations

#: the oldest compute capability (major*10 + minor) each CUDA major version targets (NVIDIA's
#: release notes); a CUDA version newer than the table is assumed to keep the last minimum
MIN_ARCH = {11: 35, 12: 50, 13: 75}

#: the oldest architecture with thread block clusters (a kernel's cluster_dim): Hopper, sm_90
CLUSTER_MIN_ARCH = 90


def minimum_arch(cuda_major: int) -> int | None:
    """The oldest architecture CUDA `cuda_major` compiles for; None for versions before the table."""
    known = [m for m in MIN_ARCH if m <= cuda_major]
    return MIN_ARCH[max(known)] if known else None


def validate_device_arch(arch: int, toolkit_version: tuple | None, device: str | None = None) -> None:
    """Raise RuntimeError when `toolkit_version` (NVRTC's (major, minor); None: unknown, accepted)
    cannot compile for compute capability `arch` (e.g. 61 for sm_61)."""
    if toolkit_version is None:
        return
    major = int(toolkit_version[0])
    lowest = minimum_arch(major)
    if lowest is None or arch >= lowest:
        return
    older = max((m for m, a in MIN_ARCH.items() if a <= arch), default=None)
    who = f"device {device}" if device else "the device"
    version = ".".join(str(v) for v in toolkit_version)
    hint = (f"use a CUDA {older} build of NVRTC (pip install nvidia-cuda-nvrtc-cu{older}) for this GPU"
            if older is not None else "no supported CUDA version compiles for this GPU")
    raise RuntimeError(f"{who} has compute capability sm_{arch}, which CUDA {major} ({version}) no longer "
                       f"supports: CUDA {major} compiles for sm_{lowest} and newer; {hint}")
