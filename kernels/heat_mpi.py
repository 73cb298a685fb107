"""The 2-D heat equation on a grid split into slabs of rows, one slab per MPI rank, with a halo
exchange of one row between neighbours before every step.

    from mpi4py import MPI
    heat = HeatSlabs(initial, comm=MPI.COMM_WORLD, alpha=0.2)   # every rank passes the same grid
    for _ in range(100):
        heat.step()
    u = heat.gather()            # the whole grid on rank 0, None elsewhere

    mpiexec -n 2 python -m mpi4py -m warp_nb.kernels.heat_mpi --rows 512 --cols 512 --steps 50

Each rank stores its rows plus one ghost row above and below. A step first swaps edge rows with
the neighbours (`Sendrecv` straight from and into the ghost rows: rows of a C-ordered array are
contiguous, so nothing is packed), then one kernel updates every owned cell from the previous
values. The border of the global grid is held fixed. Every cell is computed by the same formula
on the same operands whatever the decomposition, so 1, 2 or 4 ranks give the same bits as one
process, in float32 as well as in the integer-exact variant (`dtype=np.int32`: a weighted average
with integer division, which tests can compare to the last bit without any float caveat).

`overlap=True` starts the exchange with Isend/Irecv, updates the interior rows that need no ghost
while the messages travel, then waits and updates the two edge rows (docs/scaling.md).
`comm=None` runs one process without MPI (the labs use it where mpi4py is missing)."""

from __future__ import annotations

import time

import numpy as np

import warp_nb as wp

from .mpi_buffers import check_message_layout, import_mpi, mpi_buffer


@wp.kernel
def heat_rows_float32(u: wp.array2d(dtype=wp.float32), out: wp.array2d(dtype=wp.float32), alpha: wp.float32,
                      first_row: int, row_offset: int, global_rows: int):
    # thread (i, j) updates local row first_row + i; local row 1 is global row row_offset
    i, j = wp.tid()
    r = first_row + i
    g = r - 1 + row_offset
    c = u[r, j]
    if g == 0 or g == global_rows - 1 or j == 0 or j == u.shape[1] - 1:
        out[r, j] = c  # the border of the global grid is held fixed
    else:
        lap = (u[r - 1, j] + u[r + 1, j]) + (u[r, j - 1] + u[r, j + 1]) - 4.0 * c
        out[r, j] = c + alpha * lap


@wp.kernel
def heat_rows_int32(u: wp.array2d(dtype=wp.int32), out: wp.array2d(dtype=wp.int32), alpha: wp.float32,
                    first_row: int, row_offset: int, global_rows: int):
    # integer-exact diffusion: the new value is (4 c + the four neighbours) // 8 (alpha unused, 1/8 fixed)
    i, j = wp.tid()
    r = first_row + i
    g = r - 1 + row_offset
    c = u[r, j]
    if g == 0 or g == global_rows - 1 or j == 0 or j == u.shape[1] - 1:
        out[r, j] = c
    else:
        out[r, j] = (4 * c + u[r - 1, j] + u[r + 1, j] + u[r, j - 1] + u[r, j + 1]) // 8


_KERNELS = {np.dtype(np.float32): heat_rows_float32, np.dtype(np.int32): heat_rows_int32}


