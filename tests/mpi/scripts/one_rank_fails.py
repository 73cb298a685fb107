"""Rank 1 raises before a collective that rank 0 has already entered. Run with `python -m mpi4py`,
the uncaught exception aborts the whole job: rank 0 does not wait forever in Allreduce."""

import numpy as np
from mpi4py import MPI

import warp_nb as wp

comm = MPI.COMM_WORLD
grad = wp.zeros(4, dtype=float)
if comm.rank == 1:
    raise ValueError("rank 1 found bad input before the Allreduce")
comm.Allreduce(MPI.IN_PLACE, grad.numpy())
print("rank 0 finished the Allreduce: this must not happen", np.asarray(grad.numpy()))
