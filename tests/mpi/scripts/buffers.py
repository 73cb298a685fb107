"""On 2 ranks: warp_nb arrays straight into mpi4py's buffer calls. Rank 0 prints one JSON line with
what every call produced, what addresses MPI saw, and the errors of the bad-input cases; the test
compares the values with numpy. Each case catches its own exception, so the run ends on every rank."""

import json

import numpy as np
from mpi4py import MPI
from warp_nb.kernels.fit_mpi import DataParallelFit
from warp_nb.kernels.mpi_buffers import check_layouts_agree, check_message_layout, mpi_buffer

import warp_nb as wp

wp.config.cpu_threads = 1
comm = MPI.COMM_WORLD
rank, other = comm.rank, 1 - comm.rank
report = {}


def base(n, dtype=np.float32):
    """What rank r fills: r * 1000 + 0, 1, 2, ... (the test rebuilds it with numpy)."""
    return (np.arange(n) + 1000 * rank).astype(dtype)


def error_of(action):
    try:
        action()
    except Exception as e:  # noqa: BLE001 (the test reads the type and message)
        return f"{type(e).__name__}: {e}"
    return None


# Allreduce with the arrays themselves (DLPack) and with mpi_buffer (a numpy view)
a = wp.array(base(6), dtype=float)
total = wp.zeros(6, dtype=float)
comm.Allreduce(a, total)
report["allreduce_direct"] = total.numpy().tolist()
comm.Allreduce(MPI.IN_PLACE, mpi_buffer(a), op=MPI.MAX)
report["allreduce_in_place_max"] = a.numpy().tolist()

# no copy: MPI's view of each form starts at the array's own address
c = wp.array(base(5, np.int32), dtype=wp.int32)
report["same_address"] = [MPI.buffer(c).address == c.ptr, MPI.buffer(mpi_buffer(c)).address == c.ptr]

# Send/Recv of int32, then Sendrecv and Isend/Irecv of vec3 arrays (the components travel)
got = wp.zeros(5, dtype=wp.int32)
if rank == 0:
    comm.Send(c, dest=1, tag=1)
    comm.Recv(got, source=1, tag=2)
else:
    comm.Recv(got, source=0, tag=1)
    comm.Send(c, dest=0, tag=2)
report["send_recv"] = got.numpy().tolist()

v = wp.array(base(12).reshape(4, 3), dtype=wp.vec3)
w = wp.zeros(4, dtype=wp.vec3)
comm.Sendrecv(v, dest=other, recvbuf=w, source=other)
report["sendrecv_vec3"] = w.numpy().tolist()

w2 = wp.zeros(4, dtype=wp.vec3)
requests = [comm.Irecv(mpi_buffer(w2), source=other), comm.Isend(mpi_buffer(v), dest=other)]
MPI.Request.Waitall(requests)
report["isend_irecv_vec3"] = w2.numpy().tolist()

# rows of a 2-D array are contiguous views: receive straight into row 2 of a grid
grid = wp.zeros((3, 4), dtype=float)
comm.Sendrecv(mpi_buffer(wp.array(base(4), dtype=float)), dest=other, recvbuf=mpi_buffer(grid[2]), source=other)
report["into_row"] = grid.numpy().tolist()

# bad input, refused on every rank before any message moves
m = wp.array(base(16).reshape(4, 4), dtype=float)
report["strided"] = error_of(lambda: mpi_buffer(m[:, 1], "column"))
report["strided_direct"] = error_of(lambda: comm.Allreduce(m[:, 1], np.zeros(4, np.float32)))
report["empty"] = error_of(lambda: mpi_buffer(wp.zeros(0, dtype=float)))
report["not_warp"] = error_of(lambda: mpi_buffer(np.zeros(3)))
report["collective_size"] = error_of(lambda: check_layouts_agree(comm, wp.zeros(3 + rank, dtype=float), "grad"))
report["collective_dtype"] = error_of(
    lambda: check_layouts_agree(comm, wp.zeros(3, dtype=float if rank == 0 else wp.float64), "grad"))
halo_recv = wp.zeros(4 if rank == 0 else 5, dtype=float)  # rank 1 allocated its receive buffer wrong
report["halo_size"] = error_of(lambda: check_message_layout(comm, wp.zeros(4, dtype=float), other, halo_recv, other))
report["halo_dtype"] = error_of(lambda: check_message_layout(
    comm, wp.zeros(4, dtype=wp.int32 if rank == 0 else float), other, wp.zeros(4, dtype=float), other))

# the fit's total count must be the sum of the shards: every rank sees the same sum, so all refuse
x3 = np.zeros((5, 3), np.float32)
report["fit_total"] = error_of(lambda: DataParallelFit(x3, np.zeros(5, np.float32), total_count=7, comm=comm))

# without the check, MPI itself catches a receive buffer that is too small (the sender finishes)
comm.Set_errhandler(MPI.ERRORS_RETURN)
if rank == 0:
    report["truncated_recv"] = None
    comm.Send(wp.zeros(8, dtype=float), dest=1, tag=9)
else:
    report["truncated_recv"] = error_of(lambda: comm.Recv(wp.zeros(4, dtype=float), source=0, tag=9))

reports = comm.gather(report)
if rank == 0:
    print(json.dumps(reports))
