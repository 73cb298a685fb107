"""warp_nb arrays as mpi4py message buffers, checked so that a mistake raises on every rank
instead of hanging the ranks that did nothing wrong.

    from mpi4py import MPI
    from warp_nb.kernels.mpi_buffers import mpi_buffer, check_layouts_agree
    comm.Sendrecv(mpi_buffer(u[1]), dest=up, recvbuf=mpi_buffer(u[0]), source=down)
    check_layouts_agree(comm, grad, "grad")      # collective: same shape and dtype everywhere
    comm.Allreduce(MPI.IN_PLACE, mpi_buffer(grad))

A CPU `wp.array` can also go to mpi4py as it is (`comm.Allreduce(a, b)`): mpi4py reads it through
DLPack, without a copy. `mpi_buffer` adds what MPI cannot say well: a strided view, a GPU array
with an MPI built without CUDA support, or an empty array are refused with a message naming the
fix, and what it returns is a numpy view of the same memory (cheaper per call than DLPack).

MPI itself never checks that two ranks agree on a message's size or element type: a collective
with mismatched counts hangs or corrupts memory, and a receive into a larger buffer of another
type succeeds silently. `check_layouts_agree` and `check_message_layout` trade one small message
for an exception on every rank involved. Knows nothing about kernels."""

from __future__ import annotations

import os

import numpy as np

import warp_nb as wp

#: set to 1 where mpi4py runs over a CUDA-aware MPI, so GPU arrays are handed to MPI by address
CUDA_AWARE_ENV = "WARP_NB_MPI_CUDA_AWARE"


def import_mpi():
    """mpi4py's MPI module, or an ImportError that says how to install it."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError("warp_nb's MPI examples need mpi4py and an MPI library: pip install 'warp_nb[mpi]' "
                          "(mpi4py and Open MPI from PyPI), then run with mpiexec -n 2 python -m mpi4py script.py"
                          ) from e
    return MPI


def _describe(a) -> str:
    return f"{wp.types.type_name(a.dtype)} array of shape {tuple(a.shape)} on {a.device}"


def mpi_buffer(a, name: str = "array", cuda_aware: bool | None = None):
    """What to hand mpi4py for the warp_nb array `a`, sharing its memory: a numpy view on the CPU;
    on a GPU the array itself (mpi4py reads `__cuda_array_interface__`/DLPack), which only a
    CUDA-aware MPI can use, so it is refused unless `cuda_aware` (or $WARP_NB_MPI_CUDA_AWARE=1) says so."""
    if not getattr(type(a), "_wp_array_", False):
        raise TypeError(f"{name} is a {type(a).__name__}; mpi_buffer takes a wp.array (numpy arrays go to "
                        "mpi4py directly)")
    if not a.is_contiguous:
        raise ValueError(f"{name} is a strided view ({_describe(a)}, strides {tuple(a.strides)} bytes); an MPI "
                         "buffer must be one contiguous block: send rows of a C-ordered array (u[i] or u[i:j]), "
                         "or copy the view first with a.contiguous() (a new array: receive into it, then "
                         "copy back with view.assign(...))")
    if a.size == 0:
        raise ValueError(f"{name} is empty ({_describe(a)}); MPI has nothing to send or receive")
    if a.device.is_cuda:
        if cuda_aware is None:
            cuda_aware = os.environ.get(CUDA_AWARE_ENV, "") == "1"
        if not cuda_aware:
            raise ValueError(f"{name} is on {a.device}; the MPI library must be CUDA-aware to read GPU memory "
                             "(the Open MPI wheel from PyPI is not). Stage it through the host (a.numpy(), then "
                             f"assign back), or with a CUDA-aware MPI pass cuda_aware=True or set {CUDA_AWARE_ENV}=1. "
                             "Synchronize the array's stream first (wp.synchronize_device) so MPI reads finished data")
        return a
    return a.numpy()


def _layout(a) -> tuple:
    return (tuple(int(s) for s in a.shape), wp.types.type_name(a.dtype))


def check_layouts_agree(comm, a, name: str = "array") -> None:
    """Collective: raise on every rank of `comm` unless `a` has the same shape and dtype on all of
    them, as Allreduce/Bcast/Reduce need. Costs one small allgather."""
    layouts = comm.allgather(_layout(a))
    if len(set(layouts)) > 1:
        listing = "; ".join(f"rank {r}: shape {s}, {t}" for r, (s, t) in enumerate(layouts))
        raise ValueError(f"{name} differs between ranks ({listing}); a collective needs the same shape and "
                         f"dtype on every rank: allocate {name} identically everywhere (rank {comm.rank} has "
                         f"shape {layouts[comm.rank][0]}, {layouts[comm.rank][1]})")


def check_message_layout(comm, send, dest: int, recv, source: int, name: str = "halo") -> None:
    """Collective: each rank sends the layout of `send` to `dest` and checks what `source` sends
    against `recv`; then all ranks share their verdicts, so a wrong size or dtype anywhere raises on
    every rank (a rank whose own messages are fine would otherwise wait forever in the Sendrecv that
    follows). Pass None and PROC_NULL at the ends of a chain."""
    theirs = comm.sendrecv(_layout(send) if send is not None else None, dest=dest, source=source)
    problem = None
    if theirs is not None and recv is not None and theirs != _layout(recv):
        mine = _layout(recv)
        problem = (f"rank {source} sends {name} of shape {theirs[0]}, {theirs[1]} but rank {comm.rank} receives "
                   f"into shape {mine[0]}, {mine[1]}")
    problems = [p for p in comm.allgather(problem) if p]
    if problems:
        raise ValueError(f"{name}: " + "; ".join(problems) + ". Make each receive buffer match the message it "
                         "receives: the same number of elements and the same dtype on both sides")


def numpy_dtype_of(a) -> np.dtype:
    """The numpy scalar type MPI sees for `a` (vector and matrix arrays send their components)."""
    return np.dtype(wp.types.numpy_dtype(a.dtype))
