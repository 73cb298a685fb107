"""A data-parallel fit: every MPI rank holds a shard of the data, computes the gradient of its
share of the loss with a `wp.Tape`, and one `Allreduce` sums the gradients, so every rank takes
the same step and the parameters stay identical everywhere.

    fit = DataParallelFit(x_shard, y_shard, total_count=n, comm=MPI.COMM_WORLD, learning_rate=0.1)
    for _ in range(50):
        loss = fit.step()

    mpiexec -n 2 python -m mpi4py -m warp_nb.kernels.fit_mpi --points 4096 --steps 50

The model is y = dot(w, x) + b with x a vec3 and the loss the mean squared error over all
points of all ranks. Each rank divides by the total count, so the sum of the ranks' gradients
is the gradient of the whole loss; the parameters' gradients (a vec3 array and a float array)
go to MPI as they are. The sum differs from a single process's only in the order of float
additions. `comm=None` runs without MPI."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .mpi_buffers import check_layouts_agree, import_mpi, mpi_buffer


@wp.kernel
def squared_error(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=float), w: wp.array(dtype=wp.vec3),
                  b: wp.array(dtype=float), inv_count: float, loss: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.dot(w[0], x[i]) + b[0] - y[i]
    wp.atomic_add(loss, 0, r * r * inv_count)


@wp.kernel
def gradient_step(w: wp.array(dtype=wp.vec3), w_grad: wp.array(dtype=wp.vec3), b: wp.array(dtype=float),
                  b_grad: wp.array(dtype=float), learning_rate: float):
    w[0] = w[0] - learning_rate * w_grad[0]
    b[0] = b[0] - learning_rate * b_grad[0]


def shard(count: int, rank: int, ranks: int) -> slice:
    """The contiguous block of `count` items that `rank` of `ranks` holds (sizes differ by at most one)."""
    base, extra = divmod(count, ranks)
    start = rank * base + min(rank, extra)
    return slice(start, start + base + (1 if rank < extra else 0))


class DataParallelFit:
    """Parameters (the same on every rank), this rank's data and the summed gradient of the last step."""

    def __init__(self, x: np.ndarray, y: np.ndarray, total_count: int, comm=None, learning_rate: float = 0.1,
                 device=None):
        x, y = np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != 3 or y.shape != (x.shape[0],):
            raise ValueError(f"x must have shape (n, 3) and y shape (n,); got {x.shape} and {y.shape}")
        self.comm, self.learning_rate, self.total_count = comm, float(learning_rate), int(total_count)
        self.x = wp.array(x, dtype=wp.vec3, device=device)
        self.y = wp.array(y, dtype=float, device=device)
        self.w = wp.zeros(1, dtype=wp.vec3, device=device, requires_grad=True)
        self.b = wp.zeros(1, dtype=float, device=device, requires_grad=True)
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
        if comm is not None:
            self.MPI = import_mpi()
            counts = comm.allgather(len(y))
            if sum(counts) != self.total_count:
                raise ValueError(f"the ranks hold {counts} points, {sum(counts)} in all, but total_count is "
                                 f"{self.total_count}: pass the number of points summed over every rank")
            for name, a in (("w.grad", self.w.grad), ("b.grad", self.b.grad), ("loss", self.loss)):
                check_layouts_agree(comm, a, name)

    def gradient(self) -> float:
        """Fill w.grad and b.grad with the gradient of the whole loss (summed over ranks); return the loss."""
        self.loss.zero_()
        self.w.grad.zero_()
        self.b.grad.zero_()
        tape = wp.Tape()
        with tape:
            wp.launch(squared_error, dim=len(self.y), device=self.x.device,
                      inputs=[self.x, self.y, self.w, self.b, 1.0 / self.total_count, self.loss])
        tape.backward(loss=self.loss)
        if self.comm is not None:
            wp.synchronize_device(self.x.device)
            for a in (self.w.grad, self.b.grad, self.loss):
                self.comm.Allreduce(self.MPI.IN_PLACE, mpi_buffer(a), op=self.MPI.SUM)
        return float(self.loss.numpy()[0])

    def step(self) -> float:
        """One gradient-descent step; returns the loss before it."""
        loss = self.gradient()
        wp.launch(gradient_step, dim=1, device=self.w.device,
                  inputs=[self.w, self.w.grad, self.b, self.b.grad, self.learning_rate])
        return loss

    def parameters(self) -> np.ndarray:
        """(w0, w1, w2, b) as float64."""
        return np.concatenate([self.w.numpy()[0], self.b.numpy()]).astype(np.float64)


def synthetic_data(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points x in [-1, 1]^3 and y = dot((1.5, -2, 0.5), x) + 0.25 plus a little noise."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=(count, 3)).astype(np.float32)
    y = (x @ np.array([1.5, -2.0, 0.5], np.float32) + 0.25 + 0.01 * rng.standard_normal(count)).astype(np.float32)
    return x, y


def main(argv=None) -> None:
    """Fit on every rank of COMM_WORLD; rank 0 prints the parameters, losses and first gradient as JSON."""
    import argparse
    import json
    p = argparse.ArgumentParser(description=main.__doc__)
    p.add_argument("--points", type=int, default=4096)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--learning-rate", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    comm = import_mpi().COMM_WORLD
    wp.config.cpu_threads = 1
    x, y = synthetic_data(args.points, args.seed)
    part = shard(args.points, comm.rank, comm.size)
    fit = DataParallelFit(x[part], y[part], args.points, comm=comm, learning_rate=args.learning_rate)
    fit.gradient()
    first_gradient = np.concatenate([fit.w.grad.numpy()[0], fit.b.grad.numpy()]).tolist()
    losses = [fit.step() for _ in range(args.steps)]
    # every rank must end with the same parameters: compare them all on rank 0
    params = comm.gather(fit.parameters().tolist())
    if comm.rank == 0:
        print(json.dumps({"ranks": comm.size, "parameters": params, "losses": losses,
                          "first_gradient": first_gradient}))


if __name__ == "__main__":
    main()
