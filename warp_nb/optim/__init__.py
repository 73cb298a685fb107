"""`warp.optim`: gradient-descent optimizers with Warp's interface, `Adam` and `SGD`, and the
iterative linear solvers of `warp.optim.linear` (cg, cr, bicgstab, gmres; see linear/).

    opt = warp_nb.optim.Adam([params], lr=0.01)
    opt.step([tape.gradients[params]])

Each step is one warp_nb kernel launch per parameter array, so the parameters stay on their
device. Parameters are contiguous arrays of float16, float32 or float64 scalars, vectors or
matrices; the optimizers work on their scalars (a vec3 array of n elements is 3n scalars).
Optimizer state (moments, momentum buffers) is float32 for float16 parameters, else the
parameters' own precision, and has the parameters' shape."""

from .adam import Adam  # noqa: F401
from .sgd import SGD  # noqa: F401


def __getattr__(name):
    """`wp.optim.linear` without an explicit import, as in Warp; loaded on first use."""
    if name == "linear":
        import importlib
        return importlib.import_module(__name__ + ".linear")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
