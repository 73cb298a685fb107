"""`warp_nb.autograd` (Warp's `warp.autograd`): tools for checking gradients.

- `jacobian` / `jacobian_fd`: Jacobians of a kernel launch, or of a Python function that launches
  kernels, from the adjoint code and from central differences (jacobians.py);
- `gradcheck` / `gradcheck_tape`: compare the two for one launch or function, or for every kernel
  launch recorded on a tape (check.py); `gradcheck_report` gives the comparison itself;
- `jacobian_plot`: draw Jacobians or error matrices with matplotlib (plot.py);
- `FunctionMetadata`: the names and dtypes the summaries and plots show (metadata.py).

Only arrays with requires_grad=True take part. Inputs are restored after every check, so the
user's arrays keep their values, gradients and read flags.

These load on first use (PEP 562): `wp.Tape` lives in this package too, and `import warp_nb`
should not pay for the gradient checks (tests/unit/test_lazy_imports.py)."""

import importlib as _importlib

_WHERE = {"GradcheckReport": "check", "gradcheck": "check", "gradcheck_report": "check", "gradcheck_tape": "check",
          "jacobian": "jacobians", "jacobian_fd": "jacobians", "FunctionMetadata": "metadata",
          "jacobian_plot": "plot"}

__all__ = ["FunctionMetadata", "GradcheckReport", "gradcheck", "gradcheck_report", "gradcheck_tape", "jacobian",
           "jacobian_fd", "jacobian_plot"]


#: the submodules the package loaded before, reachable as attributes as then
_SUBMODULES = ("check", "jacobians", "metadata", "plot")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module("." + name, __name__)
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module("." + where, __name__), name)
    globals()[name] = value  # once: later lookups are ordinary
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE) | set(_SUBMODULES))