def split_rows(rows: int, ranks: int) -> list[int]:
    """Rows per rank, as even as possible (the first `rows % ranks` ranks take one more)."""
    if rows < ranks:
        raise ValueError(f"a grid of {rows} rows cannot be split over {ranks} ranks (each needs at least one "
                         f"row): use at least {ranks} rows or fewer ranks")
    return [rows // ranks + (1 if r < rows % ranks else 0) for r in range(ranks)]


class HeatSlabs:
    """This rank's slab of the grid, its neighbours and the time spent exchanging and computing."""

    def __init__(self, initial: np.ndarray, comm=None, alpha: float = 0.2, device=None, check: bool = True):
        initial = np.asarray(initial)
        if initial.ndim != 2 or min(initial.shape) < 3:
            raise ValueError(f"initial must be a 2-D grid of at least 3x3 cells, not shape {initial.shape}")
        if initial.dtype not in _KERNELS:
            raise TypeError(f"initial has dtype {initial.dtype}; use float32 or int32 (integer-exact)")
        if initial.dtype == np.float32 and not 0.0 < alpha <= 0.25:
            raise ValueError(f"alpha={alpha} makes the explicit step unstable; use 0 < alpha <= 0.25")
        self.comm, self.alpha, self.kernel = comm, float(alpha), _KERNELS[initial.dtype]
        size, rank = (comm.size, comm.rank) if comm is not None else (1, 0)
        counts = split_rows(initial.shape[0], size)
        self.global_shape, self.counts = initial.shape, counts
        self.row_offset, self.rows = sum(counts[:rank]), counts[rank]
        local = np.zeros((self.rows + 2, initial.shape[1]), dtype=initial.dtype)
        local[1:-1] = initial[self.row_offset:self.row_offset + self.rows]
        self.u = wp.array(local, dtype=wp.dtype_from_numpy(initial.dtype), device=device)
        self.v = wp.array(local, dtype=wp.dtype_from_numpy(initial.dtype), device=device)
        if comm is not None:
            MPI = import_mpi()
            self.above = rank - 1 if rank > 0 else MPI.PROC_NULL
            self.below = rank + 1 if rank < size - 1 else MPI.PROC_NULL
            if check:  # one round of small messages now, so a bad layout raises everywhere instead of hanging
                check_message_layout(comm, self.u[1], self.above, self.u[-1], self.below, "halo row")
            # the ghost and edge rows of both buffers as MPI buffers, made once (views cost microseconds)
            self._rows_of = {id(a): self._ghosts(a) for a in (self.u, self.v)}
        #: with True, a Barrier before each exchange times how long ranks wait for each other
        #: (load imbalance, a descheduled rank) apart from the exchange itself
        self.separate_wait = False
        self.halo_seconds = self.compute_seconds = self.wait_seconds = 0.0
        self.steps = 0

    def _ghosts(self, u):
        """(first owned row, last owned row, ghost above, ghost below) of `u`, as MPI buffers."""
        n = self.rows
        return mpi_buffer(u[1]), mpi_buffer(u[n]), mpi_buffer(u[0]), mpi_buffer(u[n + 1])

    def exchange_halo(self) -> None:
        """Send the first owned row up and the last one down; fill both ghost rows from the neighbours."""
        if self.comm is None:
            return
        first, last, ghost_above, ghost_below = self._rows_of[id(self.u)]
        self.comm.Sendrecv(first, dest=self.above, recvbuf=ghost_below, source=self.below)
        self.comm.Sendrecv(last, dest=self.below, recvbuf=ghost_above, source=self.above)

    def _update(self, first_row: int, count: int) -> None:
        if count > 0:
            wp.launch(self.kernel, dim=(count, self.global_shape[1]), device=self.u.device,
                      inputs=[self.u, self.v, self.alpha, first_row, self.row_offset, self.global_shape[0]])

    def step(self, overlap: bool = False) -> None:
        """One explicit step: halo exchange, then every owned row (interior rows during the exchange
        with `overlap`)."""
        t0 = time.perf_counter()
        if overlap and self.comm is not None and self.rows > 2:
            first, last, ghost_above, ghost_below = self._rows_of[id(self.u)]
            requests = [self.comm.Irecv(ghost_below, source=self.below), self.comm.Irecv(ghost_above, source=self.above),
                        self.comm.Isend(first, dest=self.above), self.comm.Isend(last, dest=self.below)]
            t1 = time.perf_counter()
            self._update(2, self.rows - 2)  # rows 2 .. n-1 read no ghost row
            t2 = time.perf_counter()
            import_mpi().Request.Waitall(requests)
            t3 = time.perf_counter()
            self._update(1, 1)
            self._update(self.rows, 1)
            wp.synchronize_device(self.u.device)
            t4 = time.perf_counter()
            self.halo_seconds += (t1 - t0) + (t3 - t2)
            self.compute_seconds += (t2 - t1) + (t4 - t3)
        else:
            if self.separate_wait and self.comm is not None:
                self.comm.Barrier()
                t_ready = time.perf_counter()
                self.wait_seconds += t_ready - t0
                t0 = t_ready
            self.exchange_halo()
            t1 = time.perf_counter()
            self._update(1, self.rows)
            wp.synchronize_device(self.u.device)
            self.halo_seconds += t1 - t0
            self.compute_seconds += time.perf_counter() - t1
        self.u, self.v = self.v, self.u
        self.steps += 1

    def local(self) -> np.ndarray:
        """This rank's owned rows (a copy)."""
        return self.u.numpy()[1:-1].copy()

    def gather(self, root: int = 0) -> np.ndarray | None:
        """The whole grid on `root` (None on the other ranks)."""
        if self.comm is None:
            return self.local()
        rows = self.u.numpy()[1:-1]
        width = self.global_shape[1]
        out = np.empty(self.global_shape, dtype=rows.dtype) if self.comm.rank == root else None
        counts = [c * width for c in self.counts]
        displs = [sum(counts[:r]) for r in range(len(counts))]
        self.comm.Gatherv(rows, [out, (counts, displs)] if out is not None else None, root=root)
        return out


def initial_grid(rows: int, cols: int, dtype=np.float32, seed: int = 0) -> np.ndarray:
    """A reproducible starting grid: random values (0..1000 for int32) and a hot square in the middle."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.int32:
        u = rng.integers(0, 1000, size=(rows, cols), dtype=np.int32)
        u[rows // 3: 2 * rows // 3, cols // 3: 2 * cols // 3] = 100_000
        return u
    u = rng.random((rows, cols), dtype=np.float32)
    u[rows // 3: 2 * rows // 3, cols // 3: 2 * cols // 3] = 100.0
    return u


def idle_barrier(comm, poll_seconds: float = 0.002) -> None:
    """A barrier that sleeps while it waits. Open MPI busy-polls in blocking calls, so ranks that sit
    out a measurement would take CPU from the ranks being measured (on a 2-core machine, half of it)."""
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(poll_seconds)


def time_steps(heat: HeatSlabs, steps: int, warmup: int = 2, overlap: bool = False) -> dict:
    """Time `steps` steps after `warmup` (collective over heat.comm). Milliseconds per step, the
    slowest rank's: the mean over the run, and medians over steps, which shrug off the steps during
    which the OS gave a rank's core to another program."""
    comm = heat.comm
    for _ in range(warmup):
        heat.step(overlap)
    if comm is not None:
        comm.Barrier()
    heat.halo_seconds = heat.compute_seconds = heat.wait_seconds = 0.0
    t0 = time.perf_counter()
    step_ms, halo_ms = [], []
    for _ in range(steps):
        t, h = time.perf_counter(), heat.halo_seconds
        heat.step(overlap)
        step_ms.append(1e3 * (time.perf_counter() - t))
        halo_ms.append(1e3 * (heat.halo_seconds - h))
    if comm is not None:
        comm.Barrier()
    wall_ms = 1e3 * (time.perf_counter() - t0)
    mine = [wall_ms, 1e3 * heat.halo_seconds, 1e3 * heat.wait_seconds,
            float(np.median(step_ms)), float(np.median(halo_ms))]
    worst = [max(column) for column in zip(*comm.allgather(mine))] if comm is not None else mine
    wall_ms, halo_total, wait_total, median_step, median_halo = worst
    return {"steps": steps, "ms_per_step": wall_ms / steps, "halo_ms_per_step": halo_total / steps,
            "halo_share": halo_total / wall_ms, "wait_ms_per_step": wait_total / steps,
            "median_ms_per_step": median_step, "median_halo_ms_per_step": median_halo}


def main(argv=None) -> None:
    """Run the heat equation on every rank of COMM_WORLD; rank 0 prints JSON timings and can save the grid."""
    import argparse
    import json
    p = argparse.ArgumentParser(description=main.__doc__)
    p.add_argument("--rows", type=int, default=256)
    p.add_argument("--cols", type=int, default=256)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=2, help="steps before the clock starts (compilation, caches)")
    p.add_argument("--dtype", choices=["float32", "int32"], default="float32")
    p.add_argument("--alpha", type=float, default=0.2)
    p.add_argument("--overlap", action="store_true")
    p.add_argument("--threads", type=int, default=1, help="CPU threads per rank (wp.config.cpu_threads)")
    p.add_argument("--weak", action="store_true", help="--rows is per rank (weak scaling)")
    p.add_argument("--separate-wait", action="store_true",
                   help="time waiting for the slowest rank (a Barrier) apart from the exchange")
    p.add_argument("--out", help="save the final grid (.npy) from rank 0")
    args = p.parse_args(argv)
    MPI = import_mpi()
    comm = MPI.COMM_WORLD
    wp.config.cpu_threads = args.threads
    rows = args.rows * comm.size if args.weak else args.rows
    heat = HeatSlabs(initial_grid(rows, args.cols, args.dtype), comm=comm, alpha=args.alpha)
    heat.separate_wait = args.separate_wait
    timing = time_steps(heat, args.steps, args.warmup, args.overlap)
    result = heat.gather()
    if comm.rank == 0:
        if args.out:
            np.save(args.out, result)
        print(json.dumps({"ranks": comm.size, "rows": rows, "cols": args.cols, "overlap": args.overlap,
                          **timing}))


if __name__ == "__main__":
    main()
