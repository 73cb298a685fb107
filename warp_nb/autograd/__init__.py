"""`warp_nb.autograd` (Warp's `warp.autograd`): tools for checking gradients.

- `jacobian` / `jacobian_fd`: Jacobians of a kernel launch, or of a Python function that launches
  kernels, from the adjoint code and from central differences (jacobians.py);
- `gradcheck` / `gradcheck_tape`: compare the two for one launch or function, or for every kernel
  launch recorded on a tape (check.py); `gradcheck_report` gives the comparison itself;
- `jacobian_plot`: draw Jacobians or error matrices with matplotlib (plot.py);
- `FunctionMetadata`: the names and dtypes the summaries and plots show (metadata.py).

Only arrays with requires_grad=True take part. Inputs are restored after every check, so the
user's arrays keep their values, gradients and read flags."""

from .check import GradcheckReport, gradcheck, gradcheck_report, gradcheck_tape
from .jacobians import jacobian, jacobian_fd
from .metadata import FunctionMetadata
from .plot import jacobian_plot

__all__ = ["FunctionMetadata", "GradcheckReport", "gradcheck", "gradcheck_report", "gradcheck_tape", "jacobian",
           "jacobian_fd", "jacobian_plot"]
